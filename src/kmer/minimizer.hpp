// Minimizers and super-k-mers: how the counter splits reads into partitions.
//
// The minimizer of a k-mer is its m-mer (m <= k) of smallest hash, the m-mers
// taken canonical (the smaller of an m-mer and its reverse complement) when
// the k-mers are: a k-mer and its reverse complement then hold the same set of
// m-mers and get the same minimizer, so every occurrence of a canonical k-mer
// lands in the same partition. The order is a hash order, not lexicographic
// (poly-A would otherwise collect a share of the k-mers far above 1/P).
// A super-k-mer is a maximal run of consecutive k-mers of a read with the same
// minimizer, cut at kMaxSuperKmerKmers k-mers; it is stored once for all its
// k-mers (k - 1 + n bases for n k-mers). The cap counts k-mers, not bases, so
// that a long k still puts many k-mers in one super-k-mer.
//
// Thread safety: a SuperKmerSplitter keeps scratch space; one per thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "common/bases.hpp"
#include "kmer/hash.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {

struct CpuFeatures;

inline constexpr unsigned kDefaultMinimizerLength = 11;
inline constexpr unsigned kMaxSuperKmerKmers = 256;  // n - 1 fits the one-byte length of a spooled record

// Minimizer length for k: kDefaultMinimizerLength, or k itself when smaller.
constexpr unsigned minimizer_length(unsigned k) { return std::min(k, kDefaultMinimizerLength); }

// The hash that orders m-mers (seeded apart from hash_kmer): one 32-bit
// multiply (Fibonacci hashing, a bijection on 32 bits, so distinct m-mers
// of up to 16 bases never tie), since the scatter hashes every m-mer of the
// input in vector lanes of 32 bits (minimizer_scan). Minimizers stay as
// dense as with 64-bit hashes (E. coli 100x reads: 5,911,249 super-k-mers
// against 5,907,192 for 500,000 reads, 2/(w + 1) as a random order gives),
// and the partition is chosen by mixing the winning hash again
// (minimizer_place). Bin files record the order in their version (kBinVersion).
constexpr uint32_t minimizer_hash(uint32_t mmer) { return (mmer ^ 0x5bd1e995u) * 0x9e3779b1u; }

namespace detail {
// Words of scratch minimizer_scan needs past n, in each of its arrays (the
// code array's zero after the last base).
inline constexpr size_t kScanPad = 1;
// One run of n >= k bases, all ACGTU (either case): window[j], for each of
// its n - k + 1 k-mers, the least minimizer_hash of the k-mer's m-mers
// (canonical m-mers when `canonical`), m <= kDefaultMinimizerLength.
// scratch holds 4 x stride words, window stride, stride >= n + kScanPad.
// Each step is a pass over an array that the compiler vectorizes (AVX2
// where the CPU has it, chosen once at run time by cpu_features,
// common/machine.hpp): the 2-bit codes, the codes of base pairs, every
// m-mer from m / 2 pairs and its hash, then passes that double the width of a window's
// minimum up to the largest power of two within w = k - m + 1, and one that
// joins two such windows, overlapping, into each k-mer's.
void minimizer_scan(const char* s, size_t n, unsigned k, unsigned m, bool canonical, size_t stride, uint32_t* scratch,
                    uint32_t* window);
// The scan compiled for the given features (the baseline one when the CPU
// lacks AVX2): tests compare the two on one machine.
using ScanFn = void (*)(const char*, size_t, unsigned, unsigned, bool, size_t, uint32_t*, uint32_t*);
ScanFn minimizer_scan_for(const CpuFeatures& cpu);
}  // namespace detail

