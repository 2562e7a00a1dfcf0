// KmerSampler and estimate_kmers: exact below the cap (against a hash-map
// oracle), within the stated error on large synthetic spectra (fixed seeds),
// merge equal to one sampler on the whole stream, and the file-level estimate
// against count_kmers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <unistd.h>
#include <vector>

#include "count/counter.hpp"
#include "estimate/cardinality.hpp"
#include "kmer/hash.hpp"
#include "strings.hpp"

using namespace kmerbloom;
namespace fs = std::filesystem;

namespace {

// Distinct key i -> a distinct, well-mixed 64-bit hash (mix64 is invertible).
uint64_t key_hash(uint64_t i, uint64_t seed) { return mix64(i * 0x9e3779b97f4a7c15ULL + seed); }

// A spectrum with a known shape: a singleton-heavy head (as sequencing errors
// give) and a tail around `coverage` (as genomic k-mers give).
uint32_t multiplicity(std::mt19937_64& rng, uint32_t coverage) {
  const uint64_t r = rng() % 100;
  if (r < 60) return 1;
  if (r < 70) return 2;
  if (r < 75) return 3;
  if (r < 78) return 4 + static_cast<uint32_t>(rng() % 7);  // 4..10
  std::poisson_distribution<uint32_t> p(coverage);
  return std::max<uint32_t>(1, p(rng));
}

struct Truth {
  uint64_t total = 0;
  std::map<uint32_t, uint64_t> hist;  // count -> distinct keys
  uint64_t distinct() const {
    uint64_t n = 0;
    for (const auto& [c, m] : hist) n += m;
    return n;
  }
  uint64_t row(uint32_t c) const {
    auto it = hist.find(c);
    return it == hist.end() ? 0 : it->second;
  }
};

// Feeds n distinct keys with random multiplicities; the sample does not depend
// on the order of the stream, so each key's occurrences go in a row.
Truth feed(KmerSampler& s, uint64_t n, uint64_t seed, uint32_t coverage = 30) {
  std::mt19937_64 rng(seed);
  Truth t;
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t c = multiplicity(rng, coverage);
    const uint64_t h = key_hash(i, seed);
    for (uint32_t j = 0; j < c; ++j) s.add(h);
    t.total += c;
    ++t.hist[c];
  }
  return t;
}

double rel_err(double est, double truth) { return std::abs(est - truth) / truth; }

void expect_same(const KmerSpectrumEstimate& a, const KmerSpectrumEstimate& b) {
  EXPECT_EQ(a.kmers_total, b.kmers_total);
  EXPECT_EQ(a.distinct, b.distinct);
  EXPECT_EQ(a.sampled_keys, b.sampled_keys);
  EXPECT_EQ(a.sampling_depth, b.sampling_depth);
  EXPECT_EQ(a.sampled_f, b.sampled_f);
  EXPECT_EQ(a.f, b.f);
  EXPECT_EQ(a.above_max_row, b.above_max_row);
}

}  // namespace

TEST(CardinalitySampler, ExactBelowCapAgainstOracle) {
  KmerSampler s(16);
  std::mt19937_64 rng(7);
  std::unordered_map<uint64_t, uint64_t> oracle;
  // Includes the hashes 0 and 2^64 - 1, which the table treats specially.
  const std::vector<uint64_t> edge = {0, ~uint64_t{0}, 1, uint64_t{1} << 63};
  for (int round = 0; round < 3; ++round)
    for (uint64_t h : edge) {
      s.add(h);
      ++oracle[h];
    }
  for (int i = 0; i < 200000; ++i) {
    const uint64_t h = key_hash(rng() % 40000, 1);  // ~39,000 distinct, below 2^16
    s.add(h);
    ++oracle[h];
  }
  const KmerSpectrumEstimate e = s.estimate(12);
  ASSERT_TRUE(e.exact);
  EXPECT_EQ(e.sampling_rate, 1.0);
  EXPECT_EQ(e.relative_std_error, 0.0);
  EXPECT_EQ(e.kmers_total, 200000u + 12u);
  EXPECT_EQ(e.distinct, static_cast<double>(oracle.size()));
  EXPECT_EQ(e.sampled_keys, oracle.size());
  std::vector<double> f(13, 0);
  double above = 0;
  for (const auto& [h, c] : oracle) (c <= 12 ? f[c] : above) += 1;
  EXPECT_EQ(e.f, f);
  EXPECT_EQ(e.above_max_row, above);
  EXPECT_EQ(e.row_relative_std_error(1), 0.0);
}

TEST(CardinalitySampler, EmptyAndBadArguments) {
  KmerSampler s;
  const KmerSpectrumEstimate e = s.estimate();
  EXPECT_TRUE(e.exact);
  EXPECT_EQ(e.kmers_total, 0u);
  EXPECT_EQ(e.distinct, 0.0);
  EXPECT_EQ(e.f.size(), 11u);
  EXPECT_THROW(KmerSampler(3), std::invalid_argument);
  EXPECT_THROW(KmerSampler(31), std::invalid_argument);
  EXPECT_THROW((void)s.estimate(0), std::invalid_argument);
}

