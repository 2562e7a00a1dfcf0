// plan_count and size_partition: pure functions of the options.
#include <gtest/gtest.h>

#include <cmath>

#include "count/plan.hpp"
#include "count/tuning.hpp"

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

// P = input bytes x kAssumedBytesPerOccurrence / (kCacheMultiple x L2),
// clamped to [64, 4096]: the size and the cache decide, not the threads or
// the budget.
TEST(CountPlan, PartitionsFollowTheInputSizeAndTheCacheNotTheThreadsOrBudget) {
  const uint64_t mb = uint64_t{1} << 20, mb400 = 400 * mb;
  auto parts = [](unsigned threads, uint64_t budget, uint64_t bytes, uint64_t cache) {
    CountEstimate e;
    e.input_bytes = bytes;
    e.cache_bytes = cache;
    return plan_count(opts(threads, budget), e).partitions;
  };
  EXPECT_EQ(parts(1, 0, 0, mb), 256u);  // unknown size (stdin)
  EXPECT_EQ(parts(1, 0, 1000, mb), 64u);
  EXPECT_EQ(parts(1, 0, mb400, mb), 320u);          // 400 MiB x 1.6 / 2 MiB
  EXPECT_EQ(parts(4, uint64_t{1} << 30, mb400, mb), 320u);
  EXPECT_EQ(parts(1, 0, mb400, 4 * mb), 80u);       // a 4 MiB L2: a quarter
  EXPECT_EQ(parts(1, 0, mb400, 256u << 10), 1280u); // 256 KiB: four times as many
  EXPECT_EQ(parts(1, 0, mb400, 0), 320u);           // the machine said nothing: 1 MiB
  EXPECT_EQ(parts(1, 0, uint64_t{1} << 40, mb), 4096u);
  // Occurrences sampled from the input win over its size in bytes.
  CountEstimate e;
  e.input_bytes = mb400;
  e.occurrences = 3 * mb400;  // long reads with simple qualities: three bases a gzip byte
  e.cache_bytes = mb;
  EXPECT_EQ(plan_count(opts(1, 0), e).partitions, 960u);
}

// A partition is swept in parts once its filter and table pass
// kSweepTrigger times the cache target, into parts that each fit the target.
TEST(CountPlan, SweepsSplitWhatOutgrowsTheCache) {
  const uint64_t mb = uint64_t{1} << 20;
  auto bytes = [](uint64_t n) {
    const PartitionSizing s = size_partition(n, 0.1, 0.05);
    return static_cast<double>(s.bloom_capacity) * kFilterBytesPerKey +
           static_cast<double>(s.table_keys) * kTableBytesPerKey;
  };
  // 1 M occurrences at 0.1 distinct and 0.05 keys each: 1.3 MB of filter
  // and table, within 4 x 2 x 1 MiB; past 4 x 2 x 128 KiB.
  EXPECT_EQ(sweeps_for(1000000, 0.1, 0.05, 31, mb), 1u);
  EXPECT_EQ(sweeps_for(1000000, 0.1, 0.05, 31, 128u << 10), static_cast<uint32_t>(std::ceil(bytes(1000000) / (256u << 10))));
  EXPECT_GT(sweeps_for(1000000, 0.1, 0.05, 31, 128u << 10), 4u);
  for (uint64_t n : {4000000u, 8000000u, 30000000u}) {
    const uint32_t s = sweeps_for(n, 0.1, 0.05, 31, mb);
    if (bytes(n) <= kSweepTrigger * kCacheMultiple * mb) {
      EXPECT_EQ(s, 1u) << n;
    } else {
      EXPECT_LE(bytes(n) / s, kCacheMultiple * mb) << n;
      EXPECT_GT(bytes(n) / (s - 1), kCacheMultiple * mb) << n;
    }
  }
  EXPECT_EQ(sweeps_for(4000000, 0.1, 0.05, 31, mb), 1u);
  EXPECT_GT(sweeps_for(30000000, 0.1, 0.05, 31, mb), 1u);
  EXPECT_GT(sweeps_for(30000000, 0.1, 0.05, 255, mb), sweeps_for(30000000, 0.1, 0.05, 31, mb));  // wider slots
}

