// Tests of BlockedBloom and ScalableBloom.
//
// Keys are mix64(i) for disjoint ranges of i, so inserted and queried keys are
// distinct by construction and every run is deterministic. Sample sizes (and
// the tolerances derived from them) are given next to each test. Under a
// sanitizer (TSan / ASan, 5-20x slower) the largest sizes are scaled down.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bloom/bloom.hpp"
#include "kmer/hash.hpp"

namespace kmerbloom {
namespace {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kScale = 8;  // divide the big sample sizes
#else
constexpr uint64_t kScale = 1;
#endif

constexpr uint64_t kQueryBase = uint64_t{1} << 63;  // query ids never collide with insert ids

inline uint64_t key(uint64_t i) { return mix64(i); }

// Binomial standard deviation of a rate p measured on q trials.
double binom_sd(double p, double q) { return std::sqrt(p * (1 - p) / q); }

// ------------------------------------------------------------- no false negatives

// 4 M keys (0.5 M under sanitizers) into a 1% filter sized for them.
TEST(BloomNoFalseNegatives, SingleThread) {
  const uint64_t n = 4'000'000 / kScale;
  BlockedBloom f = BlockedBloom::for_capacity(n, 0.01);
  uint64_t already = 0;
  for (uint64_t i = 0; i < n; ++i) already += f.test_and_set(key(i)) ? 1 : 0;
  // Keys reported present on first insertion are false positives: rate < p.
  EXPECT_LT(static_cast<double>(already) / static_cast<double>(n), 0.01);
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(f.contains(key(i))) << i;
    ASSERT_TRUE(f.test_and_set(key(i))) << i;  // a repeat is always reported present
  }
}

// The unrolled masks (a case per common bit count) set the same bits as the
// generic walk over the positions, for every count a filter may have: the
// files written before them, and the false-positive model, depend on it.
TEST(BloomBlockMask, UnrolledMasksEqualThePositions) {
  for (unsigned k = 1; k <= BlockedBloom::kMaxHashes; ++k) {
    for (uint64_t i = 0; i < 2000; ++i) {
      const uint64_t h = mix64(i * 7919 + k);
      uint64_t want[8] = {}, got[8] = {};
      detail::all_positions(h, k, [&](unsigned pos) {
        want[pos >> 6] |= uint64_t{1} << (pos & 63);
        return true;
      });
      detail::block_mask(h, k, got);
      ASSERT_TRUE(std::equal(want, want + 8, got)) << "k = " << k << ", key " << i;
    }
  }
}

// 4 threads; each inserts 1 M own keys plus the same 0.5 M shared keys
// (1/8 of that under sanitizers), then every key must be found.
TEST(BloomNoFalseNegatives, ConcurrentDisjointAndOverlapping) {
  const uint64_t own = 1'000'000 / kScale;
  const uint64_t shared = 500'000 / kScale;
  const unsigned threads = 4;
  BlockedBloom f = BlockedBloom::for_capacity(threads * own + shared, 0.01);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&f, t, own, shared] {
      const uint64_t base = (t + 1) * own;
      for (uint64_t i = 0; i < own; ++i) {
        f.insert(key(base + i));
        if (i < shared) f.test_and_set(key(i));  // ids [0, shared) are common
      }
    });
  }
  for (auto& th : pool) th.join();
  for (uint64_t i = 0; i < shared; ++i) ASSERT_TRUE(f.contains(key(i))) << i;
  for (uint64_t i = own; i < (threads + 1) * own; ++i) ASSERT_TRUE(f.contains(key(i))) << i;
}

// ------------------------------------------------------------- sizing and FPR

