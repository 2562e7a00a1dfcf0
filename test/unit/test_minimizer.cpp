// Super-k-mers: every k-mer once, in order, with the minimizer of a brute
// force scan; canonical k-mers meet the same minimizer on either strand; the
// hash order spreads k-mers evenly over the partitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/machine.hpp"
#include "kmer/kmer.hpp"
#include "kmer/minimizer.hpp"
#include "strings.hpp"

using namespace kmerbloom;

namespace {

std::string random_seq(std::mt19937_64& rng, size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGT"[rng() % 4];
  return s;
}

// Minimizer of the k-mer at s[i, i+k), by scanning all its m-mers.
uint64_t brute_minimizer(const std::string& s, size_t i, unsigned k, unsigned m, bool canonical) {
  uint64_t best = ~uint64_t{0};
  for (size_t j = i; j + m <= i + k; ++j) {
    const std::string mm = s.substr(j, m);
    const std::string key = canonical ? std::min(mm, kbtest::revcomp(mm)) : mm;
    best = std::min<uint64_t>(best, minimizer_hash(static_cast<uint32_t>(encode_kmer<uint64_t>(key))));
  }
  return best;
}

struct Piece {
  size_t begin, length;
  uint64_t minimizer;
};

std::vector<Piece> split(const std::string& s, unsigned k, unsigned m, bool canonical) {
  SuperKmerSplitter sp(k, m, canonical);
  std::vector<Piece> out;
  sp.split(s, [&](size_t b, size_t len, uint64_t mz) { out.push_back({b, len, mz}); });
  return out;
}

}  // namespace

TEST(Minimizer, EveryKmerOnceInOrderWithItsMinimizer) {
  std::mt19937_64 rng(7);
  for (unsigned k : {1u, 3u, 11u, 12u, 21u, 31u, 40u, 63u}) {
    const unsigned m = minimizer_length(k);
    for (bool canonical : {true, false}) {
      std::string s = random_seq(rng, 700);
      s[100] = 'N';
      s[101] = 'x';
      s[400] = 'n';
      const auto pieces = split(s, k, m, canonical);
      // Rebuild the k-mers from the pieces: the same sequence as for_each_kmer's.
      std::vector<uint64_t> want, got;
      for_each_kmer(std::string_view(s), KmerShape<u128>(k, false), [&](u128 x) { want.push_back(uint64_t(x) ^ uint64_t(x >> 64) * 31); });
      for (const Piece& p : pieces) {
        ASSERT_GE(p.length, k);
        ASSERT_LE(p.length, k - 1 + kMaxSuperKmerKmers);
        for (size_t i = p.begin; i + k <= p.begin + p.length; ++i) {
          EXPECT_EQ(brute_minimizer(s, i, k, m, canonical), p.minimizer) << "k=" << k << " at " << i;
          const u128 x = encode_kmer<u128>(s.substr(i, k));
          got.push_back(uint64_t(x) ^ uint64_t(x >> 64) * 31);
        }
      }
      EXPECT_SAME(got, want) << "k=" << k;
    }
  }
}

// A read of ACGTU only (either case) takes the splitter's fast path, one
// run without a check of its letters, whose codes come from their bits: the same
// super-k-mers as the general path, which a trailing N forces, and as a brute
// force scan, at every length from k to past two windows and at both parities
// of the m-mer count.
TEST(Minimizer, CleanReadsSplitAsTheGeneralPathDoes) {
  std::mt19937_64 rng(11);
  for (unsigned k : {1u, 2u, 3u, 11u, 12u, 21u, 31u, 40u, 63u, 140u, 255u}) {
    const unsigned m = minimizer_length(k);
    for (bool canonical : {true, false}) {
      for (size_t n = k; n < k + 2 * (k - m + 1) + 4; ++n) {
        std::string s = random_seq(rng, n);
        for (char& c : s) {
          const uint64_t r = rng() % 8;
          if (r == 0) c = static_cast<char>(c + 32);  // lower case
          else if (r == 1 && c == 'T') c = 'U';
          else if (r == 2 && c == 'T') c = 'u';
        }
        const auto fast = split(s, k, m, canonical), general = split(s + "N", k, m, canonical);
        std::string upper = s;
        for (char& c : upper) c = c == 'u' || c == 'U' ? 'T' : static_cast<char>(std::toupper(c));
        ASSERT_EQ(fast.size(), general.size()) << "k=" << k << " n=" << n;
        size_t kmers = 0;
        for (size_t i = 0; i < fast.size(); ++i) {
          EXPECT_EQ(fast[i].begin, general[i].begin);
          EXPECT_EQ(fast[i].length, general[i].length);
          EXPECT_EQ(fast[i].minimizer, general[i].minimizer);
          for (size_t j = fast[i].begin; j + k <= fast[i].begin + fast[i].length; ++j, ++kmers) {
            EXPECT_EQ(brute_minimizer(upper, j, k, m, canonical), fast[i].minimizer) << "k=" << k << " n=" << n;
          }
        }
        EXPECT_EQ(kmers, n - k + 1) << "k=" << k << " n=" << n;
      }
    }
  }
}

