#include "count/plan.hpp"

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "count/spool.hpp"
#include "count/tuning.hpp"
#include "kmer/minimizer.hpp"

namespace kmerbloom {
namespace {

// The partitions `occurrences` k-mer occurrences want on a thread with
// `cache` bytes of L2: enough that a partition's filter and table (about
// kAssumedBytesPerOccurrence per occurrence) fit kCacheMultiple times that
// cache, times partition_factor(k) for wider keys.
uint64_t partitions_wanted(uint64_t occurrences, unsigned k, uint64_t cache) {
  const double target = kCacheMultiple * static_cast<double>(cache);
  return static_cast<uint64_t>(std::ceil(static_cast<double>(occurrences) * kAssumedBytesPerOccurrence / target)) *
         partition_factor(k);
}

// Partitions for `occurrences` (0: unknown): those wanted, at least 64 and
// at most kMaxPartitions; 256 (times the factor) when the size is unknown.
// The pilot measures what the input really takes and splits the partitions
// that outgrow the cache (sweeps_for).
uint32_t partitions_for(uint64_t occurrences, unsigned k, uint64_t cache) {
  const uint64_t p = occurrences == 0 ? 256 * partition_factor(k) : partitions_wanted(occurrences, k, cache);
  return static_cast<uint32_t>(std::clamp<uint64_t>(p, 64, kMaxPartitions));
}

}  // namespace

// A worker's write buffer per partition: 8 MiB over all of them, 8 to 64
// KiB. Only a buffer's end is written at any time, so its size costs memory,
// not cache; each full buffer is a block, and a block is a put into the
// spool and, once spilled, a read of the file when its partition is counted.
// At 4 KiB (3.0 Gbp of pairs, 1,660 partitions and 2 threads) the run took
// 1.15x the wall of 8 KiB blocks, every pass slower.
uint32_t block_bytes_for(unsigned threads, uint32_t partitions) {
  const uint64_t b = (uint64_t{8} << 20) / (uint64_t{threads} * partitions);
  return static_cast<uint32_t>(std::clamp<uint64_t>(b, kMinBlockBytes, 64u << 10));
}

unsigned partition_factor(unsigned k) {
  const unsigned key_bytes = k <= 31 ? 8 : k <= 63 ? 16 : k <= 127 ? 32 : 64;
  return (key_bytes + 4 + 11) / 12;
}

uint64_t counting_bytes_per_thread(uint64_t cache_bytes, uint64_t first_sightings_bytes, double mean_occurrences) {
  const double n = 2 * mean_occurrences;  // the larger partitions
  const double target = kCacheMultiple * static_cast<double>(cache_bytes);
  const double filter_and_table = std::min(kReservedFilterTableBytes * n, 2 * kSweepTrigger * target);
  const double rest = n * (kAssumedDataBytes + kAssumedSolidBytes + kAssumedRecordBytes) +
                      std::min(static_cast<double>(first_sightings_bytes), 8 * n);
  return std::max<uint64_t>(uint64_t{1} << 20, static_cast<uint64_t>(filter_and_table + rest));
}

namespace {

// The plan's shape and buffers for o's threads, before the budget is
// checked; `shallow`: threads + 2 batches in flight whatever the budget.
CountPlan lay_out(const CountOptions& o, const CountEstimate& e, bool shallow = false) {
  CountPlan p;
  p.gated = o.gated();
  p.cache_bytes = e.cache_bytes ? e.cache_bytes : kFallbackCache;
  const uint64_t sized_by = e.occurrences ? e.occurrences : e.input_bytes;
  p.partitions = e.bins ? e.bins : partitions_for(sized_by, o.k, p.cache_bytes);
  // Never for the bin step (its bins are given) nor for bin files, whose
  // records carry no tags, even when CountOptions::sweep_tags asks.
  const bool outgrown = sized_by == 0 || partitions_wanted(sized_by, o.k, p.cache_bytes) > kMaxPartitions;
  p.tagged = !e.from_bins && detail::tuning_of(o).sweep_tags.value_or(e.bins == 0 && outgrown);
  p.grouped_runs = o.k <= kMaxSmallK && detail::tuning_of(o).sort_ranges.value_or(true);
  p.minimizer = minimizer_length(o.k);
  p.fpr = o.fpr > 0 ? o.fpr : kExactFpr;
  p.first_share = 0.8;
  p.block_bytes = block_bytes_for(o.threads, p.partitions);
  p.tmp_dir = Spool::resolve_dir(o.tmp_dir);
  // Batches in flight (an arena up to twice the bases each) and per worker
  // its scratch, thread stack and allocator arena.
  const uint64_t least = o.threads + 2,
                 ahead = std::max(least, std::min(kMaxReadAheadBatches, kReadAheadBases / std::max<uint64_t>(1, o.batch_bases)));
  const bool deep = !shallow && (!o.max_memory || (ahead - least) * o.batch_bases * 2 <= o.max_memory / kReadAheadShare);
  p.read_batches = static_cast<uint32_t>(deep ? ahead : least);
  p.read_buffers = e.from_bins ? 0 : p.read_batches * o.batch_bases * 2 + o.threads * (8u << 20);
  p.write_buffers = e.from_bins ? 0 : uint64_t{o.threads} * p.partitions * p.block_bytes;
  const double occurrences = static_cast<double>(e.occurrences ? e.occurrences : e.input_bytes);
  p.working_bytes = uint64_t{o.threads} *
                    counting_bytes_per_thread(p.cache_bytes, detail::tuning_of(o).first_sightings_bytes.value_or(kFirstSightingsBytes),
                                              occurrences / p.partitions);
  p.merge_buffers = uint64_t{p.partitions} * (kRunBlockBytes + (kMergeRanges + 1) * sizeof(uint32_t));
  return p;
}

}  // namespace

CountPlan plan_count(const CountOptions& o, const CountEstimate& e) {
  CountPlan p = lay_out(o, e);
  if (!o.max_memory) {
    p.spool_memory = detail::tuning_of(o).spool_memory.value_or(default_spool_memory(e.available_memory));
    return p;
  }
  // The deep read-ahead only where it fits beside the rest, so that any -M
  // at or above the least one named below is taken.
  if (p.buffer_bytes() + kLeastSpoolMemory > o.max_memory) p = lay_out(o, e, true);
  const uint64_t fixed = p.buffer_bytes();
  if (fixed + kLeastSpoolMemory > o.max_memory) {
    // The most threads whose buffers the budget holds: a job given many
    // cores and a small -M learns what to change either way.
    unsigned fits = o.threads - 1;
    for (CountOptions fewer = o; fits > 0; --fits) {
      fewer.threads = fits;
      if (lay_out(fewer, e, true).buffer_bytes() + kLeastSpoolMemory <= o.max_memory) break;
    }
    const std::string budget =
        o.max_memory < (uint64_t{1} << 20) ? std::to_string(o.max_memory) + " bytes" : format_megabytes(o.max_memory);
    throw BudgetError("cannot count in " + budget + ": the buffers of " + plural(o.threads, "thread") + " need " +
                          format_megabytes(fixed + kLeastSpoolMemory) + " (reading " + format_megabytes(p.read_buffers) +
                          ", " + std::to_string(p.partitions) + " partitions " +
                          format_megabytes(p.write_buffers + p.merge_buffers) + ", counting " +
                          format_megabytes(p.working_bytes) + ", the least spool " + format_megabytes(kLeastSpoolMemory) + ")",
                      fixed + kLeastSpoolMemory,
                      fits ? ", or use at most " + std::to_string(fits) + " threads (-t " + std::to_string(fits) + ")" : "");
  }
  p.spool_memory = o.max_memory - fixed;
  return p;
}

uint64_t default_spool_memory(uint64_t available) {
  return std::clamp(available / 4, kDefaultSpoolMemory, kMaxDefaultSpoolMemory);
}

uint32_t sweeps_for(uint64_t occurrences, double distinct_ratio, double table_ratio, unsigned k, uint64_t cache,
                    bool tagged) {
  const PartitionSizing s = size_partition(occurrences, distinct_ratio, table_ratio);
  const double bytes = static_cast<double>(s.bloom_capacity) * kFilterBytesPerKey +
                       static_cast<double>(s.table_keys) * kTableBytesPerKey * partition_factor(k);
  const double target = kCacheMultiple * static_cast<double>(cache);
  // Split only past kSweepTrigger times the target: each sweep decodes and
  // hashes every k-mer of the partition again (measured: three sweeps of a
  // partition 2.4 times past the target cost 1.8x its unsplit count);
  // past the target when a sweep reads only its tagged records.
  if (bytes <= (tagged ? 1.0 : kSweepTrigger) * target) return 1;
  return static_cast<uint32_t>(std::min(256.0, std::ceil(bytes / target)));
}

PartitionSizing size_partition(uint64_t occurrences, double distinct_ratio, double table_ratio) {
  auto spread = [](double x) { return static_cast<uint64_t>(std::ceil(x + 3 * std::sqrt(x))); };
  const double n = static_cast<double>(occurrences);
  PartitionSizing s;
  s.bloom_capacity = std::max<uint64_t>(64, spread(n * std::clamp(distinct_ratio, 0.0, 1.0)));
  s.table_keys = std::max<uint64_t>(64, spread(n * std::clamp(table_ratio, 0.0, 1.0)));
  return s;
}

}  // namespace kmerbloom