TEST(BloomSizing, ShapeIsMinimalAndMeetsTarget) {
  for (double p : {0.1, 0.01, 0.001, 1e-4}) {
    for (uint64_t n : {uint64_t{1}, uint64_t{1000}, uint64_t{1'000'000}}) {
      const auto s = BlockedBloom::shape_for_capacity(n, p);
      EXPECT_LE(BlockedBloom::expected_fpr(n, s.blocks, s.hashes), p) << n << " " << p;
      if (s.blocks > 1) {
        for (unsigned k = 1; k <= BlockedBloom::kMaxHashes; ++k)
          EXPECT_GT(BlockedBloom::expected_fpr(n, s.blocks - 1, k), p) << n << " " << p << " k=" << k;
      }
      // Blocking costs bits, but not absurdly many: within 25% of the classic size.
      const double classic = -static_cast<double>(n) * std::log(p) / (std::log(2) * std::log(2));
      if (n >= 1000) {
        EXPECT_LT(static_cast<double>(s.blocks * 512), 1.25 * classic + 512) << n << " " << p;
      }
    }
  }
  const BlockedBloom f = BlockedBloom::for_capacity(1000, 0.01);
  EXPECT_EQ(f.bits(), f.blocks() * 512);
  EXPECT_EQ(f.bytes(), f.blocks() * 64);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f.words().data()) % 64, 0U);
  EXPECT_THROW(BlockedBloom::for_capacity(10, 0.0), std::invalid_argument);
  EXPECT_THROW(BlockedBloom::for_capacity(10, 1.0), std::invalid_argument);
  EXPECT_THROW(BlockedBloom(0, 3), std::invalid_argument);
  EXPECT_THROW(BlockedBloom(4, 0), std::invalid_argument);
  EXPECT_THROW(BlockedBloom(4, BlockedBloom::kMaxHashes + 1), std::invalid_argument);
}

struct FprCase {
  uint64_t n;
  double p;
};

class BloomFpr : public ::testing::TestWithParam<FprCase> {};

// For each (n, p): R = max(1, 1e6 / n) independent filters of n keys (so small
// filters are averaged over >= 1e6 keys and >= ~1e4 blocks), Q = 2e6 queries
// of never-inserted keys spread over them. The measured rate m has two sources
// of spread around the model's prediction e: query sampling, binomial
// sd_q = sqrt(e(1-e)/Q), and the random fill of the filters, sd_s =
// sd(per-block FPR) / sqrt(blocks in all filters). Checks:
//   |m - e| <= 4 sqrt(sd_q^2 + sd_s^2) + 2% e   (model vs reality)
//   m <= p (1 + 4 sd/p + 2%)                     (sizing meets the target)
//   |m - f| <= 4 sqrt(f(1-f)/Q) + 1% f           where f = estimated_fpr() of
//                                                the actual filters (exact given
//                                                their fill: tests the hashing)
TEST_P(BloomFpr, MatchesModelAndTarget) {
  const auto [n_full, p] = GetParam();
  const uint64_t n = n_full >= 10'000'000 ? n_full / kScale : n_full;
  const auto shape = BlockedBloom::shape_for_capacity(n, p);
  const double expected = BlockedBloom::expected_fpr(n, shape.blocks, shape.hashes);
  const uint64_t reps = std::max<uint64_t>(1, 1'000'000 / n);
  const uint64_t queries_per = std::max<uint64_t>(1, 2'000'000 / kScale / reps);
  const double q = static_cast<double>(queries_per * reps);
  std::vector<double> block_fpr;
  double power[513];
  for (unsigned x = 0; x <= 512; ++x) power[x] = std::pow(x / 512.0, shape.hashes);
  uint64_t hits = 0;
  double state_sum = 0;
  for (uint64_t r = 0; r < reps; ++r) {
    BlockedBloom f(shape.blocks, shape.hashes);
    for (uint64_t i = 0; i < n; ++i) f.insert(key(r * n + i));
    for (uint64_t i = 0; i < queries_per; ++i) hits += f.contains(key(kQueryBase + r * queries_per + i)) ? 1 : 0;
    state_sum += f.estimated_fpr();
    const auto w = f.words();
    for (size_t b = 0; b < w.size(); b += 8) {
      int set = 0;
      for (size_t j = 0; j < 8; ++j) set += std::popcount(w[b + j]);
      block_fpr.push_back(power[set]);
    }
  }
  const double measured = static_cast<double>(hits) / q;
  const double realized = state_sum / static_cast<double>(reps);
  double mean = 0, var = 0;
  for (double v : block_fpr) mean += v;
  mean /= static_cast<double>(block_fpr.size());
  for (double v : block_fpr) var += (v - mean) * (v - mean);
  var /= static_cast<double>(block_fpr.size());
  const double sd_q = binom_sd(expected, q);
  const double sd_s = std::sqrt(var / static_cast<double>(block_fpr.size()));
  const double sd = std::sqrt(sd_q * sd_q + sd_s * sd_s);
  std::printf("n=%-9llu p=%-6g k=%-2u bits/key=%6.3f reps=%-4llu expected=%.5g measured=%.5g realized=%.5g sd=%.2g\n",
              static_cast<unsigned long long>(n), p, shape.hashes,
              static_cast<double>(shape.blocks * 512) / static_cast<double>(n),
              static_cast<unsigned long long>(reps), expected, measured, realized, sd);
  EXPECT_NEAR(measured, expected, 4 * sd + 0.02 * expected);
  EXPECT_LE(measured, p * (1 + 4 * sd / p + 0.02));
  EXPECT_NEAR(measured, realized, 4 * binom_sd(realized, q) + 0.01 * realized);
}

