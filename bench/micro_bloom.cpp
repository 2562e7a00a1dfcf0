// Micro-benchmarks of BlockedBloom against a classic k-probe Bloom filter of
// the same size, for filters from L2-sized (256 KiB) to 1 GiB, 1 and 2
// threads, with and without software prefetching.
//
// Every operation processes a batch of kBatch keys: "plain" hashes a key and
// operates on it; "prefetch" hashes the whole batch, prefetches every key's
// cache lines (1 for the blocked filter, k for the classic one), then
// operates. Filters start about half full (random bits: the fill of a filter
// at its design capacity); test_and_set runs a fixed number of iterations so
// the fill drifts by at most ~10% before it is reset between runs.
// Each case runs 5 times; report the fastest (the machine may be shared).
// Time is CPU time per batch and thread: divide by kBatch for ns per key.
//
//   micro_bloom [--benchmark_filter=...] [--benchmark_format=json]
#include <benchmark/benchmark.h>
#include <sys/mman.h>


#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include "bloom/bloom.hpp"
#include "kmer/hash.hpp"

namespace {

using kmerbloom::BlockedBloom;
using kmerbloom::mix64;

constexpr unsigned kBatch = 16;
constexpr double kFpr = 0.01;
constexpr unsigned kBlockedHashes = 6;  // what for_capacity picks at 1%
constexpr unsigned kClassicHashes = 7;  // classic optimum at 1%: 6.6

inline uint64_t fastrange(uint64_t h, uint64_t n) {
  __extension__ typedef unsigned __int128 wide;
  return static_cast<uint64_t>((static_cast<wide>(h) * n) >> 64);
}

// A classic Bloom filter: k probes anywhere in m bits, positions by
// Kirsch-Mitzenmacher double hashing (h + i*h2) mapped with fastrange.
class ClassicBloom {
 public:
  // Allocated like BlockedBloom: 2 MiB aligned, transparent huge pages.
  ClassicBloom(uint64_t bytes, unsigned k) : nbits_(bytes * 8), k_(k) {
    void* p = nullptr;
    if (posix_memalign(&p, size_t{2} << 20, bytes) != 0) throw std::bad_alloc();
    if (bytes >= (size_t{2} << 20)) (void)madvise(p, bytes / (size_t{2} << 20) * (size_t{2} << 20), MADV_HUGEPAGE);
    words_.reset(static_cast<uint64_t*>(p));
    std::memset(words_.get(), 0, bytes);
  }
  bool test_and_set(uint64_t h) noexcept {
    const uint64_t h2 = mix64(h ^ 0x5bd1e9955bd1e995ULL) | 1;
    bool present = true;
    for (unsigned i = 0; i < k_; ++i) {
      const uint64_t pos = fastrange(h + i * h2, nbits_);
      std::atomic_ref<uint64_t> word(words_.get()[pos >> 6]);
      const uint64_t bit = uint64_t{1} << (pos & 63);
      if (word.load(std::memory_order_relaxed) & bit) continue;
      present = present && (word.fetch_or(bit, std::memory_order_relaxed) & bit) != 0;
    }
    return present;
  }
  bool contains(uint64_t h) const noexcept {
    const uint64_t h2 = mix64(h ^ 0x5bd1e9955bd1e995ULL) | 1;
    for (unsigned i = 0; i < k_; ++i) {
      const uint64_t pos = fastrange(h + i * h2, nbits_);
      if ((std::atomic_ref<uint64_t>(words_.get()[pos >> 6]).load(std::memory_order_relaxed) &
           (uint64_t{1} << (pos & 63))) == 0)
        return false;
    }
    return true;
  }
  void prefetch(uint64_t h) const noexcept {
    const uint64_t h2 = mix64(h ^ 0x5bd1e9955bd1e995ULL) | 1;
    for (unsigned i = 0; i < k_; ++i) __builtin_prefetch(words_.get() + (fastrange(h + i * h2, nbits_) >> 6), 1, 3);
  }
  uint64_t* data() noexcept { return words_.get(); }
  uint64_t bytes() const noexcept { return nbits_ / 8; }

