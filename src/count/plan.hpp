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
  uint64_t occurrences = 0;  // k-mer occurrences expected (the first file sampled); 0: one per input byte
  uint32_t bins = 0;         // partitions given (the bin step's B, or the bins a count takes); 0: from the size
  bool from_bins = false;    // the input is bin files: no reads are parsed or scattered
  uint64_t cache_bytes = 0;       // L2 bytes a counting thread has (common/machine.hpp); 0: kFallbackCache
  uint64_t available_memory = 0;  // MemAvailable; 0: unknown
};

struct CountPlan {
  bool gated = true;       // a Bloom filter stands before each partition's table
  uint32_t partitions = 0; // minimizer partitions
  // Spooled records carry their minimizer's tag (count/scatter.hpp): the
  // input holds more occurrences than kMaxPartitions partitions fit the
  // cache with, or its size is unknown, so that partitions are expected
  // to be counted in sweeps, and a sweep steps over the records of the
  // others instead of decoding and hashing their k-mers. One byte a record
  // (some 9% of the spooled bytes of 150 bp reads) otherwise not spent.
  bool tagged = false;
  // A partition's reported k-mers are grouped by merge range, not sorted:
  // the merge sorts each range of every partition at once (64-bit keys,
  // k <= 31); wider keys are sorted in their runs and merged.
  bool grouped_runs = false;
  unsigned minimizer = 0;  // minimizer length m
  uint64_t cache_bytes = 0;       // L2 bytes of a counting thread the partitions are sized for
  double fpr = 0;          // compound false-positive target of each partition's filter
  double first_share = 0;  // the first layer's share of it
  uint32_t block_bytes = 0;       // a worker's write buffer per partition
  uint32_t read_batches = 0;      // batches in flight between the reader and the workers
  uint64_t read_buffers = 0;      // those batches, per-thread scratch
  uint64_t write_buffers = 0;     // threads x partitions x block_bytes
  uint64_t working_bytes = 0;     // per-partition filter, table and loaded data, all threads
  uint64_t merge_buffers = 0;     // the merge's read-back buffers, ranges ahead of the writer, range starts
  uint64_t spool_memory = 0;      // spooled blocks held in memory at most; beyond, temporary files
  std::string tmp_dir;
  // What the run holds besides the spool's blocks; -M is this and the spool.
  uint64_t buffer_bytes() const { return read_buffers + write_buffers + working_bytes + merge_buffers; }
};

// The least spool memory a -M must leave, for the blocks in flight.
inline constexpr uint64_t kLeastSpoolMemory = uint64_t{1} << 20;

// Default spool memory without -M (default_spool_memory): a quarter of the
// memory available when the run starts, at least 32 MiB and at most 768 MiB,
// so that the partitions of a bacterial or small eukaryote read set never
// reach the disk while the peak of a large genome's count stays under 1 GB.
inline constexpr uint64_t kDefaultSpoolMemory = uint64_t{32} << 20;
inline constexpr uint64_t kMaxDefaultSpoolMemory = uint64_t{768} << 20;
uint64_t default_spool_memory(uint64_t available_memory);

