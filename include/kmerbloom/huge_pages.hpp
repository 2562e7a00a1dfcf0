// Memory for tables probed at random (k-mer tables, samples): blocks of
// 2 MiB or more are 2 MiB-aligned and advised as transparent huge pages, since
// one random access per key otherwise also misses the TLB (THP is often in
// "madvise" mode). Smaller blocks come from operator new.
#pragma once

#include <cstddef>

namespace kmerbloom::detail {

// Throws std::bad_alloc. The memory is not initialised.
void* table_alloc(std::size_t bytes);
// Frees a block of table_alloc(bytes); p may be null.
void table_free(void* p, std::size_t bytes) noexcept;

}  // namespace kmerbloom::detail
