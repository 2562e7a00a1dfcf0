// kmerbloom count: the engine behind the subcommand, callable without argv.
//
// The input is read once: reads are cut into super-k-mers (kmer/minimizer.hpp)
// spread over P minimizer partitions (held in memory within a budget, spooled
// to a temporary file beyond it: count/spool.hpp); each partition is then
// counted on its own, in a core's cache (count/partition_count.hpp: no gate,
// or the Bloom gate with exact counts), and the partitions' sorted solid
// k-mers are merged into the sorted output. Design: docs/partitioned-counting.md;
// sizing: docs/gate-sizing.md.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/bases.hpp"
#include "common/error.hpp"
#include "seqio/pipeline.hpp"

namespace kmerbloom {

namespace detail {
struct CountTuning;
}

enum class GateMode { automatic, none, bloom };

// Bytes of turned-away first sightings a counting thread keeps under -M
// (detail::CountTuning::first_sightings_bytes, count/tuning.hpp).
inline constexpr uint64_t kFirstSightingsBytes = uint64_t{2} << 20;

struct CountOptions : ReadSetOptions {
  CountOptions() { batch_bases = 1u << 19; }
  uint32_t min_count = 2;  // k-mers below are not reported
  uint32_t max_count = std::numeric_limits<uint32_t>::max();
  uint64_t histo_max = 10000;   // dense histogram rows 1..histo_max, then one overflow row
  uint64_t expected_kmers = 0;  // distinct k-mers expected; 0 = estimate them
  GateMode gate = GateMode::automatic;  // automatic: Bloom gate when min_count >= 2
  double fpr = 0;               // Bloom target false-positive rate; 0 = kExactFpr
  double bloom_growth = 2.0;
  // Scatter/gather: count only the k-mers of partition `partition` out of
  // `partitions` (by partition_of); the partitions are disjoint and together
  // hold every k-mer, so their outputs merge into the unpartitioned result.
  uint32_t partition = 0;
  uint32_t partitions = 1;
  // Where count_kmers(options, hooks) writes the reported k-mers itself:
  // a path ("-": standard output; a name ending in .gz is gzip-compressed),
  // in output_format, one of kCountFormats (formats/count_writer.hpp: tsv,
  // fasta, kff), or, empty, the one the name says (count_format_named_by).
  std::string output = "-";
  std::string output_format;
  // The knobs tests and benchmarks turn (count/tuning.hpp, private to the
  // library): none for a user, who gets the plan's choices.
  std::shared_ptr<detail::CountTuning> tuning;

