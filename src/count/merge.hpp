// Pass 3 of count_kmers() (count/engine.cpp): every partition's sorted solid
// k-mers, a run in the spool, merged into one sorted stream to the sink.
// SortedRuns says where the runs are; merge_runs() cuts the key space into
// ranges by the first min(k, 5) bases, which the threads take in turn, each
// range merged by a loser tree over the partitions' stretches of it
// (RangeMerger) or, for 64-bit keys grouped by range, sorted with a radix
// sort (RangeSorter), and the ranges go to the sink in key order (or each
// where its first k-mer's index puts it, for an output written in place).
// Private to the library. docs/partitioned-counting.md tells the design;
// bench/micro_merge.cpp times it alone.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "count/counter.hpp"
#include "count/plan.hpp"
#include "count/spool.hpp"

namespace kmerbloom::detail {

// Every partition's run of sorted (k-mer, count) entries in the spool: its
// blocks, where each key range of the merge starts in it, and the bytes its
// counts take. write() fills partition p's run (each partition once, from
// any thread, partitions apart); the merge then only reads.
//
// An entry is a 64-bit key without the bits that name its range (the range
// is where the merge reads it) or a whole wider word, then the count in as
// many bytes as the run's largest takes. On 25x Illumina pairs of a 120 Mbp
// genome, 8 bytes an entry where whole keys and counts took 12: the runs
// were 1.75 of the 3.8 GB the spool took in.
template <class W>
class SortedRuns {
 public:
  // block_bytes: the spool's slot (CountPlan::block_bytes); a run block
  // takes at most that and kRunBlockBytes.
  SortedRuns(unsigned k, uint32_t partitions, uint32_t block_bytes);

  // Partition p's solid k-mers, sorted by key, into the spool.
  void write(Spool& spool, uint32_t p, const std::vector<std::pair<W, uint32_t>>& solid);

  unsigned k() const { return k_; }
  uint32_t partitions() const { return partitions_; }
  uint32_t block_bytes() const { return block_bytes_; }
  // Key ranges of the merge: 4^min(k, 5) (kMergeRanges at most). A run is
  // sorted, so range r of it is one stretch of entries,
  // [range_start(p, r), range_start(p, r + 1)).
  uint32_t ranges() const { return uint32_t{1} << range_bits(); }
  unsigned range_bits() const { return merge_range_bits(k_); }
  uint32_t range_start(uint32_t p, uint32_t r) const { return starts_[size_t{p} * (ranges() + 1) + r]; }
  uint64_t range_size(uint32_t r) const;
  // The widest entry: a whole word and a 32-bit count.
  static constexpr size_t kEntry = sizeof(W) + sizeof(uint32_t);
  // An entry's key bytes: for 64-bit keys those of the bits below the
  // range's (none for k <= 5), else the whole word.
  size_t key_bytes() const;
  size_t entry_bytes(uint32_t p) const { return key_bytes() + count_bytes_[p]; }
  // An entry's count is read as a whole word and masked to its bytes (the
  // buffers have a word of room past their entries): a copy of 1 to 3 bytes
  // into a word stalls the load that follows it.
  uint32_t count_mask(uint32_t p) const { return static_cast<uint32_t>((uint64_t{1} << (8 * count_bytes_[p])) - 1); }
  size_t block_entries(uint32_t p) const { return std::min<size_t>(block_bytes_, kRunBlockBytes) / entry_bytes(p); }
  const Spool::Block& block(uint32_t p, uint64_t entry) const { return blocks_[p][entry / block_entries(p)]; }
  // Reads entries of partition p's run from `at` into buf: at most `max`,
  // up to `end` and within at's block; returns how many.
  size_t read(const Spool& spool, uint32_t p, uint64_t at, uint64_t end, uint64_t max, uint8_t* buf) const;

 private:
  uint32_t range_of(const W& key) const {
    return static_cast<uint32_t>(static_cast<unsigned>(key >> (2 * k_ - range_bits())));
  }
  unsigned k_;
  uint32_t partitions_, block_bytes_;
  std::vector<std::vector<Spool::Block>> blocks_;  // per partition
  std::vector<uint32_t> starts_;                   // range_start of every run
  std::vector<uint8_t> count_bytes_;               // of a run's counts, per partition
};

struct MergeSettings {
  unsigned threads = 1;
  uint64_t max_memory = 0;             // -M (0: none): the merge's buffers stay within the plan's
  bool sorted = false;                 // 64-bit keys grouped by range: sort each range (CountPlan::grouped_runs)
  std::optional<uint64_t> sort_bytes;  // a sorter's slice (CountOptions::sort_bytes, for tests)
};

// Merges the runs into the sink in k-mer order, on s.threads threads (the
// caller's one of them); `done(n)`, when given, is told of every n k-mers
// out, from any thread. Returns the k-mers written and how the ranges were
// put in order; the first exception of any thread (the sink's among them)
// is rethrown once all have stopped.
template <class W>
MergeReport merge_runs(const SortedRuns<W>& runs, const Spool& spool, const PackedKmerSink& sink,
                       const MergeSettings& s, uint64_t& solid, const std::function<void(uint64_t)>& done = {});

}  // namespace kmerbloom::detail
