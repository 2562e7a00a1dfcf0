#include "kmer/minimizer.hpp"

#include <algorithm>
#include <utility>

#include "common/machine.hpp"

namespace kmerbloom::detail {
namespace {

// Every m-mer of the run from its M / 2 base pairs (and its last base when
// M is odd), canonical when asked, hashed: one pass the compiler vectorizes,
// M known at compile time so that the pairs unroll.
template <unsigned M>
inline void hash_mmers(const uint32_t* __restrict c, const uint32_t* __restrict f2, const uint32_t* __restrict r2,
                       uint32_t* __restrict h, size_t mmers, bool canonical) {
  for (size_t i = 0; i < mmers; ++i) {
    uint32_t fw = 0, rc = 0;
    for (unsigned q = 0; q < M / 2; ++q) {
      fw = fw << 4 | f2[i + 2 * q];
      rc |= r2[i + 2 * q] << (4 * q);
    }
    if constexpr (M % 2 == 1) {
      fw = fw << 2 | c[i + M - 1];
      rc |= (3 - c[i + M - 1]) << (2 * (M - 1));
    }
    h[i] = minimizer_hash(canonical ? std::min(fw, rc) : fw);
  }
}

// Pass helpers: their pointers are restrict within a call, so that each
// loop vectorizes without checks of overlap.
inline void codes_of(const char* __restrict s, size_t n, uint32_t* __restrict c) {
  for (size_t i = 0; i < n; ++i) c[i] = base_codes(static_cast<uint8_t>(s[i]));  // a letter a lane
  c[n] = 0;
}

inline void pairs_of(const uint32_t* __restrict c, size_t n, uint32_t* __restrict f2, uint32_t* __restrict r2) {
  for (size_t i = 0; i < n; ++i) {
    f2[i] = c[i] << 2 | c[i + 1];
    r2[i] = (3 - c[i]) | (3 - c[i + 1]) << 2;
  }
}

// out[i] = the least of in[i] and in[i + p], i < n.
inline void least_of_two(const uint32_t* __restrict in, size_t n, size_t p, uint32_t* __restrict out) {
  for (size_t i = 0; i < n; ++i) out[i] = std::min(in[i], in[i + p]);
}

// The scan's passes, compiled once into each of the two functions below
// (inlined whole: the loops vectorize for the target of the function they
// land in).
__attribute__((always_inline)) inline void scan(const char* s, size_t n, unsigned k, unsigned m, bool canonical,
                                                size_t stride, uint32_t* scratch, uint32_t* window) {
  uint32_t* c = scratch;                // 2-bit codes, then a zero
  uint32_t* f2 = scratch + stride;      // the pair at i, first base high
  uint32_t* r2 = scratch + 2 * stride;  // its reverse complement
  uint32_t* h = scratch + 3 * stride;   // the m-mer hashes
  codes_of(s, n, c);
  pairs_of(c, n, f2, r2);
  const size_t mmers = n - m + 1;
  switch (m) {
#define KMERBLOOM_MMERS(M) \
  case M: hash_mmers<M>(c, f2, r2, h, mmers, canonical); break;
    KMERBLOOM_MMERS(1) KMERBLOOM_MMERS(2) KMERBLOOM_MMERS(3) KMERBLOOM_MMERS(4) KMERBLOOM_MMERS(5) KMERBLOOM_MMERS(6)
    KMERBLOOM_MMERS(7) KMERBLOOM_MMERS(8) KMERBLOOM_MMERS(9) KMERBLOOM_MMERS(10) KMERBLOOM_MMERS(11)
#undef KMERBLOOM_MMERS
  }
  // a[i] is the least hash of [i, i + p), for p doubling while 2p <= w, in
  // two arrays by turns (f2 is free now); then a k-mer's window [j, j + w)
  // is [j, j + p) and [j + w - p, j + w).
  const size_t w = k - m + 1, kmers = n - k + 1;
  uint32_t* a = h;
  uint32_t* b = f2;
  size_t p = 1, len = mmers;
  for (; 2 * p <= w; p *= 2) {
    len -= p;
    least_of_two(a, len, p, b);
    std::swap(a, b);
  }
  least_of_two(a, kmers, w - p, window);
}

__attribute__((flatten)) void scan_baseline(const char* s, size_t n, unsigned k, unsigned m, bool canonical,
                                            size_t stride, uint32_t* scratch, uint32_t* window) {
  scan(s, n, k, m, canonical, stride, scratch, window);
}

#if defined(__x86_64__)
__attribute__((target("avx2"), flatten)) void scan_avx2(const char* s, size_t n, unsigned k, unsigned m,
                                                        bool canonical, size_t stride, uint32_t* scratch,
                                                        uint32_t* window) {
  scan(s, n, k, m, canonical, stride, scratch, window);
}
#endif

}  // namespace

ScanFn minimizer_scan_for(const CpuFeatures& cpu) {
#if defined(__x86_64__)
  if (cpu.avx2) return scan_avx2;
#endif
  (void)cpu;
  return scan_baseline;
}

void minimizer_scan(const char* s, size_t n, unsigned k, unsigned m, bool canonical, size_t stride, uint32_t* scratch,
                    uint32_t* window) {
  static const ScanFn chosen = minimizer_scan_for(cpu_features());
  chosen(s, n, k, m, canonical, stride, scratch, window);
}

}  // namespace kmerbloom::detail
