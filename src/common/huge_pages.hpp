// Memory for tables probed at random (Bloom filters, the count table, the
// count-min sketch, the estimate's sample): always 64-byte (cache-line)
// aligned, and blocks of 2 MiB or more 2 MiB-aligned and advised as
// transparent huge pages, since one random access per key otherwise also
// misses the TLB (THP is often in "madvise" mode).
#pragma once

#include <cstddef>

namespace kmerbloom::detail {

// Throws std::bad_alloc. The memory is not initialised.
void* table_alloc(std::size_t bytes);
// Frees a block of table_alloc; p may be null.
void table_free(void* p) noexcept;

// Deleter for std::unique_ptr<T[], TableFree> over table_alloc memory.
struct TableFree {
  void operator()(void* p) const noexcept { table_free(p); }
};

// Allocator for containers of table_alloc memory.
template <class T>
struct TableAllocator {
  using value_type = T;
  TableAllocator() = default;
  template <class U>
  TableAllocator(const TableAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(table_alloc(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { table_free(p); }
  friend bool operator==(const TableAllocator&, const TableAllocator&) { return true; }
};

}  // namespace kmerbloom::detail
