// The count plan: how many partitions, which buffers, how much memory the
// spool may hold, which gate and rate. A pure function of the options and
// of what is known about the input before it is read; unit-tested apart
// from the engine (test/unit/test_count_plan.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "count/counter.hpp"

namespace kmerbloom {

// What is known before reading.
struct CountEstimate {
  uint64_t input_bytes = 0;  // sum of the input files' sizes; 0 when unknown (stdin, pipes)
  uint32_t bins = 0;         // partitions given (the bin step's B, or the bins a count takes); 0: from the size
  bool from_bins = false;    // the input is bin files: no reads are parsed or scattered
};

struct CountPlan {
  bool gated = true;       // a Bloom filter stands before each partition's table
  bool one_pass = false;   // counts are table count + 1, first sightings not settled
  uint32_t partitions = 0; // minimizer partitions
  unsigned minimizer = 0;  // minimizer length m
  double fpr = 0;          // compound false-positive target of each partition's filter
  double first_share = 0;  // the first layer's share of it
  uint32_t block_bytes = 0;       // a worker's write buffer per partition
  uint64_t read_buffers = 0;      // batches in flight, per-thread scratch
  uint64_t write_buffers = 0;     // threads x partitions x block_bytes
  uint64_t working_bytes = 0;     // per-partition filter, table and loaded data, all threads
  uint64_t merge_buffers = 0;     // the merge's read-back buffer per partition
  uint64_t spool_memory = 0;      // spooled blocks held in memory at most; beyond, temporary files
  std::string tmp_dir;
};

// Default spool memory without -M: small inputs never touch the disk, large
// ones keep the peak near 100 MB.
inline constexpr uint64_t kDefaultSpoolMemory = uint64_t{32} << 20;
// Default compound false-positive rate of the exact mode's per-partition
// filters (a false positive costs a singleton one table slot).
inline constexpr double kExactFpr = 0.03;
// Bytes of the solid-k-mer run blocks read back by the merge.
inline constexpr uint32_t kRunBlockBytes = 16u << 10;

// How many times the partitions of k <= 31 a run at k takes (1, 2, 3, 6): a
// table slot holds the key's words and a 32-bit count, 12 bytes for one word
// and 68 for eight, and a partition's table should keep its size.
unsigned partition_factor(unsigned k);

// Throws BudgetError when options.max_memory cannot hold the buffers.
CountPlan plan_count(const CountOptions& options, const CountEstimate& estimate);

// First-layer capacity and table size of one partition holding `occurrences`
// k-mer occurrences, from the ratios of distinct k-mers and of table keys to
// occurrences measured so far: the expectation plus three standard
// deviations, at least 64.
struct PartitionSizing {
  uint64_t bloom_capacity = 0;
  uint64_t table_keys = 0;
};
PartitionSizing size_partition(uint64_t occurrences, double distinct_ratio, double table_ratio);

}  // namespace kmerbloom