TEST(CardinalitySampler, CapIsHeldAndDepthIsTheSmallestThatFits) {
  KmerSampler s(10);
  for (uint64_t i = 0; i < 100000; ++i) {
    s.add(key_hash(i, 3));
    ASSERT_LE(s.sampled_keys(), 1024u);
  }
  s.flush();
  // The smallest depth d with at most 1024 of the hashes below 2^(64-d).
  unsigned d = 0;
  for (;; ++d) {
    uint64_t below = 0;
    for (uint64_t i = 0; i < 100000; ++i) below += key_hash(i, 3) <= (~uint64_t{0} >> d);
    if (below <= 1024) break;
  }
  EXPECT_EQ(s.depth(), d);
  EXPECT_GE(s.sampled_keys(), 300u);
  EXPECT_LE(s.bytes(), sizeof(KmerSampler) + 2048 * 12);
}

// After many in-place deletions (deepening), with occurrences interleaved, the
// sample's counts equal the oracle's for exactly the hashes below the limit.
// Tiny tables make probe runs wrap around the end often.
TEST(CardinalitySampler, SampleCountsExactAfterDeepening) {
  for (const uint32_t cap : {4u, 6u, 10u}) {
    SCOPED_TRACE("cap=2^" + std::to_string(cap));
    KmerSampler s(cap);
    std::mt19937_64 rng(cap);
    std::unordered_map<uint64_t, uint64_t> oracle;
    for (int i = 0; i < 300000; ++i) {
      const uint64_t key = rng() % 3 ? rng() % 2000 : rng() % 60000;  // some keys repeat often
      const uint64_t h = key_hash(key, 8);
      s.add(h);
      ++oracle[h];
    }
    s.flush();
    ASSERT_GT(s.depth(), 0u);
    const uint64_t limit = ~uint64_t{0} >> s.depth();
    const unsigned rows = 400;
    std::vector<uint64_t> want(rows + 1, 0);
    uint64_t keys = 0;
    for (const auto& [h, c] : oracle)
      if (h <= limit) {
        ++keys;
        if (c <= rows) ++want[c];
      }
    const KmerSpectrumEstimate e = s.estimate(rows);
    EXPECT_EQ(e.sampled_keys, keys);
    EXPECT_SAME(e.sampled_f, want);
    EXPECT_LE(keys, uint64_t{1} << cap);
  }
}

// Error bounds: every estimate within 4 standard errors (as the estimate
// itself states them) and within 3% overall. Fixed seeds, so deterministic.
TEST(CardinalityAccuracy, SyntheticSpectrumWithinStatedError) {
  struct Case {
    uint64_t distinct;
    uint32_t cap_log2;
    uint64_t seed;
  };
  for (const Case c : {Case{1000000, 16, 11}, Case{1000000, 18, 12}, Case{3000000, 17, 13}}) {
    SCOPED_TRACE("distinct=" + std::to_string(c.distinct) + " cap=2^" + std::to_string(c.cap_log2));
    KmerSampler s(c.cap_log2);
    const Truth t = feed(s, c.distinct, c.seed, 20);
    const KmerSpectrumEstimate e = s.estimate(10);
    ASSERT_FALSE(e.exact);
    EXPECT_EQ(e.kmers_total, t.total);
    EXPECT_GT(e.sampled_keys, (uint64_t{1} << c.cap_log2) / 2);
    EXPECT_LE(e.sampled_keys, uint64_t{1} << c.cap_log2);
    EXPECT_NEAR(e.relative_std_error, 1 / std::sqrt(static_cast<double>(e.sampled_keys)), 1e-3);
    const double d = static_cast<double>(t.distinct());
    EXPECT_LT(rel_err(e.distinct, d), 4 * e.relative_std_error);
    EXPECT_LT(rel_err(e.distinct, d), 0.03);
    for (unsigned i = 1; i <= 3; ++i) {
      const double truth = static_cast<double>(t.row(i));
      EXPECT_LT(rel_err(e.f[i], truth), 4 * e.row_relative_std_error(i)) << "row " << i;
      EXPECT_LT(rel_err(e.f[i], truth), 0.03) << "row " << i;
    }
  }
}

TEST(CardinalityAccuracy, TenMillionDistinctDefaultCap) {
  KmerSampler s;  // 2^20
  const uint64_t n = 10000000;
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t h = key_hash(i, 99);
    const uint32_t c = i % 4 == 0 ? 2 : 1;  // f1 = 7.5 M, f2 = 2.5 M
    for (uint32_t j = 0; j < c; ++j) s.add(h);
    total += c;
  }
  const KmerSpectrumEstimate e = s.estimate(2);
  EXPECT_EQ(e.kmers_total, total);
  EXPECT_LT(e.relative_std_error, 0.0015);
  EXPECT_LT(rel_err(e.distinct, 1e7), 4 * e.relative_std_error);
  EXPECT_LT(rel_err(e.f[1], 7.5e6), 4 * e.row_relative_std_error(1));
  EXPECT_LT(rel_err(e.f[2], 2.5e6), 4 * e.row_relative_std_error(2));
  EXPECT_LT(rel_err(e.f[1], 7.5e6), 0.01);
}

