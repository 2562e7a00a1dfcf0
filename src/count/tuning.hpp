// The knobs of count_kmers() that tests and benchmarks turn
// (CountOptions::tuning). Private to the library, not installed: a user's
// count takes the plan's choices.
#pragma once

#include <cstdint>
#include <optional>

#include "count/counter.hpp"

namespace kmerbloom::detail {

struct CountTuning {
  // temporary files count as a full disk past this many bytes.
  uint64_t tmp_disk_limit = ~uint64_t{0};
  // the L2 cache bytes a counting thread has, which the
  // partitions are sized for; 0: the machine's (common/machine.hpp).
  uint64_t cache_bytes = 0;
  // spooled records tagged for sweeps (CountPlan::tagged) or not;
  // unset: as the plan decides.
  std::optional<bool> sweep_tags;
  // the merge sorts each key range of 64-bit keys, the partitions'
  // runs grouped by range (CountPlan::grouped_runs), or merges their sorted
  // runs with a loser tree (as for wider keys); unset: sorts.
  std::optional<bool> sort_ranges;
  // the bytes of sort buffers a merging thread holds (a range of
  // more k-mers than a sixteenth of it is sorted in slices); unset: planned.
  std::optional<uint64_t> sort_bytes;
  // the spool's memory budget without -M (what goes past it is
  // written to the temporary file); unset: planned (default_spool_memory).
  std::optional<uint64_t> spool_memory;
  // Exact mode: a thread keeps at most this many bytes of a partition's
  // turned-away first sightings (8 a k-mer for k <= 31); a partition with
  // more is recounted (a second read of its occurrences) instead, so a
  // skewed partition cannot take more memory than this. Unset: with -M,
  // kFirstSightingsBytes; without, at least that and as many as the
  // partition holds occurrences (a k-mer is turned away at most once), so
  // that no partition is recounted: sized from the pilot's ratios, the
  // list had overflowed in 226 of 756 partitions of HiFi-like reads
  // (1.2 Gbp at 99%; their distinct k-mers passed the filter's planned
  // capacity), each then read and hashed twice.
  std::optional<uint64_t> first_sightings_bytes;
};

// o's tuning, or the defaults when it has none.
const CountTuning& tuning_of(const CountOptions& o);
// o's tuning to change: a copy of it (of the defaults when none) that o
// then holds alone, so that copies of o made before keep theirs.
CountTuning& tune(CountOptions& o);

}  // namespace kmerbloom::detail