std::vector<FprCase> fpr_cases() {
  std::vector<FprCase> cases;
  for (uint64_t n : {1'000ULL, 10'000ULL, 100'000ULL, 1'000'000ULL, 10'000'000ULL})
    for (double p : {0.1, 0.01, 0.001}) cases.push_back({n, p});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(BloomGrid, BloomFpr, ::testing::ValuesIn(fpr_cases()),
                         [](const ::testing::TestParamInfo<FprCase>& tpi) {
                           return "n" + std::to_string(tpi.param.n) + "_p" +
                                  std::to_string(static_cast<int>(std::lround(-std::log10(tpi.param.p))));
                         });

// ------------------------------------------------------------- estimates

// Filters sized for n at 1% and filled with n keys (about half the bits set).
// The blocked estimator must be within 2% (it is unbiased; its sd is ~1% at
// n = 1e4 and ~0.03% at 1e7); the classic -(m/k) ln(1 - X/m) reads about
// (k-1)/1024 low, which the test shows rather than asserts beyond sign.
TEST(BloomEstimate, KeysWithinTwoPercent) {
  for (uint64_t n : {10'000ULL, 100'000ULL, 1'000'000ULL, 10'000'000ULL / kScale}) {
    BlockedBloom f = BlockedBloom::for_capacity(n, 0.01);
    for (uint64_t i = 0; i < n; ++i) f.insert(key(i));
    const double est = f.estimated_keys();
    const double m = static_cast<double>(f.bits());
    const double x = static_cast<double>(f.bits_set());
    const double classic = -(m / f.hashes()) * std::log(1 - x / m);
    const double nd = static_cast<double>(n);
    std::printf("n=%-9llu k=%u fill=%.3f blocked=%+.3f%% classic=%+.3f%%\n", static_cast<unsigned long long>(n),
                f.hashes(), x / m, 100 * (est - nd) / nd, 100 * (classic - nd) / nd);
    EXPECT_NEAR(est, nd, 0.02 * nd) << n;
    if (n >= 1'000'000) {
      EXPECT_LT(classic, est) << n;
    }
  }
  BlockedBloom empty(10, 4);
  EXPECT_EQ(empty.estimated_keys(), 0.0);
  EXPECT_EQ(empty.estimated_fpr(), 0.0);
  for (uint64_t& w : empty.words()) w = ~uint64_t{0};
  EXPECT_TRUE(std::isinf(empty.estimated_keys()));
  EXPECT_EQ(empty.estimated_fpr(), 1.0);
}

// ------------------------------------------------------------- set operations

TEST(BloomSetOps, UnionAndIntersection) {
  const uint64_t n = 50'000;
  BlockedBloom a = BlockedBloom::for_capacity(2 * n, 0.01);
  BlockedBloom b(a.blocks(), a.hashes());
  for (uint64_t i = 0; i < n; ++i) a.insert(key(i));           // A = [0, n)
  for (uint64_t i = n / 2; i < n + n / 2; ++i) b.insert(key(i));  // B = [n/2, 3n/2)
  BlockedBloom u = a;
  u.union_with(b);
  BlockedBloom x = a;
  x.intersect_with(b);
  for (size_t i = 0; i < a.words().size(); ++i) {
    ASSERT_EQ(u.words()[i], a.words()[i] | b.words()[i]);
    ASSERT_EQ(x.words()[i], a.words()[i] & b.words()[i]);
  }
  for (uint64_t i = 0; i < n + n / 2; ++i) ASSERT_TRUE(u.contains(key(i))) << i;
  for (uint64_t i = n / 2; i < n; ++i) ASSERT_TRUE(x.contains(key(i))) << i;
  // Keys only in A are mostly gone from the intersection.
  uint64_t kept = 0;
  for (uint64_t i = 0; i < n / 2; ++i) kept += x.contains(key(i)) ? 1 : 0;
  EXPECT_LT(kept, n / 4);
  EXPECT_GE(u.bits_set(), std::max(a.bits_set(), b.bits_set()));
  EXPECT_LE(x.bits_set(), std::min(a.bits_set(), b.bits_set()));
}

TEST(BloomSetOps, ShapeMismatchNamesTheParameter) {
  BlockedBloom a(100, 7);
  const BlockedBloom other_blocks(101, 7);
  const BlockedBloom other_hashes(100, 6);
  try {
    a.union_with(other_blocks);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("block count"), std::string::npos) << e.what();
  }
  try {
    a.intersect_with(other_hashes);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("hash count"), std::string::npos) << e.what();
  }
}

TEST(BloomCopy, CopyAndMoveKeepContents) {
  BlockedBloom a = BlockedBloom::for_capacity(1000, 0.01);
  for (uint64_t i = 0; i < 1000; ++i) a.insert(key(i));
  BlockedBloom b = a;
  EXPECT_TRUE(std::equal(a.words().begin(), a.words().end(), b.words().begin()));
  EXPECT_NE(a.words().data(), b.words().data());
  BlockedBloom c = std::move(a);
  EXPECT_EQ(a.blocks(), 0U);
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(c.contains(key(i)));
  c.clear();
  EXPECT_EQ(c.bits_set(), 0U);
}

// ------------------------------------------------------------- ScalableBloom

TEST(ScalableBloomParams, ValidateNamesTheField) {
  const auto message = [](ScalableBloomParams p) -> std::string {
    try {
      p.validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  ScalableBloomParams p;
  EXPECT_EQ(message(p), "");
  p.initial_capacity = 0;
  EXPECT_NE(message(p).find("initial_capacity"), std::string::npos);
  p = {};
  p.fpr = 1.5;
  EXPECT_NE(message(p).find("fpr"), std::string::npos);
  p = {};
  p.growth = 1.0;
  EXPECT_NE(message(p).find("growth"), std::string::npos);
  p = {};
  p.tightening = 1.0;
  EXPECT_NE(message(p).find("tightening"), std::string::npos);
  EXPECT_THROW(ScalableBloom{p}, std::invalid_argument);
  p = {};
  p.initial_capacity = 100;
  EXPECT_EQ(p.layer_capacity(0), 100U);
  EXPECT_EQ(p.layer_capacity(3), 800U);
  EXPECT_NEAR(p.layer_fpr(2), 0.01 * 0.15 * 0.85 * 0.85, 1e-15);
  p.linear_growth = true;
  EXPECT_EQ(p.layer_capacity(3), 600U);
}

TEST(ScalableBloomGrowth, LayersAreAddedLazilyAtCapacity) {
  ScalableBloomParams p;
  p.initial_capacity = 1000;
  ScalableBloom f(p);
  uint64_t i = 0;
  while (f.layer_info(0, false).keys < 1000) f.insert(key(i++));
  EXPECT_EQ(f.layers(), 1U);  // exactly full: no empty layer allocated yet
  for (uint64_t j = 0; j < i; ++j) EXPECT_TRUE(f.test_and_set(key(j)));  // repeats do not grow it
  EXPECT_EQ(f.layers(), 1U);
  uint64_t absent = kQueryBase;
  while (f.contains(key(absent))) ++absent;  // skip false positives
  EXPECT_FALSE(f.test_and_set(key(absent)));
  EXPECT_EQ(f.layers(), 2U);
  EXPECT_TRUE(f.contains(key(absent)));
  EXPECT_EQ(f.layer_info(1, false).keys, 1U);
  EXPECT_EQ(f.layer_info(1, false).capacity, 2000U);
  EXPECT_EQ(f.bytes(), f.layer(0).bytes() + f.layer(1).bytes());
  EXPECT_THROW((void)f.layer(2), std::out_of_range);
}

// The one-thread path answers as the shared one, key by key, and leaves the
// same layers: the same words, the same key counts.
TEST(ScalableBloomExclusive, AnswersAndBitsEqualTheSharedPath) {
  ScalableBloomParams p;
  p.initial_capacity = 500;
  p.fpr = 0.05;
  ScalableBloom shared(p), mine(p);
  uint64_t fresh = 0;
  for (uint64_t i = 0; i < 20000; ++i) {
    const uint64_t h = key(i % 7000 + (i / 7000) * 3000);  // repeats and new keys
    const bool a = shared.test_and_set(h);
    ASSERT_EQ(mine.test_and_set_exclusive(h), a) << i;
    fresh += a ? 0 : 1;
  }
  ASSERT_GT(shared.layers(), 3U);
  ASSERT_EQ(mine.layers(), shared.layers());
  EXPECT_EQ(mine.keys_inserted(), fresh);
  for (size_t l = 0; l < shared.layers(); ++l) {
    EXPECT_EQ(mine.layer_info(l, false).keys, shared.layer_info(l, false).keys) << l;
    const auto a = shared.layer(l).words(), b = mine.layer(l).words();
    ASSERT_EQ(a.size(), b.size());
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << l;
  }
}

// The one-thread test-and-set of a block (each bit tested and set as its
// position comes out of the hash) answers as the shared path and sets the
// same words, for every hash count a filter may have: those written out
// (4 to 10) and the general loop.
TEST(BlockedBloomExclusive, EveryHashCountAnswersAndSetsAsTheSharedPath) {
  for (unsigned hashes = 1; hashes <= BlockedBloom::kMaxHashes; ++hashes) {
    BlockedBloom shared(64, hashes), mine(64, hashes);  // small: the blocks fill and keys repeat
    for (uint64_t i = 0; i < 3000; ++i) {
      const uint64_t h = key(i % 1700);
      ASSERT_EQ(mine.test_and_set_exclusive(h), shared.test_and_set(h)) << hashes << " " << i;
    }
    const auto a = shared.words(), b = mine.words();
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << hashes;
  }
}

// Concurrent growth from a tiny first layer: 4 threads each insert 250 k own
// keys and the same 100 k shared keys (1/8 under sanitizers) into a chain that
// starts at 1,000 keys and grows to ~10 layers while they run.
TEST(ScalableBloomNoFalseNegatives, ConcurrentGrowth) {
  const uint64_t own = 250'000 / kScale;
  const uint64_t shared = 100'000 / kScale;
  const unsigned threads = 4;
  ScalableBloomParams p;
  p.initial_capacity = 1000;
  p.fpr = 0.01;
  ScalableBloom f(p);
  std::vector<std::thread> pool;
  std::vector<uint64_t> fresh(threads, 0), fresh_own(threads, 0);
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&f, &fresh, &fresh_own, t, own, shared] {
      const uint64_t base = (t + 1) * own;
      for (uint64_t i = 0; i < own; ++i) {
        const uint64_t mine = f.test_and_set(key(base + i)) ? 0 : 1;
        fresh[t] += mine;
        fresh_own[t] += mine;
        if (i < shared) fresh[t] += f.test_and_set(key(i)) ? 0 : 1;
        if (i % 4096 == 0) (void)f.contains(key(base));  // readers during growth
      }
    });
  }
  for (auto& th : pool) th.join();
  const uint64_t distinct = threads * own + shared;
  for (uint64_t i = 0; i < shared; ++i) ASSERT_TRUE(f.contains(key(i))) << i;
  for (uint64_t i = own; i < (threads + 1) * own; ++i) ASSERT_TRUE(f.contains(key(i))) << i;
  EXPECT_GT(f.layers(), 5U);
  uint64_t counted = 0;
  for (size_t l = 0; l < f.layers(); ++l) {
    const BloomLayerInfo info = f.layer_info(l, false);
    EXPECT_LE(info.keys, info.capacity + threads) << "layer " << l;  // overshoot <= racing threads
    counted += info.keys;
  }
  EXPECT_EQ(counted, f.keys_inserted());
  uint64_t fresh_total = 0;
  for (uint64_t v : fresh) fresh_total += v;
  EXPECT_EQ(fresh_total, counted);
  // A thread's own keys are fresh once, less the false positives (< 1%);
  // a shared key is fresh at least once and at most once a thread (threads
  // that test it at the same instant, as often as the scheduler lets them:
  // more under a sanitizer's slowdown).
  uint64_t own_total = 0;
  for (uint64_t v : fresh_own) own_total += v;
  EXPECT_GT(static_cast<double>(own_total), 0.98 * static_cast<double>(threads * own));
  EXPECT_LE(own_total, threads * own);
  const uint64_t shared_fresh = counted - own_total;
  EXPECT_GT(static_cast<double>(shared_fresh), 0.98 * static_cast<double>(shared));
  EXPECT_LE(shared_fresh, threads * shared);
  EXPECT_GT(static_cast<double>(counted), 0.98 * static_cast<double>(distinct));
  EXPECT_LE(f.estimated_fpr(), 0.01);
}