// The partition (0..partitions-1) of a minimizer hash: minimizer hashes are
// minima, so their high bits are mostly zero; mix again before the fastrange.
// The tag is 8 more bits of the same product (uniform in 0..255, and the
// same for every occurrence of a k-mer): a partition too large for the cache
// is counted in sweeps of tag ranges.
struct MinimizerPlace {
  uint32_t partition;
  uint8_t tag;
};
constexpr MinimizerPlace minimizer_place(uint64_t minimizer, uint32_t partitions) {
  const u128 x = static_cast<u128>(mix64(minimizer + 0x9e3779b97f4a7c15ULL)) * partitions;
  return {static_cast<uint32_t>(x >> 64), static_cast<uint8_t>(static_cast<uint64_t>(x) >> 56)};
}
constexpr uint32_t minimizer_partition(uint64_t minimizer, uint32_t partitions) {
  return minimizer_place(minimizer, partitions).partition;
}

class SuperKmerSplitter {
 public:
  // k in [1, kMaxK], m in [1, min(k, kDefaultMinimizerLength)].
  SuperKmerSplitter(unsigned k, unsigned m, bool canonical) : k_(k), m_(m), canonical_(canonical) {
    if (m == 0 || m > k || m > kDefaultMinimizerLength)
      throw std::invalid_argument("SuperKmerSplitter: m must be in [1, min(k, 11)]");
  }

  unsigned k() const { return k_; }
  unsigned m() const { return m_; }

  // Calls f(begin, length, minimizer) for each super-k-mer of seq, left to
  // right: seq.substr(begin, length) holds its bases (ACGTU only, either
  // case), length in [k, k - 1 + kMaxSuperKmerKmers]. Every k-mer that
  // for_each_kmer yields on seq lies in exactly one super-k-mer, in order.
  // all_bases: the caller knows seq holds ACGTU only (else it is checked).
  template <class F>
  void split(std::string_view seq, F&& f, bool all_bases = false) {
    const size_t n = seq.size();
    if (n < k_) return;
    if (all_bases || count_non_acgt(seq) == 0) {  // most reads: one run
      split_run(seq.data(), 0, n, f);
      return;
    }
    size_t start = 0;  // of the current run of ACGTU; any other byte cuts it
    for (size_t p = 0; p <= n; ++p) {
      if (p < n && kBaseCode[static_cast<uint8_t>(seq[p])] <= 3) continue;
      if (p - start >= k_) split_run(seq.data(), start, p - start, f);
      start = p + 1;
    }
  }

 private:
  // One run of `len` bases, all ACGTU, at offset `at` of the read: the
  // window minima of its k-mers, then where they change written down
  // without a branch (a cut every 11 k-mers at k = 31 is a branch no
  // predictor learns; a vectorized compare into bytes read a word of 8 at
  // a time took 1.67 ns a base of the splitter against 1.33); the
  // super-k-mers are then reported from the list, and one longer than
  // kMaxSuperKmerKmers k-mers in pieces.
  template <class F>
  void split_run(const char* s, size_t at, size_t len, F& f) {
    if (stride_ < len + detail::kScanPad) {
      stride_ = len + detail::kScanPad;
      scratch_.assign(4 * stride_, 0);
      window_.assign(stride_, 0);
      cuts_.assign(stride_, 0);
    }
    detail::minimizer_scan(s + at, len, k_, m_, canonical_, stride_, scratch_.data(), window_.data());
    const uint32_t* w = window_.data();
    const size_t kmers = len - k_ + 1;
    uint32_t* cut = cuts_.data();
    size_t cuts = 0;
    for (size_t j = 1; j < kmers; ++j) {
      cut[cuts] = static_cast<uint32_t>(j);
      cuts += w[j] != w[j - 1];
    }
    size_t first = 0;
    for (size_t c = 0; c <= cuts; ++c) {
      const size_t end = c < cuts ? cut[c] : kmers;
      const uint64_t minimizer = w[first];
      for (; end - first > kMaxSuperKmerKmers; first += kMaxSuperKmerKmers)
        f(at + first, kMaxSuperKmerKmers + k_ - 1, minimizer);
      f(at + first, end - first + k_ - 1, minimizer);
      first = end;
    }
  }

  unsigned k_, m_;
  bool canonical_;
  size_t stride_ = 0;
  std::vector<uint32_t> scratch_, window_, cuts_;
};

}  // namespace kmerbloom