// The records are tagged for sweeps when the partitions the cache wants
// pass kMaxPartitions (they will be past the target), or the size is
// unknown; never for the bin step (its bins are given) or bin files.
TEST(CountPlan, RecordsAreTaggedWhenThePartitionsWillOutgrowTheCache) {
  const uint64_t mb = uint64_t{1} << 20;
  auto tagged = [](uint64_t bytes, uint64_t cache, uint32_t bins = 0) {
    CountEstimate e;
    e.input_bytes = bytes;
    e.cache_bytes = cache;
    e.bins = bins;
    return plan_count(opts(2, 0), e).tagged;
  };
  // 4096 partitions of 2 x 1 MiB hold 5.4 G occurrences at 1.6 bytes each.
  const uint64_t fits = uint64_t{4096} * 2 * mb * 10 / 16;
  EXPECT_FALSE(tagged(400 * mb, mb));
  EXPECT_FALSE(tagged(fits - 2 * mb, mb));
  EXPECT_TRUE(tagged(fits + 2 * mb, mb));
  EXPECT_FALSE(tagged(fits + 2 * mb, 2 * mb));  // a larger cache: fewer partitions wanted
  EXPECT_TRUE(tagged(400 * mb, 64u << 10));      // 400 MiB on a 64 KiB cache: 5,120 wanted
  EXPECT_TRUE(tagged(0, mb));                    // unknown size (stdin)
  EXPECT_FALSE(tagged(0, mb, 4096));             // the bin step
  EXPECT_FALSE(tagged(uint64_t{1} << 40, mb, 65536));
  CountOptions o = opts(2, 0);
  detail::tune(o).sweep_tags = false;
  CountEstimate e;
  e.cache_bytes = mb;
  EXPECT_FALSE(plan_count(o, e).tagged);
  detail::tune(o).sweep_tags = true;
  e.input_bytes = mb;
  EXPECT_TRUE(plan_count(o, e).tagged);
}

// Tagged records: a sweep reads only its own, so a partition is split as
// soon as it passes the target instead of kSweepTrigger times it.
TEST(CountPlan, TaggedPartitionsAreSweptPastTheTarget) {
  const uint64_t mb = uint64_t{1} << 20;
  const double target = kCacheMultiple * mb;
  for (uint64_t n : {1000000u, 2000000u, 4000000u, 8000000u}) {
    const PartitionSizing z = size_partition(n, 0.1, 0.05);
    const double bytes = static_cast<double>(z.bloom_capacity) * kFilterBytesPerKey +
                         static_cast<double>(z.table_keys) * kTableBytesPerKey;
    const uint32_t s = sweeps_for(n, 0.1, 0.05, 31, mb, true);
    EXPECT_EQ(s, static_cast<uint32_t>(std::max(1.0, std::ceil(bytes / target)))) << n;
    EXPECT_LE(bytes / s, target) << n;
    if (bytes > target && bytes <= kSweepTrigger * target) {
      EXPECT_EQ(sweeps_for(n, 0.1, 0.05, 31, mb), 1u) << n;
    }
  }
  EXPECT_GT(sweeps_for(4000000, 0.1, 0.05, 31, mb, true), 1u);
  EXPECT_EQ(sweeps_for(4000000, 0.1, 0.05, 31, mb, false), 1u);
}

TEST(CountPlan, DefaultSpoolIsAQuarterOfTheAvailableMemoryWithinBounds) {
  EXPECT_EQ(default_spool_memory(0), kDefaultSpoolMemory);
  EXPECT_EQ(default_spool_memory(uint64_t{1} << 30), uint64_t{256} << 20);
  EXPECT_EQ(default_spool_memory(uint64_t{64} << 30), kMaxDefaultSpoolMemory);
  CountEstimate e;
  e.input_bytes = uint64_t{400} << 20;
  e.available_memory = uint64_t{2} << 30;
  EXPECT_EQ(plan_count(opts(2, 0), e).spool_memory, uint64_t{512} << 20);
  EXPECT_LT(plan_count(opts(2, uint64_t{100} << 20), e).spool_memory, uint64_t{100} << 20);  // -M is the cap
}

// The reading pass keeps kReadAheadBases in flight (count's batches of
// 512 K bases: 16 of them), counted in the read buffers, unless a -M is so
// small that they would take more than a sixteenth of it.
TEST(CountPlan, ReadAheadBatchesWithinTheBudget) {
  const CountEstimate e{uint64_t{400} << 20};
  for (const uint64_t m : {uint64_t{0}, uint64_t{1} << 30}) {
    const CountPlan p = plan_count(opts(2, m), e);
    EXPECT_EQ(p.read_batches, kReadAheadBases / CountOptions().batch_bases) << m;
    EXPECT_EQ(p.read_buffers, p.read_batches * CountOptions().batch_bases * 2 + 2 * (uint64_t{8} << 20)) << m;
  }
  EXPECT_EQ(plan_count(opts(2, uint64_t{120} << 20), e).read_batches, 4u);  // threads + 2: 12 MiB more > 120 MiB / 16
  EXPECT_EQ(plan_count(opts(64, 0), e).read_batches, 66u);
}

TEST(CountPlan, SpoolMemoryIsTheBudgetLeftOver) {
  const CountPlan free_run = plan_count(opts(2, 0), {uint64_t{400} << 20});
  EXPECT_EQ(free_run.spool_memory, kDefaultSpoolMemory);
  const uint64_t m = uint64_t{96} << 20;
  const CountPlan p = plan_count(opts(2, m), {uint64_t{400} << 20});
  EXPECT_EQ(p.read_buffers + p.write_buffers + p.working_bytes + p.merge_buffers + p.spool_memory, m);
  EXPECT_EQ(p.write_buffers, uint64_t{2} * p.partitions * p.block_bytes);
  EXPECT_GE(p.spool_memory, uint64_t{1} << 20);
}

