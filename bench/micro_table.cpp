// Micro-benchmark of the count table's per-occurrence cost: random lookups
// of present keys in a table of 5 M k-mers (~100 MB, the size count uses on
// the 100x E. coli reads), processed in chunks of 2048 with prefetches D
// k-mers ahead, as count's workers do. Three ways to touch an entry: under
// the shard lock (pass 1), with a CAS on the count (pass 2), a plain read.
// On the 2-core development VM all three cost about the same (55-65 ns per
// lookup, D = 4..64): the table's cost is the memory access itself, not the
// locking, so making two passes cheaper needs fewer random accesses (for
// instance partitioning the k-mers so that each part's table fits in cache),
// not lighter synchronisation.
//
//   micro_table [--benchmark_filter=...] [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kmerbloom/count_table.hpp"

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

enum Touch { kLocked, kCas, kRead };

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
      if (i + ahead < kChunk) f.table.prefetch_hashed(h[i + ahead]);
      if constexpr (touch == kLocked) found += f.table.add_if_present_locked(km[i], h[i]);
      if constexpr (touch == kCas) found += f.table.add_if_present_hashed(km[i], h[i]);
      if constexpr (touch == kRead) found += f.table.count(km[i]) != 0;
    }
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kChunk));
}

BENCHMARK(BM_Lookup<kLocked>)->Arg(4)->Arg(16)->Arg(64);
BENCHMARK(BM_Lookup<kCas>)->Arg(4)->Arg(16)->Arg(64);
BENCHMARK(BM_Lookup<kRead>)->Arg(4)->Arg(16)->Arg(64);

}  // namespace

BENCHMARK_MAIN();
