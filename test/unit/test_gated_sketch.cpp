// The normalizer's abundance structure (gated_sketch.hpp) and its sizing
// rule (read_filter.hpp, sketch_demand): the plan follows the documented
// rule, the measured gate false-positive rate and sketch collision rate agree
// with the models the plan reports, k-mers seen once take no sketch
// counter, counts are never low, and a memory cap is kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "estimate/cardinality.hpp"
#include "kmer/hash.hpp"
#include "normalize/gated_sketch.hpp"
#include "normalize/read_filter.hpp"

using namespace kmerbloom;

namespace {

std::vector<uint64_t> random_keys(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = mix64(rng());
  return keys;
}

}  // namespace

TEST(GatedSketchPlan, FollowsTheRule) {
  const uint64_t repeated = 1'000'000, once = 4'000'000;
  const GatedSketchPlan p = plan_gated_sketch(repeated, once, uint64_t{1} << 40);
  EXPECT_EQ(p.gate_keys, repeated + once);
  const BlockedBloom::Shape gate = BlockedBloom::shape_for_capacity(repeated + once, kGateFpr);
  EXPECT_EQ(p.gate.blocks, gate.blocks);
  EXPECT_EQ(p.gate.hashes, gate.hashes);
  // Leaked: the k-mers seen once times the gate's rate averaged over its
  // fill (here integrated finely), well below the final rate.
  double mean_rate = 0;
  const int steps = 400;
  for (int i = 0; i < steps; ++i)
    mean_rate += BlockedBloom::expected_fpr(static_cast<uint64_t>((i + 0.5) / steps * static_cast<double>(repeated + once)),
                                            gate.blocks, gate.hashes);
  mean_rate /= steps;
  const double leaked = static_cast<double>(p.sketch_keys - repeated);
  const double n_once = static_cast<double>(once);
  EXPECT_NEAR(leaked, mean_rate * n_once, 0.01 * mean_rate * n_once);
  EXPECT_LT(leaked, 0.5 * kGateFpr * n_once);
  EXPECT_EQ(p.sketch_blocks, CountMinSketch::blocks_for_keys(p.sketch_keys));
  EXPECT_FALSE(p.capped);
  EXPECT_LE(p.gate_fpr, kGateFpr);
  EXPECT_GT(p.gate_fpr, 0.8 * kGateFpr);
  // At the design load of 6 keys per block: 1.6%.
  EXPECT_NEAR(p.collision_rate, 0.016, 0.002);
  // Singletons cost gate bits only: well under the 10.7 bytes a sketch key takes.
  EXPECT_LT(static_cast<double>(p.gate_bytes()) / static_cast<double>(p.gate_keys), 1.0);
  EXPECT_EQ(p.bytes(), p.gate_bytes() + p.sketch_bytes());
}

