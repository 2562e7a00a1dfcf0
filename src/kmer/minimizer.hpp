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
#include <string_view>
#include <vector>

#include "kmer/hash.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {

inline constexpr unsigned kDefaultMinimizerLength = 11;
inline constexpr unsigned kMaxSuperKmerKmers = 256;  // n - 1 fits the one-byte length of a spooled record

// Minimizer length for k: kDefaultMinimizerLength, or k itself when smaller.
constexpr unsigned minimizer_length(unsigned k) { return std::min(k, kDefaultMinimizerLength); }

// The hash that orders m-mers (seeded apart from hash_kmer): one multiply
// (Fibonacci hashing, a bijection on 64 bits), since the scatter
// hashes every m-mer of the input, and murmur's finalizer took 10 of its 79
// instructions a base (callgrind, 150 bp reads). Minimizers stay as dense as with the finalizer
// (E. coli 100x: 449.1 MB of super-k-mers against 448.9 MB), and the
// partition is chosen by mixing the winning hash again (minimizer_place).
// Bin files record the order in their version (kBinVersion).
constexpr uint64_t minimizer_hash(uint64_t mmer) { return (mmer ^ 0x5bd1e9955bd1e995ULL) * 0x9e3779b97f4a7c15ULL; }

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
  // k in [1, kMaxK], m in [1, min(k, 31)].
  SuperKmerSplitter(unsigned k, unsigned m, bool canonical)
      : k_(k), m_(m), canonical_(canonical), mask_((uint64_t{1} << (2 * m)) - 1) {}

  unsigned k() const { return k_; }
  unsigned m() const { return m_; }

  // Calls f(begin, length, minimizer) for each super-k-mer of seq, left to
  // right: seq.substr(begin, length) holds its bases (ACGTU only, either
  // case), length in [k, k - 1 + kMaxSuperKmerKmers]. Every k-mer that
  // for_each_kmer yields on seq lies in exactly one super-k-mer, in order.
  // all_bases: the caller knows seq holds ACGTU only (else it is checked).
  template <class F>
  void split(std::string_view seq, F&& f, bool all_bases = false) {
    // One pass hashes the m-mers and finds the runs of ACGT bases (a
    // non-ACGT base cuts a run; fw and rc need no reset: an m-mer is hashed
    // once m bases of its run went in). hashes_[i] is the m-mer starting
    // at base i.
    const size_t n = seq.size();
    if (hashes_.size() < n) {
      for (auto* v : {&hashes_, &suffix_, &prefix_, &cut_minimizers_}) v->resize(n);
      cuts_.resize(n);
    }
    if (n >= k_ && (all_bases || count_non_acgt(seq) == 0)) {  // most reads: one run, no test a base
      hash_run(seq.data(), n);
      split_run(0, n, f);
      return;
    }
    const char* s = seq.data();
    uint64_t* h = hashes_.data();
    uint64_t fw = 0, rc = 0;
    const unsigned top = 2 * (m_ - 1);
    size_t start = 0;  // of the current run
    for (size_t p = 0; p < n; ++p) {
      const uint64_t b = kBaseCode[static_cast<uint8_t>(s[p])];
      if (b > 3) [[unlikely]] {
        if (p - start >= k_) split_run(start, p - start, f);
        start = p + 1;
        continue;
      }
      fw = ((fw << 2) | b) & mask_;
      rc = (rc >> 2) | ((3 - b) << top);
      if (p + 1 >= start + m_) h[p + 1 - m_] = minimizer_hash(pick_strand(fw, rc, canonical_));
    }
    if (n - start >= k_) split_run(start, n - start, f);
  }

 private:
  // hashes_[0, n - m + 1) of n >= m bases, all ACGTU: two lanes, the first
  // half of the m-mers and the second, so that their shift-and-or chains
  // (the loop's latency) overlap. Letters are coded by base_codes, no table.
  void hash_run(const char* s, size_t n) {
    const uint64_t mask = mask_;
    const bool canonical = canonical_;
    const unsigned top = 2 * (m_ - 1);
    uint64_t* h = hashes_.data();
    const size_t mmers = n - m_ + 1, half = mmers / 2;
    uint64_t fa = 0, ra = 0, fb = 0, rb = 0;
    const auto push = [&](uint64_t& fw, uint64_t& rc, char c) {
      const uint64_t b = base_codes(static_cast<uint8_t>(c));
      fw = ((fw << 2) | b) & mask;
      rc = (rc >> 2) | ((3 - b) << top);
    };
    const auto hash = [&](uint64_t fw, uint64_t rc) { return minimizer_hash(pick_strand(fw, rc, canonical)); };
    for (size_t i = 0; i + 1 < m_; ++i) {
      push(fa, ra, s[i]);
      push(fb, rb, s[half + i]);
    }
    const char* a = s + m_ - 1;
    const char* b = a + half;
    for (size_t i = 0; i < half; ++i) {
      push(fa, ra, a[i]);
      push(fb, rb, b[i]);
      h[i] = hash(fa, ra);
      h[half + i] = hash(fb, rb);
    }
    if (mmers % 2) {
      push(fb, rb, b[half]);
      h[mmers - 1] = hash(fb, rb);
    }
  }

  // One run of `len` bases, all ACGT, at offset `at` of the read, its
  // m-mers hashed. The minimum over each k-mer's w m-mer hashes comes from
  // van Herk and Gil-Werman's two passes over blocks of w hashes (the
  // smallest from each position to its block's end, and from its block's
  // start up to it): k-mer j's window is the suffix of j's block from j and
  // the prefix of the next block up to j + w - 1. Where the minimum changes
  // is written down without a branch (a cut every 11 k-mers at k = 31 is a
  // branch no predictor learns); the super-k-mers are then reported from the
  // list, and one longer than kMaxSuperKmerKmers k-mers in pieces.
  template <class F>
  void split_run(size_t at, size_t len, F& f) {
    const size_t mmers = len - m_ + 1, w = k_ - m_ + 1, kmers = len - k_ + 1;
    const uint64_t* h = hashes_.data() + at;
    uint64_t* suf = suffix_.data() + at;
    uint64_t* pre = prefix_.data() + at;
    for (size_t b = 0; b < mmers; b += w) {  // blocks [b, b + w), the last one short
      const size_t e = std::min(b + w, mmers);
      uint64_t lo_suf = ~uint64_t{0}, lo_pre = ~uint64_t{0};
      for (size_t d = 0; d < e - b; ++d) {  // both chains in one loop: their latencies overlap
        suf[e - 1 - d] = lo_suf = std::min(lo_suf, h[e - 1 - d]);
        pre[b + d] = lo_pre = std::min(lo_pre, h[b + d]);
      }
    }
    size_t* cut = cuts_.data();
    uint64_t* next = cut_minimizers_.data();
    size_t cuts = 0;
    uint64_t current = suf[0];
    for (size_t j = 1; j < kmers; ++j) {
      const uint64_t mz = std::min(suf[j], pre[j + w - 1]);
      cut[cuts] = j;
      next[cuts] = mz;
      cuts += mz != current;
      current = mz;
    }
    size_t first = 0;
    current = suf[0];
    for (size_t c = 0; c <= cuts; ++c) {
      const size_t end = c < cuts ? cut[c] : kmers;
      for (; end - first > kMaxSuperKmerKmers; first += kMaxSuperKmerKmers)
        f(at + first, kMaxSuperKmerKmers + k_ - 1, current);
      f(at + first, end - first + k_ - 1, current);
      first = end;
      current = next[c];
    }
  }

  unsigned k_, m_;
  bool canonical_;
  uint64_t mask_;
  std::vector<uint64_t> hashes_, suffix_, prefix_, cut_minimizers_;
  std::vector<size_t> cuts_;
};

}  // namespace kmerbloom