 private:
  struct Free {
    void operator()(uint64_t* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<uint64_t[], Free> words_;
  uint64_t nbits_;
  unsigned k_;
};

// Random words: each bit set with probability 1/2.
void fill_half(uint64_t* w, uint64_t words, uint64_t seed) {
  for (uint64_t i = 0; i < words; ++i) w[i] = mix64(seed + i);
}

struct Blocked {
  explicit Blocked(uint64_t bytes) : f(bytes / 64, kBlockedHashes) {}
  void refill() { fill_half(f.words().data(), f.words().size(), 1); }
  uint64_t bits() const { return f.bits(); }
  BlockedBloom f;
};
struct Classic {
  explicit Classic(uint64_t bytes) : f(bytes, kClassicHashes) {}
  void refill() { fill_half(f.data(), f.bytes() / 8, 1); }
  uint64_t bits() const { return f.bytes() * 8; }
  ClassicBloom f;
};

// One filter per (type, size), built once and shared by runs and threads.
template <class F>
F& filter_of(uint64_t bytes) {
  static std::mutex mutex;  // both threads of a Threads(2) run get here
  static std::map<uint64_t, std::unique_ptr<F>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[bytes];
  if (!slot) {
    slot = std::make_unique<F>(bytes);
    slot->refill();
  }
  return *slot;
}

enum class Op { test_and_set, contains };

template <class F>
void run(benchmark::State& state, uint64_t bytes, Op op, bool prefetch) {
  F& filter = filter_of<F>(bytes);
  if (state.thread_index() == 0 && op == Op::test_and_set) filter.refill();
  uint64_t counter = (static_cast<uint64_t>(state.thread_index()) + 1) << 56;
  uint64_t found = 0;
  uint64_t h[kBatch];
  for (auto _ : state) {
    if (prefetch) {
      for (unsigned i = 0; i < kBatch; ++i) {
        h[i] = mix64(++counter);
        filter.f.prefetch(h[i]);
      }
      for (unsigned i = 0; i < kBatch; ++i)
        found += op == Op::contains ? filter.f.contains(h[i]) : filter.f.test_and_set(h[i]);
    } else {
      for (unsigned i = 0; i < kBatch; ++i) {
        const uint64_t x = mix64(++counter);
        found += op == Op::contains ? filter.f.contains(x) : filter.f.test_and_set(x);
      }
    }
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kBatch);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const std::pair<const char*, uint64_t> sizes[] = {
      {"256KiB", uint64_t{256} << 10}, {"4MiB", uint64_t{4} << 20}, {"64MiB", uint64_t{64} << 20}, {"1GiB", uint64_t{1} << 30}};
  for (const auto& [size_name, bytes] : sizes) {
    // test_and_set: total keys per run <= 10% of bits / k, so the fill stays in ~[50%, 60%].
    const auto batches = static_cast<benchmark::IterationCount>(
        std::min<uint64_t>(uint64_t{1} << 18, std::max<uint64_t>(256, bytes * 8 / 10 / kClassicHashes / kBatch / 2)));
    for (int threads : {1, 2}) {
      for (bool pf : {false, true}) {
        for (Op op : {Op::test_and_set, Op::contains}) {
          const std::string tail = std::string(op == Op::contains ? "contains" : "test_and_set") +
                                   (pf ? "/prefetch" : "/plain") + "/" + size_name;
          auto* b1 = benchmark::RegisterBenchmark(("blocked/" + tail).c_str(), [=](benchmark::State& s) {
            run<Blocked>(s, bytes, op, pf);
          });
          auto* b2 = benchmark::RegisterBenchmark(("classic/" + tail).c_str(), [=](benchmark::State& s) {
            run<Classic>(s, bytes, op, pf);
          });
          for (auto* b : {b1, b2}) {
            // Repetitions: on a shared machine the least disturbed one tells.
            b->Threads(threads)->Unit(benchmark::kNanosecond)->Repetitions(5);
            if (op == Op::test_and_set) b->Iterations(batches);
            else b->MinTime(0.1);
          }
        }
      }
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