TEST(GatedSketchPlan, CapShrinksBothAndReportsTheRates) {
  const GatedSketchPlan full = plan_gated_sketch(500'000, 2'000'000, uint64_t{1} << 40);
  const uint64_t cap = full.bytes() / 2;
  const GatedSketchPlan p = plan_gated_sketch(500'000, 2'000'000, cap);
  EXPECT_TRUE(p.capped);
  EXPECT_LE(p.bytes(), cap);
  EXPECT_GT(p.bytes(), cap * 98 / 100);
  EXPECT_GT(p.gate_fpr, full.gate_fpr);
  EXPECT_GT(p.collision_rate, full.collision_rate);
  EXPECT_DOUBLE_EQ(p.gate_fpr, BlockedBloom::expected_fpr(p.gate_keys, p.gate.blocks, p.gate.hashes));
  // A floor for each part, under the cap.
  const GatedSketchPlan floored = plan_gated_sketch(100, 400, uint64_t{1} << 40, uint64_t{1} << 20);
  EXPECT_EQ(floored.gate_bytes(), uint64_t{1} << 20);
  EXPECT_EQ(floored.sketch_bytes(), uint64_t{1} << 20);
  EXPECT_LE(plan_gated_sketch(100, 400, uint64_t{1} << 20, uint64_t{1} << 20).bytes(), uint64_t{1} << 20);
  // A tiny cap still leaves a working structure, and says it is saturated.
  const GatedSketchPlan tiny = plan_gated_sketch(500'000, 2'000'000, 1);
  EXPECT_EQ(tiny.gate.blocks, 1u);
  EXPECT_EQ(tiny.sketch_blocks, 1u);
  EXPECT_GT(tiny.gate_fpr, 0.99);
  EXPECT_GT(tiny.collision_rate, 0.99);
}

TEST(GatedSketch, SingletonsTakeNoSketchCounters) {
  const size_t n = 400'000;
  const GatedSketchPlan p = plan_gated_sketch(0, n, uint64_t{1} << 40);
  GatedSketch s(p);
  const auto keys = random_keys(3, n);
  for (uint64_t k : keys) s.add(k);
  // Only the gate's false positives reach the sketch: about the gate's mean
  // rate over the fill, below kGateFpr.
  const double leaked = s.sketch().fill().keys;
  EXPECT_LT(leaked, kGateFpr * static_cast<double>(n));
  EXPECT_GT(leaked, 0.005 * static_cast<double>(n));
  size_t ones = 0;
  for (uint64_t k : keys) {
    const unsigned e = s.estimate(k);
    ASSERT_GE(e, 1u);
    ones += e == 1;
  }
  EXPECT_GT(static_cast<double>(ones), 0.95 * static_cast<double>(n));
}

TEST(GatedSketch, NeverUnderCounts) {
  // Crowded: a plan for far fewer keys than are added.
  const GatedSketchPlan p = plan_gated_sketch(200, 800, uint64_t{1} << 40);
  GatedSketch s(p);
  const auto keys = random_keys(5, 4000);
  std::vector<unsigned> truth(keys.size());
  std::mt19937_64 rng(9);
  for (int i = 0; i < 60'000; ++i) {
    const size_t j = std::min<size_t>(keys.size() - 1, static_cast<size_t>(std::pow(rng() % 4000, 2) / 4000));
    s.add(keys[j]);
    ++truth[j];
  }
  size_t saturated = 0;
  for (size_t j = 0; j < keys.size(); ++j) {
    ASSERT_GE(s.estimate(keys[j]), std::min(truth[j], GatedSketch::kMaxCount)) << j;
    saturated += truth[j] >= GatedSketch::kMaxCount;
  }
  EXPECT_GT(saturated, 0u);
}

TEST(GatedSketch, MeasuredRatesAgreeWithThePlan) {
  // A read set in miniature: `repeated` keys seen 2 to 30 times, `once` keys
  // seen once, in random order, into a sketch planned for exactly these.
  const uint64_t repeated = 120'000, once = 480'000;
  const GatedSketchPlan p = plan_gated_sketch(repeated, once, uint64_t{1} << 40);
  GatedSketch s(p);
  const auto rep = random_keys(21, repeated), one = random_keys(22, once);
  std::vector<uint64_t> stream(one);
  std::mt19937_64 rng(23);
  for (uint64_t k : rep) stream.insert(stream.end(), 2 + rng() % 29, k);
  std::shuffle(stream.begin(), stream.end(), rng);
  for (uint64_t k : stream) s.add(k);

  // Gate: the measured rate (absent keys) agrees with its fill and with the model.
  const double gate_fill = s.gate().estimated_fpr();
  EXPECT_NEAR(gate_fill, p.gate_fpr, 0.1 * p.gate_fpr);
  const auto fresh = random_keys(24, 200'000);
  uint64_t gate_hits = 0;
  for (uint64_t k : fresh) gate_hits += s.estimate(k) > 0;
  EXPECT_NEAR(static_cast<double>(gate_hits) / static_cast<double>(fresh.size()), gate_fill, 0.1 * gate_fill);

  // Sketch: the repeated keys plus the leaked ones, as planned (a singleton
  // meets the gate at its fill of the moment); its measured collision rate
  // (the chance that a key absent from it reads non-zero) agrees with the
  // model at the keys it holds and with the rate the plan reported.
  const CountMinSketch::Fill f = s.sketch().fill();
  EXPECT_NEAR(f.keys, static_cast<double>(p.sketch_keys), 0.05 * static_cast<double>(p.sketch_keys));
  const double model = CountMinSketch::expected_collision_rate(static_cast<uint64_t>(f.keys), p.sketch_blocks);
  EXPECT_NEAR(f.collision_rate, model, 0.1 * model);
  EXPECT_NEAR(f.collision_rate, p.collision_rate, 0.1 * p.collision_rate);
  uint64_t above = 0;
  for (uint64_t k : one) above += s.estimate(k) > 1;
  // Keys seen once read 2+ after a gate false positive on their sighting
  // (leaked), or through sketch collisions.
  const double leaked_share = (f.keys - static_cast<double>(repeated)) / static_cast<double>(once);
  const double expected = leaked_share + (1 - leaked_share) * f.collision_rate;
  EXPECT_NEAR(static_cast<double>(above) / static_cast<double>(once), expected, 0.15 * expected);
}

TEST(GatedSketchSizing, DemandFromTheSpectrum) {
  // 1,000 k-mers at 100x, 1,000 at 10x, 8,000 singletons, exact estimate;
  // target 20: the 100x k-mers keep 20 of 100 occurrences, the 10x all 10.
  KmerSpectrumEstimate e;
  e.f.assign(101, 0);
  e.f[1] = 8000;
  e.f[10] = 1000;
  e.f[100] = 1000;
  e.distinct = 10'000;
  e.kmers_total = 8000 + 10'000 + 100'000;
  e.exact = true;
  const SketchDemand d = sketch_demand(e, 20);
  const double kept = (20.0 * 1000 + 10.0 * 1000) / (100.0 * 1000 + 10.0 * 1000);
  EXPECT_NEAR(d.kept_share, kept, 1e-12);
  EXPECT_EQ(d.repeated, 2000u);
  EXPECT_EQ(d.once, static_cast<uint64_t>(std::llround(kKeptShareMargin * kept * 8000)));

  // K-mers above the last row keep C occurrences each.
  KmerSpectrumEstimate top = e;
  top.f.assign(11, 0);
  top.f[1] = 8000;
  top.f[10] = 1000;
  top.above_max_row = 1000;
  EXPECT_NEAR(sketch_demand(top, 20).kept_share, kept, 1e-12);

  // A sampled estimate gets three standard errors on top.
  KmerSpectrumEstimate sampled = e;
  sampled.exact = false;
  sampled.relative_std_error = 0.01;
  const SketchDemand ds = sketch_demand(sampled, 20);
  EXPECT_EQ(ds.repeated, 2060u);
  EXPECT_GT(ds.once, d.once);
  // Never more singletons in the kept reads than in the input.
  EXPECT_LE(sketch_demand(e, 255).once, 8000u);
}
