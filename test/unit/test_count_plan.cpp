// plan_count and size_partition: pure functions of the options.
#include <gtest/gtest.h>

#include <cmath>

#include "count/plan.hpp"

using namespace kmerbloom;

namespace {
CountOptions opts(unsigned threads, uint64_t max_memory) {
  CountOptions o;
  o.inputs = {"x.fq"};
  o.threads = threads;
  o.max_memory = max_memory;
  return o;
}
}  // namespace

TEST(CountPlan, PartitionsFollowTheInputSizeNotTheThreadsOrBudget) {
  EXPECT_EQ(plan_count(opts(1, 0), {0}).partitions, 256u);  // unknown size (stdin)
  EXPECT_EQ(plan_count(opts(1, 0), {1000}).partitions, 64u);
  EXPECT_EQ(plan_count(opts(1, 0), {uint64_t{400} << 20}).partitions, 400u);
  EXPECT_EQ(plan_count(opts(4, uint64_t{1} << 30), {uint64_t{400} << 20}).partitions, 400u);
  EXPECT_EQ(plan_count(opts(1, 0), {uint64_t{1} << 40}).partitions, 4096u);
}

// A slot holds the key's words and a 32-bit count: wider keys, more
// partitions, so that one partition's table keeps its size.
TEST(CountPlan, PartitionsGrowWithTheKeyWidth) {
  const uint64_t mb400 = uint64_t{400} << 20;
  for (auto [k, factor] : {std::pair{31u, 1u}, {32u, 2u}, {63u, 2u}, {64u, 3u}, {127u, 3u}, {128u, 6u}, {255u, 6u}}) {
    CountOptions o = opts(1, 0);
    o.k = k;
    EXPECT_EQ(plan_count(o, {mb400}).partitions, 400u * factor) << "k=" << k;
    EXPECT_EQ(plan_count(o, {0}).partitions, 256u * factor) << "k=" << k;
  }
}

TEST(CountPlan, SpoolMemoryIsTheBudgetLeftOver) {
  const CountPlan free_run = plan_count(opts(2, 0), {uint64_t{400} << 20});
  EXPECT_EQ(free_run.spool_memory, kDefaultSpoolMemory);
  const uint64_t m = uint64_t{48} << 20;
  const CountPlan p = plan_count(opts(2, m), {uint64_t{400} << 20});
  EXPECT_EQ(p.read_buffers + p.write_buffers + p.working_bytes + p.merge_buffers + p.spool_memory, m);
  EXPECT_EQ(p.write_buffers, uint64_t{2} * p.partitions * p.block_bytes);
  EXPECT_GE(p.spool_memory, uint64_t{1} << 20);
}

TEST(CountPlan, ABudgetTheBuffersExceedIsRefused) {
  EXPECT_THROW(plan_count(opts(2, uint64_t{20} << 20), {uint64_t{400} << 20}), BudgetError);
  EXPECT_THROW(plan_count(opts(8, uint64_t{64} << 20), {0}), BudgetError);
  EXPECT_NO_THROW(plan_count(opts(1, uint64_t{32} << 20), {0}));
}

TEST(CountPlan, RatesByMode) {
  CountOptions o = opts(1, 0);
  EXPECT_DOUBLE_EQ(plan_count(o, {}).fpr, kExactFpr);
  EXPECT_TRUE(plan_count(o, {}).gated);
  o.one_pass = true;
  EXPECT_DOUBLE_EQ(plan_count(o, {}).fpr, kOnePassFpr);
  o.fpr = 0.02;
  EXPECT_DOUBLE_EQ(plan_count(o, {}).fpr, 0.02);
  o.min_count = 1;
  EXPECT_FALSE(plan_count(o, {}).gated);
  EXPECT_FALSE(plan_count(o, {}).one_pass);
  o.k = 7;
  EXPECT_EQ(plan_count(o, {}).minimizer, 7u);
}

// Expectation plus three standard deviations, never below 64.
TEST(CountPlan, PartitionSizingHasThreeSigmaOfRoom) {
  const PartitionSizing s = size_partition(1000000, 0.1, 0.02);
  EXPECT_EQ(s.bloom_capacity, static_cast<uint64_t>(std::ceil(100000 + 3 * std::sqrt(100000.0))));
  EXPECT_EQ(s.table_keys, static_cast<uint64_t>(std::ceil(20000 + 3 * std::sqrt(20000.0))));
  EXPECT_EQ(size_partition(0, 0.5, 0.5).bloom_capacity, 64u);
  EXPECT_LE(size_partition(100, 7.0, 7.0).bloom_capacity, 100u + 31u);  // ratios clamp to 1
}