// Partition sizing for the cache. A partition's filter and table should fit
// kCacheMultiple times a counting thread's L2: measured on a 1 MiB L2 core
// (docs/scale.md), the counting pass takes the same time for 0.2 to 3 MB of
// filter and table per partition (prefetching hides the L3) and 1.7x as long
// at 6.5 MB, 2.2x at 13 MB. Before the input is read, a k-mer occurrence is
// taken to bring kAssumedBytesPerOccurrence bytes (25x Illumina reads: 0.11
// distinct k-mers and 0.05 table keys per occurrence); the pilot then
// measures it.
inline constexpr double kCacheMultiple = 2.0;
inline constexpr double kAssumedBytesPerOccurrence = 1.6;
inline constexpr uint64_t kFallbackCache = uint64_t{1} << 20;  // when the machine says nothing
inline constexpr double kFilterBytesPerKey = 1.0;   // first layer at the exact mode's 3%, blocked
inline constexpr double kTableBytesPerKey = 26.0;   // 13-byte slots (a sketch byte), <= 70% full, capacity a power of two
inline constexpr double kSweepTrigger = 4.0;        // sweeps_for splits past this many times the target
inline constexpr uint32_t kMaxPartitions = 4096;    // minimizer partitions at most, whatever k
// Default compound false-positive rate of the exact mode's per-partition
// filters (a false positive costs a singleton one table slot).
inline constexpr double kExactFpr = 0.03;
// Bases the reading pass keeps in flight (PipelineOptions::batches): the
// reader shares the cores with the workers, and with threads + 2 batches of
// count's 512 K bases the workers waited for it while it was descheduled
// (pass 1 of 0.75 and 3.0 Gbp of pairs at 2 threads kept 1.72-1.76 cores
// busy; with 8 M bases in flight 1.84-1.91, and the pass on 3.0 Gbp took
// 17.6-19.1 s against 18.9-22.8 s). Only threads + 2 under a -M the extra
// batches would take more than a kReadAheadShare-th of.
inline constexpr uint64_t kReadAheadBases = uint64_t{8} << 20;
inline constexpr uint64_t kReadAheadShare = 16;
inline constexpr uint64_t kMaxReadAheadBatches = 32;  // however small the batches
// A worker's write buffer per partition (a spooled block) at least.
inline constexpr uint32_t kMinBlockBytes = 8u << 10;
// A worker's write buffer per partition: 8 MiB over all of them, within
// kMinBlockBytes and 64 KiB.
uint32_t block_bytes_for(unsigned threads, uint32_t partitions);
// Bytes of the solid-k-mer run blocks read back by the merge.
inline constexpr uint32_t kRunBlockBytes = 16u << 10;
// The merge's key ranges at most (by the first 5 bases), merged in parallel.
inline constexpr uint32_t kMergeRanges = 1024;
// Sort buffers a merging thread may hold without -M (kmerbloom's own runs
// of 3 Gbp of pairs need 2.3 MB a range; 30x human some 40 MB, sorted in
// slices of this).
inline constexpr uint64_t kMergeSortBytes = uint64_t{16} << 20;
// The bits of a k-mer that name its merge range: those of its first min(k, 5) bases.
inline constexpr unsigned merge_range_bits(unsigned k) { return 2 * (k < 5 ? k : 5); }

// How many times the partitions of k <= 31 a run at k takes (1, 2, 3, 6): a
// table slot holds the key's words and a 32-bit count, 12 bytes for one word
// and 68 for eight, and a partition's table should keep its size.
unsigned partition_factor(unsigned k);

// What one counting thread may hold at once (CountPlan::working_bytes is this
// times the threads), for partitions of twice the mean occurrences: their
// filter and table (kReservedFilterTableBytes an occurrence, at most twice
// kSweepTrigger times the cache target), their data, reported k-mers and
// distinct records, and the first sightings (8 bytes an occurrence, at
// most first_sightings_bytes); at least 1 MiB. The bytes an occurrence are those of HiFi-like reads, the
// densest partitions met (1.2 Gbp at 99%: 25 MB a thread measured, the plan
// 24 MB; 3.0 Gbp of 150 bp pairs 12 MB, the plan 22 MB); the statistics
// report both (memory_bytes.counting, .counting_planned).
inline constexpr double kReservedFilterTableBytes = 4.3;  // 0.44 distinct and 0.17 table keys an occurrence, sketch included
inline constexpr double kAssumedDataBytes = 1.2;          // 2-bit super-k-mers, their headers
inline constexpr double kAssumedSolidBytes = 1.6;         // 0.1 reported k-mers an occurrence, 16 bytes each
inline constexpr double kAssumedRecordBytes = 3.0;        // distinct records: 28-40 bytes a record of 10-14 k-mers
uint64_t counting_bytes_per_thread(uint64_t cache_bytes, uint64_t first_sightings_bytes, double mean_occurrences);

// What is known before the reads are read: the input's bytes, its k-mer
// occurrences sampled from the first file's first 8 M bases (none for bin
// files: count_kmers takes theirs from the bins' index), the L2 cache of a
// thread, the memory available. count_kmers plans from it.
CountEstimate estimate_count(const CountOptions& options);

// Throws BudgetError when options.max_memory cannot hold the buffers.
CountPlan plan_count(const CountOptions& options, const CountEstimate& estimate);

// Sweeps of a partition that holds `occurrences` at the measured ratios: 1
// while its filter and table fit kSweepTrigger times the target (the target
// itself when the records are tagged: a sweep then reads only its own
// records), else enough sweeps (each takes the k-mers of one hash range, or
// the records of one tag range, with a filter and table of its own) that
// each fits it; at most 256.
uint32_t sweeps_for(uint64_t occurrences, double distinct_ratio, double table_ratio, unsigned k, uint64_t cache,
                    bool tagged = false);

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
