#include "common/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace kmerbloom::detail {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kCacheLine = 64;

// Stored one cache line before every block: the mapping to unmap, or none
// (base == nullptr) for a small block whose allocation starts at the header.
struct Header {
  void* base;
  std::size_t length;
};

}  // namespace

// Blocks of 2 MiB and more get their own mapping, returned to the system
// when freed: from malloc, a freed table could stay resident in an arena
// and count in the peak of the next pass.
void* table_alloc(std::size_t bytes) {
  if (bytes >= kHugePage) {
    const std::size_t length = bytes + 2 * kHugePage;  // room for the header and the alignment
    void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    const auto at = (reinterpret_cast<std::uintptr_t>(base) + kCacheLine + kHugePage - 1) & ~(kHugePage - 1);
    auto* p = reinterpret_cast<char*>(at);
    *reinterpret_cast<Header*>(p - kCacheLine) = Header{base, length};
    (void)madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // a hint: failure only costs speed
    return p;
  }
  void* raw = nullptr;
  if (posix_memalign(&raw, kCacheLine, bytes + kCacheLine) != 0) throw std::bad_alloc();
  *static_cast<Header*>(raw) = Header{nullptr, 0};
  return static_cast<char*>(raw) + kCacheLine;
}

void table_free(void* p) noexcept {
  if (!p) return;
  auto* h = reinterpret_cast<Header*>(static_cast<char*>(p) - kCacheLine);
  if (h->base)
    (void)munmap(h->base, h->length);
  else
    std::free(h);
}

}  // namespace kmerbloom::detail