struct ChainRun {
  double memory_ratio;  // bytes() / single BlockedBloom::for_capacity(n, p)
  double measured;      // compound FPR on never-inserted keys
  double estimated;     // estimated_fpr() of the chain after the inserts
  double sd;            // binomial sd of measured
  size_t layers;
};

ChainRun run_chain(double p, uint64_t n0, uint64_t mult, bool linear, uint64_t queries) {
  ScalableBloomParams prm;
  prm.initial_capacity = n0;
  prm.fpr = p;
  prm.linear_growth = linear;
  ScalableBloom f(prm);
  const uint64_t n = n0 * mult;
  for (uint64_t i = 0; i < n; ++i) f.insert(key(i));
  uint64_t hits = 0;
  for (uint64_t i = 0; i < queries; ++i) hits += f.contains(key(kQueryBase + i)) ? 1 : 0;
  const auto single = BlockedBloom::shape_for_capacity(n, p);
  const double est = f.estimated_fpr();
  return {static_cast<double>(f.bytes()) / static_cast<double>(single.blocks * 64),
          static_cast<double>(hits) / static_cast<double>(queries), est,
          binom_sd(est, static_cast<double>(queries)), f.layers()};
}

// True n = 1x, 10x, 100x the first layer's capacity n0 = 20,000 (2e6 keys at
// 100x; 1e6 queries per point, 1/8 of both under sanitizers).
//
// FPR: the compound measured rate must be <= p (4 sd + 2% slack) and match the
// chain's own estimate from its fill.
// Memory: 1.5x of a single filter sized for the true n holds at 1x for
// p <= 1% (one layer at P0 = 0.15 P: 1.46x at 1%, 1.34x at 0.1%). It cannot
// hold at 10x or 100x with s = 2 (or 4), for any tightening: at 10x the layers
// 1+2+4+8 = 15 n0 are allocated for 10 n0 keys and each layer needs at least
// the single filter's bits per key, so bytes >= 1.5x single before tightening
// costs anything; at 100x the 127 n0 allocated (1.27x) times the least
// possible tightening cost (2 bits/key for s = 2 even if the final n were
// known: the entropy of the layer capacities) exceeds 1.5x. The ceilings
// below are the measured ratios of this design plus ~3%, so a regression
// fails; see bloom.hpp and the issue report.
struct ChainCase {
  double p;
  uint64_t mult;
  double memory_ceiling;
};