  // Throws std::invalid_argument naming the first bad option.
  void validate() const;
  bool gated() const { return gate == GateMode::bloom || (gate == GateMode::automatic && min_count >= 2); }

};

struct BloomReport {
  bool used = false;
  double target_fpr = 0;
  double estimated_fpr = 0;         // compound, from the final fill
  uint64_t bytes = 0;
  uint64_t keys_inserted = 0;       // first sightings
  uint64_t gate_rejected = 0;       // occurrences the gate kept out of the table
  struct Layer {
    uint64_t capacity, bits, keys, bits_set;
    unsigned hashes;
    double target_fpr, estimated_fpr;
  };
  std::vector<Layer> layers;
};

// How the partitions' filters and tables were sized: from the pilot (the first
// partitions, counted before the others) or from --expected; there is no
// separate sizing pass. docs/gate-sizing.md.
struct SizingReport {
  bool ran = false;
  double distinct = 0;          // F0 estimate
  double singletons = 0;        // f1 estimate (not measured by the pilot: 0)
  double relative_std_error = 0;
  bool exact = false;           // the pilot counted every partition: distinct is a count
  uint64_t bloom_capacity = 0;  // keys the first Bloom layer was sized for
  uint64_t table_keys = 0;      // keys the table was sized for
  double fpr = 0;               // Bloom target compound rate used
  double first_layer_share = 0; // share of it the first layer takes (0: the classic split)
  uint64_t planned_bytes = 0;   // filter + table + buffers, as planned
  std::string source;           // "pilot partitions" or "--expected"
};

// The minimizer partitions.
struct PartitionReport {
  uint32_t count = 0;           // partitions
  unsigned minimizer = 0;       // minimizer length
  double mean_kmers = 0;        // k-mer occurrences per partition
  uint64_t max_kmers = 0;       // in the most loaded partition
  uint32_t max_index = 0;       // which one
  uint64_t max_table_keys = 0;  // its table keys
  uint64_t max_bloom_capacity = 0;  // its first Bloom layer's capacity
  uint64_t cache_bytes = 0;     // L2 bytes a thread, the partitions were sized for
  std::string cache_source;     // where that figure came from (common/machine.hpp)
  uint32_t split = 0;           // partitions counted in more than one sweep (outgrew the cache)
  uint32_t max_sweeps = 1;      // sweeps of the most split one
  bool tagged = false;          // sweeps read only their records (CountPlan::tagged)
  uint32_t recounted = 0;       // exact: partitions read twice, their first sightings past the list
};

// Where the partitions' data waited between the passes.
struct SpoolReport {
  std::string dir;              // temporary files
  uint64_t memory_budget = 0;   // bytes kept in memory at most
  uint64_t memory_peak = 0;     // bytes kept in memory at once, at most
  uint64_t disk_bytes = 0;      // bytes written to temporary files
  // The -M under which this run would have kept all its blocks in memory:
  // the planned buffers and the most the spool's blocks held at once, had
  // none gone to the file.
  uint64_t hold_budget = 0;
};

// How the merge put the key ranges in order.
struct MergeReport {
  uint32_t ranges = 0;   // key ranges, by the first min(k, 5) bases
  bool sorted = false;   // each sorted whole (k <= 31), else merged from sorted runs
  uint64_t sliced = 0;   // ranges sorted in slices, past a thread's sort buffers
};

struct CountResult {
  InputSummary input;
  SizingReport sizing;
  uint64_t distinct = 0;    // distinct k-mers
  uint64_t solid = 0;       // reported: min_count <= count <= max_count
  uint64_t singletons = 0;  // distinct k-mers seen once
  uint64_t max_count = 0;   // largest count of any k-mer
  // histogram[c] = number of distinct k-mers seen exactly c times, for
  // 1 <= c <= histo_max; histogram[histo_max + 1] = those seen more often.
  std::vector<uint64_t> histogram;
  uint64_t table_bytes = 0;
  // The counting threads' working memory: the most each held at once,
  // summed, and what the plan set aside for it (the partitions are swept to
  // fit it under -M).
  uint64_t counting_bytes = 0, counting_bytes_planned = 0;
  uint64_t table_capacity = 0;
  uint64_t table_keys = 0;
  double table_load = 0;
  unsigned passes = 1;      // reads of the input
  BloomReport bloom;        // layers summed over the partitions' filters
  PartitionReport partitions;
  MergeReport merge;
  SpoolReport spool;
  std::vector<double> pass_seconds;
};

// The partition (0..partitions-1) of a k-mer with hash h = hash_kmer(kmer):
// a second mix, so that a partition's k-mers still spread over the whole table
// (placed by the top bits of h) and over its Bloom filter's blocks.
inline uint32_t partition_of(uint64_t h, uint32_t partitions) {
  const __uint128_t x = static_cast<__uint128_t>(h * 0x9e3779b97f4a7c15ULL ^ (h >> 29)) * partitions;
  return static_cast<uint32_t>(x >> 64);
}

// Receives reported k-mers in increasing lexicographic order.
using KmerSink = std::function<void(std::string_view kmer, uint64_t count)>;

// The same, a chunk at a time and packed (PackedKmers: as KFF stores them),
// for writers that need no letters or format many at once. `start` is called
// once before the first chunk with a bound on every count to come (the
// largest count met, held to max_count): a KFF writer sizes its counts by it.
struct PackedKmerSink {
  std::function<void(uint64_t largest_count)> start;
  std::function<void(const PackedKmers& chunk)> add;
  // Optional, both or neither: format turns a chunk into the output's bytes
  // and may run on several threads at once; write then takes those bytes, in
  // order, instead of add taking the chunk.
  std::function<void(const PackedKmers& chunk, std::string& bytes)> format;
  std::function<void(std::string_view bytes)> write;
  // Optional, both or neither: begin_in_place(total) after start, true when
  // the output takes its chunks in place (KmerCountWriter::begin_in_place);
  // then write_at(first, chunk, scratch) gets every chunk instead of add or
  // write, from the merging threads at once, with the index of its first
  // k-mer in the output.
  std::function<bool(uint64_t total)> begin_in_place;
  std::function<void(uint64_t first, const PackedKmers& chunk, std::string& scratch)> write_at;
};

struct CountHooks {
  std::function<void(const std::string&)> log;   // details for -v
  std::function<void(const std::string&)> info;  // notes a user should see
  std::function<void(const std::string&)> pass;  // a new pass begins (its name)
  PipelineProgress* progress = nullptr;
  // count_kmers(options, hooks): once, before the first k-mer goes out (a
  // progress line on the terminal the k-mers go to ends there).
  std::function<void()> output_begins;
};

CountResult count_kmers(const CountOptions& options, const KmerSink& sink, const CountHooks& hooks = {});
CountResult count_kmers(const CountOptions& options, const PackedKmerSink& sink, const CountHooks& hooks = {});
// The same into options.output, written by the library in its format (TSV,
// FASTA or KFF, the latter in place by the merging threads where the path
// takes it); the file is complete and in place when it returns (or, under
// an OutputGroup, waits for the run's other outputs: formats/output.hpp).
CountResult count_kmers(const CountOptions& options, const CountHooks& hooks = {});

}  // namespace kmerbloom
