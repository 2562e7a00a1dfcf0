#include "kmerbloom/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace kmerbloom::detail {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kCacheLine = 64;

void* table_alloc(std::size_t bytes) {
  const bool huge = bytes >= kHugePage;
  void* p = nullptr;
  if (posix_memalign(&p, huge ? kHugePage : kCacheLine, bytes ? bytes : 1) != 0) throw std::bad_alloc();
  if (huge) (void)madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // a hint: failure only costs speed
  return p;
}

void table_free(void* p) noexcept { std::free(p); }

}  // namespace kmerbloom::detail