class ScalableBloomChain : public ::testing::TestWithParam<ChainCase> {};

TEST_P(ScalableBloomChain, CompoundFprAndMemory) {
  const auto [p, mult, ceiling] = GetParam();
  const ChainRun r = run_chain(p, 20'000 / kScale, mult, false, 1'000'000 / kScale);
  std::printf("p=%-6g n=%3llux layers=%-2zu memory=%.3fx single  measured fpr=%.4g (%.3f p) estimated=%.4g\n", p,
              static_cast<unsigned long long>(mult), r.layers, r.memory_ratio, r.measured, r.measured / p,
              r.estimated);
  EXPECT_LE(r.measured, p * 1.02 + 4 * r.sd);
  EXPECT_NEAR(r.measured, r.estimated, 4 * r.sd + 0.02 * r.estimated);
  EXPECT_LE(r.memory_ratio, ceiling);
}

INSTANTIATE_TEST_SUITE_P(ScalableBloomGrid, ScalableBloomChain,
                         ::testing::Values(ChainCase{0.01, 1, 1.5}, ChainCase{0.001, 1, 1.5},
                                           ChainCase{0.1, 1, 1.92}, ChainCase{0.01, 10, 2.41},
                                           ChainCase{0.001, 10, 2.19}, ChainCase{0.1, 10, 3.15},
                                           ChainCase{0.01, 100, 2.2}, ChainCase{0.001, 100, 1.97},
                                           ChainCase{0.1, 100, 2.95}),
                         [](const ::testing::TestParamInfo<ChainCase>& tpi) {
                           return "p" + std::to_string(static_cast<int>(std::lround(-std::log10(tpi.param.p)))) +
                                  "_x" + std::to_string(tpi.param.mult);
                         });

// Bytes of a chain after n keys, from the sizing rule alone (no inserts).
uint64_t chain_bytes(const ScalableBloomParams& prm, uint64_t n, size_t* layers) {
  uint64_t cum = 0, bytes = 0;
  size_t i = 0;
  for (; cum < n && i < ScalableBloom::kMaxLayers; ++i) {
    bytes += BlockedBloom::shape_for_capacity(prm.layer_capacity(i), prm.layer_fpr(i)).blocks * 64;
    cum += prm.layer_capacity(i);
  }
  *layers = i;
  return bytes;
}

// Exponential vs linear growth at p = 1% (same sample sizes as above): prints
// the comparison and checks the trade-off the default rests on. Linear growth
// allocates less at 10x-100x (smaller newest layer) but needs more layers
// (each a cache miss for every absent key: 11 vs 7 at 100x), and from ~1000x
// on it also needs more memory (33 layers, 2.6x vs 1.85x a single filter;
// computed from the sizing rule, not inserted).
TEST(ScalableBloomGrowth, ExponentialVersusLinear) {
  const uint64_t n0 = 20'000 / kScale;
  for (uint64_t mult : {1ULL, 10ULL, 100ULL}) {
    const ChainRun e = run_chain(0.01, n0, mult, false, 1'000'000 / kScale);
    const ChainRun l = run_chain(0.01, n0, mult, true, 1'000'000 / kScale);
    std::printf("n=%3llux  exponential: %2zu layers %.3fx memory fpr %.4g | linear: %2zu layers %.3fx memory fpr %.4g\n",
                static_cast<unsigned long long>(mult), e.layers, e.memory_ratio, e.measured, l.layers,
                l.memory_ratio, l.measured);
    EXPECT_LE(e.measured, 0.01 * 1.02 + 4 * e.sd);
    EXPECT_LE(l.measured, 0.01 * 1.02 + 4 * l.sd);
    if (mult == 100) {
      EXPECT_GT(l.layers, e.layers + 2);
    }
  }
  ScalableBloomParams exp_p, lin_p;
  exp_p.initial_capacity = lin_p.initial_capacity = 20'000;
  lin_p.linear_growth = true;
  const uint64_t n = 20'000 * 1000;
  const double single = static_cast<double>(BlockedBloom::shape_for_capacity(n, 0.01).blocks * 64);
  size_t el = 0, ll = 0;
  const double eb = static_cast<double>(chain_bytes(exp_p, n, &el)) / single;
  const double lb = static_cast<double>(chain_bytes(lin_p, n, &ll)) / single;
  std::printf("n=1000x  exponential: %2zu layers %.3fx memory | linear: %2zu layers %.3fx memory (sizing only)\n", el, eb,
              ll, lb);
  EXPECT_GT(lb, 1.2 * eb);
  EXPECT_GT(ll, 3 * el);
}

TEST(ScalableBloomEstimate, KeysAndMoves) {
  ScalableBloomParams p;
  p.initial_capacity = 10'000;
  ScalableBloom f(p);
  const uint64_t n = 500'000;
  for (uint64_t i = 0; i < n; ++i) f.insert(key(i));
  EXPECT_NEAR(f.estimated_keys(), static_cast<double>(n), 0.02 * static_cast<double>(n));
  EXPECT_NEAR(static_cast<double>(f.keys_inserted()), static_cast<double>(n), 0.01 * static_cast<double>(n));
  ScalableBloom g = std::move(f);
  EXPECT_EQ(f.layers(), 0U);
  EXPECT_EQ(f.bytes(), 0U);
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(g.contains(key(i)));
  g.prefetch(key(0));
  EXPECT_EQ(g.params().initial_capacity, 10'000U);
}

}  // namespace
}  // namespace kmerbloom