// Each occurrence goes to a random one of four samplers (as batches go to
// threads), so a key's count is split; the merge must equal one sampler.
TEST(CardinalityMerge, PerThreadSamplersEqualOneSampler) {
  for (const uint32_t cap : {10u, 14u}) {
    SCOPED_TRACE("cap=2^" + std::to_string(cap));
    std::mt19937_64 rng(5);
    KmerSampler one(cap);
    std::vector<KmerSampler> parts(4, KmerSampler(cap));
    for (uint64_t i = 0; i < 300000; ++i) {
      const uint32_t c = multiplicity(rng, 15);
      const uint64_t h = key_hash(i, 21);
      for (uint32_t j = 0; j < c; ++j) {
        one.add(h);
        // Skewed split: part 0 sees most keys, so the parts end at different depths.
        parts[rng() % 8 < 5 ? 0 : 1 + rng() % 3].add(h);
      }
    }
    KmerSampler merged = parts[3];
    merged.merge(parts[1]);
    merged.merge(parts[0]);
    merged.merge(parts[2]);
    expect_same(merged.estimate(20), one.estimate(20));

    KmerSampler other_order = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) other_order.merge(parts[i]);
    expect_same(other_order.estimate(20), one.estimate(20));
  }
}

TEST(CardinalityMerge, ExactSamplersAndSelf) {
  KmerSampler a, b, both;
  for (uint64_t i = 0; i < 1000; ++i) {
    a.add(key_hash(i, 1));
    b.add(key_hash(i + 500, 1));
    both.add(key_hash(i, 1));
    both.add(key_hash(i + 500, 1));
  }
  a.merge(b);
  expect_same(a.estimate(), both.estimate());
  EXPECT_EQ(a.estimate().f[2], 500.0);

  KmerSampler twice = both;
  twice.merge(twice);
  const KmerSpectrumEstimate e = twice.estimate();
  EXPECT_EQ(e.kmers_total, 4000u);
  EXPECT_EQ(e.distinct, 1500.0);
  EXPECT_EQ(e.f[4], 500.0);
  EXPECT_EQ(e.f[2], 1000.0);
}

// estimate_kmers on a FASTA file against count_kmers: exact below the cap,
// and within 3% once sampling (tiny cap); both k-mer widths.
TEST(CardinalityFile, AgreesWithCount) {
  const fs::path dir = fs::temp_directory_path() / ("kb_card_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "reads.fa").string();
  {
    std::mt19937_64 rng(17);
    std::string genome(50000, 'A');
    for (auto& ch : genome) ch = "ACGT"[rng() % 4];
    std::ofstream out(path);
    for (int i = 0; i < 4000; ++i) {
      std::string r = genome.substr(rng() % (genome.size() - 150), 150);
      if (rng() % 3 == 0) r[rng() % r.size()] = "ACGTN"[rng() % 5];
      out << ">r" << i << '\n' << r << '\n';
    }
  }
  for (const unsigned k : {21u, 31u, 45u}) {
    SCOPED_TRACE("k=" + std::to_string(k));
    CountOptions copt;
    copt.inputs = {path};
    copt.k = k;
    copt.min_count = 1;
    copt.histo_max = 10;
    const CountResult truth = count_kmers(copt, [](std::string_view, uint64_t) {});

    EstimateOptions eopt;
    eopt.inputs = {path};
    eopt.k = k;
    eopt.threads = 3;
    eopt.batch_bases = 20000;  // many batches, so all three samplers take part
    EstimateResult r = estimate_kmers(eopt);
    EXPECT_TRUE(r.spectrum.exact);
    EXPECT_EQ(r.input.reads, truth.input.reads);
    EXPECT_EQ(r.input.kmers, truth.input.kmers);
    EXPECT_EQ(r.spectrum.distinct, static_cast<double>(truth.distinct));
    for (unsigned i = 1; i <= 10; ++i) EXPECT_EQ(r.spectrum.f[i], static_cast<double>(truth.histogram[i])) << i;

    eopt.sample_log2 = 15;  // ~90,000 distinct: sampled at 1 in 4
    r = estimate_kmers(eopt);
    EXPECT_FALSE(r.spectrum.exact);
    EXPECT_LT(rel_err(r.spectrum.distinct, static_cast<double>(truth.distinct)), 0.03);
    EXPECT_LT(rel_err(r.spectrum.f[1], static_cast<double>(truth.singletons)), 0.03);
  }
  EstimateOptions bad;
  EXPECT_THROW(estimate_kmers(bad), std::invalid_argument);
  bad.inputs = {path};
  bad.sample_log2 = 40;
  EXPECT_THROW(estimate_kmers(bad), std::invalid_argument);
  fs::remove_all(dir);
}
