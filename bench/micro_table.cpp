// Micro-benchmark of the count table's per-occurrence cost: random lookups
// of present keys in a table of 5 M k-mers (the size count uses on the 100x
// E. coli reads), processed in chunks of 2048 with prefetches D k-mers
// ahead, as count's workers do. Three ways to touch a key: find() alone (the
// exact pass 1, keys only), find() and an atomic add_count() (the recount and
// one pass: a second cache line, the count's), and add() one key at a time
// (a with_room() per key, as load_solid_file does).
//
// On the 2-core development VM, one thread, D = 16: find 25 ns, find and
// count 28 ns, add one by one 48 ns a key (the sharded table with a lock
// per shard and packed 12-byte entries that this one replaced: 55-65 ns for
// every kind of lookup). D = 16 is best; 4 and 64 are 10-30% slower.
//
//   micro_table [--benchmark_filter=...] [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "count/count_table.hpp"

namespace {

using kmerbloom::CountTable;
using kmerbloom::hash_kmer;

constexpr uint64_t kKeys = 5'000'000;
constexpr size_t kChunk = 2048;
constexpr size_t kPool = size_t{1} << 22;  // queries, read sequentially

struct Fixture {
  CountTable<uint64_t> table{kKeys};
  std::vector<uint64_t> pool = std::vector<uint64_t>(kPool);
  Fixture() {
    std::mt19937_64 rng(1);
    std::vector<uint64_t> keys(kKeys);
    for (auto& k : keys) {
      k = rng() >> 2;  // a 31-mer's 62 bits
      table.add(k);
    }
    for (auto& q : pool) q = keys[rng() % kKeys];
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

enum Touch { kFind, kFindCount, kAddOne };

template <Touch touch>
void BM_Lookup(benchmark::State& state) {
  Fixture& f = fixture();
  const auto ahead = static_cast<size_t>(state.range(0));
  std::vector<uint64_t> km(kChunk), h(kChunk);
  size_t next = 0;
  uint64_t found = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < kChunk; ++i) {
      km[i] = f.pool[next++ & (kPool - 1)];
      h[i] = hash_kmer(km[i]);
    }
    for (size_t i = 0; i < kChunk; ++i) {
      if (i + ahead < kChunk) f.table.prefetch(h[i + ahead]);
      if constexpr (touch == kAddOne) {
        f.table.add_hashed(km[i], h[i]);
        ++found;
      } else {
        const uint64_t slot = f.table.find(km[i], h[i]);
        found += slot != CountTable<uint64_t>::kNone;
        if constexpr (touch == kFindCount) f.table.add_count(slot);
      }
    }
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kChunk));
}

BENCHMARK(BM_Lookup<kFind>)->Arg(4)->Arg(16)->Arg(64);
BENCHMARK(BM_Lookup<kFindCount>)->Arg(4)->Arg(16)->Arg(64);
BENCHMARK(BM_Lookup<kAddOne>)->Arg(16);

}  // namespace

BENCHMARK_MAIN();
