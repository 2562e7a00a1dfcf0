// The count table: counts against a std::map, growth, concurrent inserts
// (both key widths), the keys-only first pass, sorted draining, saturation.
// The partition table's sketch: every key held through growth, and the
// false-positive rate its formula gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "count/count_table.hpp"
#include "count/partition_table.hpp"
#include "kmer/hash.hpp"
#include "kmer/kmer.hpp"
#include "strings.hpp"

namespace kmerbloom {
namespace {

// Keys shaped like k-mers: 62 bits for uint64_t, 126 bits for u128, with
// many keys sharing their high word (the multi-word claim protocol must
// compare every word).
template <class W>
std::vector<W> make_keys(size_t distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<W> keys(distinct);
  for (auto& k : keys) {
    if constexpr (sizeof(W) == 8) {
      k = rng() >> 2;
    } else if constexpr (sizeof(W) == 16) {
      k = (static_cast<u128>(rng() % 64) << 64) | rng();  // few high words
    } else {  // Words<N>: few high and middle words, so the claim compares them all
      for (auto& word : k.w) word = rng() % 4;
      k.w[0] = rng();
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

template <class W>
class CountTableTest : public ::testing::Test {};
using Widths = ::testing::Types<uint64_t, u128, Words<4>, Words<8>>;
TYPED_TEST_SUITE(CountTableTest, Widths);

TYPED_TEST(CountTableTest, CountsMatchAMapThroughGrowth) {
  using W = TypeParam;
  const auto keys = make_keys<W>(100000, 1);
  CountTable<W> table(0);  // starts at the minimum size: grows several times
  const uint64_t first_capacity = table.capacity();
  std::map<W, uint64_t> want;
  std::mt19937_64 rng(2);
  for (int i = 0; i < 300000; ++i) {
    const W k = keys[rng() % keys.size()];
    const uint32_t n = 1 + static_cast<uint32_t>(rng() % 3);
    table.add(k, n);
    want[k] += n;
  }
  EXPECT_GT(table.capacity(), first_capacity);
  EXPECT_EQ(table.size(), want.size());
  EXPECT_LE(table.load(), CountTable<W>::kMaxLoad);
  for (const auto& [k, c] : want) ASSERT_EQ(table.count(k), c);
  EXPECT_EQ(table.count(W{12345}), 0U);  // absent (not among the 62/126-bit random keys)
  uint64_t seen = 0;
  table.for_each([&](W k, uint32_t c) {
    ++seen;
    EXPECT_EQ(want.at(k), c);
  });
  EXPECT_EQ(seen, want.size());
}

TYPED_TEST(CountTableTest, SizedFromTheExpectedKeysItDoesNotGrow) {
  using W = TypeParam;
  const auto keys = make_keys<W>(50000, 3);
  CountTable<W> table(keys.size());
  const uint64_t capacity = table.capacity();
  EXPECT_EQ(table.bytes(), CountTable<W>::bytes_for(keys.size()));
  for (const W k : keys) table.add(k);
  EXPECT_EQ(table.capacity(), capacity);
  EXPECT_EQ(table.size(), keys.size());
  EXPECT_NEAR(table.load(), CountTable<W>::kMaxLoad, 0.01);
}

// Several threads insert and count overlapping key sets in chunks, as
// count's workers do; the table starts small so that growth happens while
// the others are inside with_room.
TYPED_TEST(CountTableTest, ConcurrentInsertsAreExact) {
  using W = TypeParam;
  const auto keys = make_keys<W>(60000, 4);
  CountTable<W> table(0);
  constexpr int kThreads = 4, kPerThread = 200000;
  constexpr size_t kChunk = 512;
  std::vector<std::vector<W>> streams(kThreads);
  std::map<W, uint64_t> want;
  for (int t = 0; t < kThreads; ++t) {
    std::mt19937_64 rng(10 + t);
    for (int i = 0; i < kPerThread; ++i) {
      // Each thread draws from a window of keys overlapping the others'.
      const W k = keys[(t * keys.size() / 8 + rng() % (keys.size() / 2)) % keys.size()];
      streams[t].push_back(k);
      ++want[k];
    }
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      const auto& s = streams[t];
      for (size_t at = 0; at < s.size(); at += kChunk) {
        const size_t n = std::min(kChunk, s.size() - at);
        table.with_room(n, [&] {
          uint64_t added = 0;
          for (size_t i = at; i < at + n; ++i) {
            const uint64_t h = hash_kmer(s[i]);
            table.prefetch(h);
            bool inserted = false;
            table.add_count(table.insert(s[i], h, &inserted));
            added += inserted;
          }
          return added;
        });
      }
    });
  }
  for (auto& t : pool) t.join();
  EXPECT_EQ(table.size(), want.size());
  for (const auto& [k, c] : want) ASSERT_EQ(table.count(k), c);
}

// Exact pass 1: keys only, looked up and inserted concurrently; then the
// counts are added and a read-only recount runs from several threads.
TYPED_TEST(CountTableTest, KeysFirstThenCounts) {
  using W = TypeParam;
  const auto keys = make_keys<W>(20000, 5);
  CountTable<W> table(keys.size() / 4, /*with_counts=*/false);
  EXPECT_FALSE(table.has_counts());
  EXPECT_EQ(table.bytes(), CountTable<W>::bytes_for(keys.size() / 4, false));
  std::vector<std::thread> pool;
  for (int t = 0; t < 3; ++t) {
    pool.emplace_back([&, t] {
      for (size_t at = t; at < keys.size(); at += 256) {
        const size_t n = std::min<size_t>(256, keys.size() - at);
        table.with_room(n, [&] {
          uint64_t added = 0;
          for (size_t i = at; i < at + n; ++i) {
            const uint64_t h = hash_kmer(keys[i]);
            if (table.find(keys[i], h) != CountTable<W>::kNone) continue;
            bool inserted = false;
            table.insert(keys[i], h, &inserted);
            added += inserted;
          }
          return added;
        });
      }
    });
  }
  for (auto& t : pool) t.join();
  ASSERT_EQ(table.size(), keys.size());
  table.enable_counts();
  EXPECT_TRUE(table.has_counts());
  EXPECT_EQ(table.bytes(), table.capacity() * (sizeof(W) + 4));
  pool.clear();
  for (int t = 0; t < 2; ++t) {
    pool.emplace_back([&] {
      for (const W k : keys) {
        const uint64_t slot = table.find(k, hash_kmer(k));
        ASSERT_NE(slot, CountTable<W>::kNone);
        table.add_count(slot, 2);
      }
    });
  }
  for (auto& t : pool) t.join();
  for (const W k : keys) ASSERT_EQ(table.count(k), 4U);
  EXPECT_EQ(table.find(W{7}, hash_kmer(W{7})), CountTable<W>::kNone);
}

TYPED_TEST(CountTableTest, DrainSortedKeepsOrderAndFilters) {
  using W = TypeParam;
  const auto keys = make_keys<W>(80000, 6);
  CountTable<W> table(1000);
  std::map<W, uint64_t> want;
  std::mt19937_64 rng(7);
  for (const W k : keys) {
    const uint32_t c = 1 + static_cast<uint32_t>(rng() % 5);
    table.add(k, c);
    if (c >= 2) want[k] = c;
  }
  std::vector<std::pair<W, uint64_t>> got;
  table.drain_sorted([](uint32_t c) { return c >= 2; }, [&](W k, uint32_t c) { got.emplace_back(k, c); });
  const std::vector<std::pair<W, uint64_t>> expected(want.begin(), want.end());
  EXPECT_TRUE(got == expected);
  EXPECT_EQ(table.size(), 0U);
  EXPECT_EQ(table.bytes(), 0U);
}

TEST(CountTable, DrainSortedOrdersRealKmersLexicographically) {
  // Short k (fewer key bits than the bucket digit) and a skewed prefix.
  for (unsigned k : {3u, 11u, 31u}) {
    std::mt19937_64 rng(k);
    CountTable<uint64_t> table(0);
    std::vector<std::string> want;
    for (int i = 0; i < 3000; ++i) {
      std::string s(k, 'A');
      for (auto& c : s) c = "ACGT"[rng() % (i % 2 ? 4 : 1 + rng() % 2)];
      table.add(encode_kmer<uint64_t>(s));
      want.push_back(s);
    }
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    std::vector<std::string> got;
    std::string text(k, 'A');
    table.drain_sorted([](uint32_t) { return true; }, [&](uint64_t km, uint32_t) {
      decode_kmer_to(km, k, text.data());
      got.push_back(text);
    });
    EXPECT_SAME(got, want) << "k = " << k;
  }
}

TEST(CountTable, CountsSaturate) {
  CountTable<uint64_t> table(0);
  const uint32_t max = std::numeric_limits<uint32_t>::max();
  table.add(42, max - 1);
  table.add(42, 1);
  EXPECT_EQ(table.count(42), max);
  table.add(42, 5);  // would wrap
  EXPECT_EQ(table.count(42), max);
  table.add(43, max - 2);
  table.add(43, 10);
  EXPECT_EQ(table.count(43), max);
}

// Started small, the table doubles several times; the sketch must answer
// true for every key at every size (a key it lost would lose its count when
// the exact mode settles the first sightings).
TEST(PartitionTableSketch, HoldsEveryKeyThroughGrowth) {
  PartitionTable<uint64_t> table(0);
  const std::vector<uint64_t> keys = make_keys<uint64_t>(50000, 7);
  uint64_t capacity = table.capacity();
  unsigned doublings = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    table.insert(keys[i], hash_kmer(keys[i]));
    if (table.capacity() != capacity) {
      capacity = table.capacity();
      ++doublings;
      for (size_t j = 0; j <= i; ++j) ASSERT_TRUE(table.may_hold(hash_kmer(keys[j]))) << "key " << j << " after growing to " << capacity;
    }
  }
  EXPECT_GE(doublings, 8U);
  for (const uint64_t key : keys) EXPECT_TRUE(table.may_hold(hash_kmer(key)));
  table.reset(100);  // emptied: its sketch too
  size_t held = 0;
  for (const uint64_t key : keys) held += table.may_hold(hash_kmer(key));
  EXPECT_EQ(held, 0U);
}

// The rate at which absent keys pass, measured at the table's lightest,
// usual and fullest loads, against sketch_false_positive_rate(): within
// four standard deviations of 200,000 trials.
TEST(PartitionTableSketch, FalsePositiveRateAgreesWithItsFormula) {
  constexpr uint64_t kSlots = uint64_t{1} << 17;
  const std::vector<uint64_t> keys = make_keys<uint64_t>(static_cast<size_t>(0.7 * kSlots), 11);
  const std::vector<uint64_t> absent = make_keys<uint64_t>(200000, 12);
  for (const double load : {0.35, 0.5, 0.7}) {
    PartitionTable<uint64_t> table(static_cast<uint64_t>(0.7 * kSlots) - 1);
    ASSERT_EQ(table.capacity(), kSlots);
    const auto n = static_cast<uint64_t>(load * kSlots);
    for (uint64_t i = 0; i < n; ++i) table.insert(keys[i], hash_kmer(keys[i]));
    ASSERT_EQ(table.capacity(), kSlots);
    std::vector<uint64_t> held(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
    std::sort(held.begin(), held.end());
    uint64_t tried = 0, passed = 0;
    for (const uint64_t key : absent) {
      if (std::binary_search(held.begin(), held.end(), key)) continue;
      ++tried;
      passed += table.may_hold(hash_kmer(key));
    }
    const double want = PartitionTable<uint64_t>::sketch_false_positive_rate(n, kSlots);
    const double got = static_cast<double>(passed) / static_cast<double>(tried);
    const double sd = std::sqrt(want * (1 - want) / static_cast<double>(tried));
    EXPECT_NEAR(got, want, 4 * sd) << "load " << load;
    EXPECT_LT(want, 0.03) << "load " << load;
  }
}

}  // namespace
}  // namespace kmerbloom