// Write buffers: 8 MiB over every worker and partition, but never under
// kMinBlockBytes a buffer (each full one is a put into the spool and, spilled,
// a read of the file) nor over 64 KiB; what the plan sets aside follows.
TEST(CountPlan, WriteBuffersAreEightMiBOverAllWithinTheirBounds) {
  EXPECT_EQ(block_bytes_for(2, 64), 64u << 10);
  EXPECT_EQ(block_bytes_for(2, 256), 16u << 10);
  EXPECT_EQ(block_bytes_for(2, 1660), kMinBlockBytes);
  EXPECT_EQ(block_bytes_for(64, 4096), kMinBlockBytes);
  EXPECT_EQ(kMinBlockBytes, 8u << 10);
  const CountPlan p = plan_count(opts(16, 0), {uint64_t{40} << 30});
  ASSERT_EQ(p.partitions, kMaxPartitions);
  EXPECT_EQ(p.block_bytes, kMinBlockBytes);
  EXPECT_EQ(p.write_buffers, uint64_t{16} * kMaxPartitions * kMinBlockBytes);
}

TEST(CountPlan, ABudgetTheBuffersExceedIsRefused) {
  EXPECT_THROW(plan_count(opts(2, uint64_t{20} << 20), {uint64_t{400} << 20}), BudgetError);
  EXPECT_THROW(plan_count(opts(8, uint64_t{64} << 20), {0}), BudgetError);
  EXPECT_NO_THROW(plan_count(opts(1, uint64_t{32} << 20), {0}));
}

// A refusal names the most threads the budget holds, and that many fit
// while one more does not; where even one thread does not fit, it says so.
TEST(CountPlan, ARefusalNamesTheMostThreadsThatFit) {
  const CountEstimate e{uint64_t{500} << 20};
  const uint64_t budget = uint64_t{1} << 30;
  std::string message;
  try {
    plan_count(opts(64, budget), e);
    FAIL() << "64 threads fit in 1 GiB: the test needs a budget they exceed";
  } catch (const BudgetError& x) {
    message = x.what();
  }
  const size_t at = message.find("use at most ");
  ASSERT_NE(at, std::string::npos) << message;
  const unsigned fits = static_cast<unsigned>(std::stoul(message.substr(at + 12)));
  EXPECT_NE(message.find("(-t " + std::to_string(fits) + ")"), std::string::npos) << message;
  ASSERT_GE(fits, 1u);
  ASSERT_LT(fits, 64u);
  EXPECT_NO_THROW(plan_count(opts(fits, budget), e)) << fits;
  EXPECT_THROW(plan_count(opts(fits + 1, budget), e), BudgetError) << fits + 1;
  try {
    plan_count(opts(4, uint64_t{1} << 20), e);
    FAIL() << "4 threads fit in 1 MiB";
  } catch (const BudgetError& x) {
    EXPECT_EQ(std::string(x.what()).find("use at most"), std::string::npos) << x.what();
  }
}

// The -M a refusal names, read back from its text as a user types it, is
// taken, and one MiB less is refused: at one thread (no word of threads)
// and at several, for small and large inputs, from 1 MiB and from just
// below the named figure.
TEST(CountPlan, TheMinusMARefusalNamesIsTaken) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  for (const uint64_t input : {uint64_t{1} << 20, uint64_t{500} << 20, uint64_t{40} << 30})
    for (const unsigned threads : {1u, 2u, 7u, 32u})
      for (const uint64_t asked : {kMiB, 20 * kMiB}) {
        const CountEstimate e{input};
        std::string message;
        try {
          plan_count(opts(threads, asked), e);
          continue;  // fits: nothing named
        } catch (const BudgetError& x) {
          message = x.what();
          EXPECT_EQ(message.find("either"), std::string::npos) << message;
          if (threads == 1) {
            EXPECT_EQ(message.find("(-t "), std::string::npos) << message;
          }
        }
        const size_t at = message.find("give -M ");
        ASSERT_NE(at, std::string::npos) << message;
        const uint64_t named = std::stoull(message.substr(at + 8));
        ASSERT_EQ(message.substr(at + 8 + std::to_string(named).size(), 9), "M or more") << message;
        EXPECT_NO_THROW(plan_count(opts(threads, named * kMiB), e)) << message;
        EXPECT_THROW(plan_count(opts(threads, (named - 1) * kMiB), e), BudgetError) << message;
        // Any larger budget is taken too (the deep read-ahead only where it fits).
        for (uint64_t more = named; more < named + 600; more += 7)
          EXPECT_NO_THROW(plan_count(opts(threads, more * kMiB), e)) << more << " MiB after " << message;
      }
}

TEST(CountPlan, RateAndGate) {
  CountOptions o = opts(1, 0);
  EXPECT_DOUBLE_EQ(plan_count(o, {}).fpr, kExactFpr);
  EXPECT_TRUE(plan_count(o, {}).gated);
  o.fpr = 0.02;
  EXPECT_DOUBLE_EQ(plan_count(o, {}).fpr, 0.02);
  o.min_count = 1;
  EXPECT_FALSE(plan_count(o, {}).gated);
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