TEST(Minimizer, MaximalRunsAndLengthCap) {
  std::mt19937_64 rng(8);
  const std::string s = random_seq(rng, 5000);
  const auto pieces = split(s, 31, 11, true);
  for (size_t i = 1; i < pieces.size(); ++i) {
    // Adjacent pieces have different minimizers unless the cap cut them.
    ASSERT_EQ(pieces[i].begin, pieces[i - 1].begin + pieces[i - 1].length - 30);
    EXPECT_TRUE(pieces[i].minimizer != pieces[i - 1].minimizer || pieces[i - 1].length == 30 + kMaxSuperKmerKmers);
  }
  // A homopolymer keeps one minimizer: only the cap cuts it.
  const auto poly = split(std::string(1000, 'A'), 31, 11, true);
  ASSERT_GT(poly.size(), 1u);
  EXPECT_EQ(poly[0].length, 30 + kMaxSuperKmerKmers);
  EXPECT_EQ(poly[0].minimizer, poly[1].minimizer);
}

TEST(Minimizer, BothStrandsGiveTheSamePartition) {
  std::mt19937_64 rng(9);
  const unsigned k = 31, m = 11;
  const std::string s = random_seq(rng, 2000), r = kbtest::revcomp(s);
  std::map<std::string, uint64_t> fw, rc;
  auto collect = [&](const std::string& seq, std::map<std::string, uint64_t>& out) {
    for (const Piece& p : split(seq, k, m, true))
      for (size_t i = p.begin; i + k <= p.begin + p.length; ++i) {
        const std::string km = seq.substr(i, k);
        out[std::min(km, kbtest::revcomp(km))] = p.minimizer;
      }
  };
  collect(s, fw);
  collect(r, rc);
  EXPECT_EQ(fw, rc);
}

// Hash order: partitions get even shares of the k-mers (random sequence,
// 64 partitions: each within 15% of the mean), and low-complexity sequence
// does not pile up in partition 0 as lexicographic order would put poly-A.
TEST(Minimizer, PartitionsAreEven) {
  std::mt19937_64 rng(10);
  const uint32_t parts = 64;
  std::vector<uint64_t> kmers(parts, 0);
  SuperKmerSplitter sp(31, 11, true);
  for (int i = 0; i < 2000; ++i) {
    const std::string s = random_seq(rng, 1000);
    sp.split(s, [&](size_t, size_t len, uint64_t mz) { kmers[minimizer_partition(mz, parts)] += len - 30; });
  }
  uint64_t total = 0;
  for (const uint64_t n : kmers) total += n;
  const double mean = static_cast<double>(total) / parts;
  for (uint32_t p = 0; p < parts; ++p) {
    EXPECT_GT(static_cast<double>(kmers[p]), 0.85 * mean) << "partition " << p;
    EXPECT_LT(static_cast<double>(kmers[p]), 1.15 * mean) << "partition " << p;
  }
}

// A random order of the m-mers gives a random sequence one minimizer change
// (one super-k-mer) every (w + 1) / 2 k-mers, w = k - m + 1 the m-mers a
// k-mer holds (Schleimer et al. 2003): the 32-bit hash orders m-mers as a
// random order would. 2 M random bases a k, within 3% of 2 / (w + 1).
TEST(Minimizer, DensityIsThatOfARandomOrder) {
  std::mt19937_64 rng(12);
  for (unsigned k : {21u, 31u, 63u}) {
    const unsigned m = minimizer_length(k), w = k - m + 1;
    SuperKmerSplitter sp(k, m, true);
    uint64_t pieces = 0, kmers = 0;
    for (int r = 0; r < 200; ++r) {
      const std::string s = random_seq(rng, 10000);
      sp.split(s, [&](size_t, size_t len, uint64_t) {
        ++pieces;
        kmers += len - k + 1;
      });
    }
    const double density = static_cast<double>(pieces) / static_cast<double>(kmers), want = 2.0 / (w + 1);
    EXPECT_NEAR(density, want, 0.03 * want) << "k=" << k;
  }
}

// The scan is compiled twice, for the baseline x86-64 and for AVX2 (chosen
// at run time); both must give every window the brute force gives, for every
// minimizer length and strand mode, runs of one k-mer to long ones. On a CPU
// without AVX2 both functions are the baseline one, and the check still
// holds them to the brute force.
TEST(Minimizer, BaselineAndVectorScansAgreeWithTheBruteForce) {
  const CpuFeatures baseline, native = read_cpu_features(nullptr);  // the CPU's own, whatever KMERBLOOM_CPU says
  const detail::ScanFn scans[] = {detail::minimizer_scan_for(baseline), detail::minimizer_scan_for(native)};
  EXPECT_EQ(scans[0] != scans[1], native.avx2) << "one function for each target the CPU runs";
  std::mt19937_64 rng(5);
  for (unsigned m = 1; m <= kDefaultMinimizerLength; ++m) {
    for (unsigned k : {m, m + 1, 31u, 64u, 255u}) {
      if (k < m) continue;
      for (bool canonical : {false, true}) {
        const size_t n = k + rng() % 300;
        const std::string s = random_seq(rng, n);
        const size_t stride = n + detail::kScanPad;
        for (const detail::ScanFn scan : scans) {
          std::vector<uint32_t> scratch(4 * stride), window(stride);
          scan(s.data(), n, k, m, canonical, stride, scratch.data(), window.data());
          for (size_t j = 0; j + k <= n; j += 1 + j / 8)
            ASSERT_EQ(window[j], brute_minimizer(s, j, k, m, canonical))
                << "m=" << m << " k=" << k << " canonical=" << canonical << " j=" << j
                << (scan == scans[0] ? " (baseline)" : " (native)");
        }
      }
    }
  }
}
