// Micro-benchmark of count's pass 3 alone (count/merge.hpp): 4 M distinct
// random k-mers spread over P partitions' sorted runs in the spool (held in
// memory), merged on one thread into a sink that only counts them. For
// k = 31 both ways a key range is put in order: sorted (RangeSorter, what
// count does for k <= 31) and merged by the loser tree (RangeMerger, what it
// does past 31 bases); for k = 45 (128-bit keys) the loser tree. P = 64 is a
// small input's plan, 1,024 and 4,096 are those of 3 and 12 Gbp of reads.
//
//   micro_merge [--benchmark_filter=...] [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "count/merge.hpp"
#include "kmer/kmer.hpp"

namespace {

using kmerbloom::PackedKmers;
using kmerbloom::PackedKmerSink;
using kmerbloom::Spool;
using kmerbloom::SpoolOptions;
using kmerbloom::detail::MergeSettings;
using kmerbloom::detail::SortedRuns;

constexpr uint64_t kKmers = 4'000'000;

template <class W>
struct Runs {
  Spool spool{SpoolOptions{.memory_budget = uint64_t{4} << 30}};
  SortedRuns<W> runs;
  Runs(unsigned k, uint32_t partitions) : runs(k, partitions, 16u << 10) {
    std::mt19937_64 rng(7);
    std::vector<std::vector<std::pair<W, uint32_t>>> parts(partitions);
    for (uint64_t i = 0; i < kKmers; ++i) {
      W key{};
      if constexpr (std::is_same_v<W, uint64_t>) key = rng() >> (64 - 2 * k);
      else key = (W{rng()} << 64 | W{rng()}) >> (128 - 2 * k);
      parts[rng() % partitions].emplace_back(key, 2 + static_cast<uint32_t>(rng() % 60));
    }
    for (uint32_t p = 0; p < partitions; ++p) {
      auto& v = parts[p];
      std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      v.erase(std::unique(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), v.end());
      runs.write(spool, p, v);
    }
  }
};

template <class W>
Runs<W>& runs_of(unsigned k, uint32_t partitions) {
  static std::map<std::pair<unsigned, uint32_t>, std::unique_ptr<Runs<W>>> made;
  auto& r = made[{k, partitions}];
  if (!r) r = std::make_unique<Runs<W>>(k, partitions);
  return *r;
}

template <class W>
void BM_Merge(benchmark::State& state, unsigned k, bool sorted) {
  Runs<W>& r = runs_of<W>(k, static_cast<uint32_t>(state.range(0)));
  uint64_t out = 0;
  PackedKmerSink sink;
  sink.add = [&](const PackedKmers& chunk) { out += chunk.n; };
  const MergeSettings s{.threads = 1, .max_memory = 0, .sorted = sorted};
  for (auto _ : state) {
    uint64_t solid = 0;
    kmerbloom::detail::merge_runs(r.runs, r.spool, sink, s, solid);
    benchmark::DoNotOptimize(solid);
  }
  state.SetItemsProcessed(static_cast<int64_t>(out));
}

void BM_Sort31(benchmark::State& state) { BM_Merge<uint64_t>(state, 31, true); }
void BM_LoserTree31(benchmark::State& state) { BM_Merge<uint64_t>(state, 31, false); }
void BM_LoserTree45(benchmark::State& state) { BM_Merge<kmerbloom::u128>(state, 45, false); }

BENCHMARK(BM_Sort31)->Arg(64)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoserTree31)->Arg(64)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoserTree45)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
