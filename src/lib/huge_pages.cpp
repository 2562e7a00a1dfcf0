#include "kmerbloom/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace kmerbloom::detail {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

void* table_alloc(std::size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes);
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (!p) throw std::bad_alloc();
  ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure only costs speed
  return p;
}

void table_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kHugePage) {
    ::operator delete(p);
  } else {
    std::free(p);
  }
}

}  // namespace kmerbloom::detail
