// kmerbloom filter: the engine behind the subcommand, callable without argv.
//
// Keeps the reads worth giving to a de novo assembler, in input order:
// digital normalization (abundances in a GatedSketch, one pass), weak k-mer
// handling (drop or trim), and reads without a k-mer dropped as "short". Pairs
// stay pairs; the output is the same whatever the thread count. The rules,
// pairing, output records and threading: docs/normaliser-sketch.md.
//
// Thread safety: filter_reads may run concurrently with other calls; it
// calls the sink from one thread at a time, and the hooks from the calling
// thread or its worker threads (one at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "seqio/reader.hpp"
#include "estimate/cardinality.hpp"
#include "normalize/count_min_sketch.hpp"
#include "normalize/gated_sketch.hpp"

namespace kmerbloom {

enum class WeakMode { none, drop, trim };

// k: 1..255; always canonical. max_memory: upper bound on gate + sketch.
// threads: worker threads (a reader, a decider and a writer thread come on
// top). batch_bases: both mates together; 2 * threads + 4 batches in flight.
struct ReadFilterOptions : ReadSetOptions {
  ReadFilterOptions() {
    max_memory = uint64_t{1} << 30;
    batch_bases = 1u << 16;
  }
  bool paired_files = false;        // inputs = {R1, R2}, read in lockstep
  bool interleaved = false;         // one input, records alternate mate 1, mate 2
  bool split_mates = false;         // interleaved: mate 2 goes to sink stream 1 (paired_files: always)
  bool normalize = true;
  unsigned target_coverage = 20;    // C, 1..255 (the sketch's counters stop at 255)
  WeakMode weak = WeakMode::none;
  uint32_t min_count = 2;           // weak k-mers occur fewer times than this; >= 2
  std::string solid_path;           // `kmerbloom count` output (TSV, FASTA or KFF, .gz too) instead of a first pass
  uint64_t expected_kmers = 0;      // k-mers expected to be counted at least twice; 0 = estimated (sizing below)

  // Throws std::invalid_argument naming the first bad option.
  void validate() const;
  bool paired() const { return paired_files || interleaved; }
};

// How the gate and the sketch are sized: from a sampled estimate of the
// input's spectrum (sketch_demand), from expected_kmers, or for a stream from
// kStreamRepeatedKeys and kStreamOnceKeys; each at least kMinSketchBytes,
// together at most max_memory. The rule: docs/normaliser-sketch.md.
inline constexpr uint64_t kStreamRepeatedKeys = uint64_t{1} << 23;
inline constexpr uint64_t kStreamOnceKeys = uint64_t{1} << 24;
inline constexpr uint64_t kMinSketchBytes = uint64_t{1} << 20;
inline constexpr unsigned kSizingRows = 255;

// What the sketch must hold, from a spectrum estimate (rows up to at least the
// target coverage): repeated and once keys and the share of k-mer occurrences
// normalization keeps. The formulas and why kKeptShareMargin:
// docs/normaliser-sketch.md.
inline constexpr double kKeptShareMargin = 1.6;
struct SketchDemand {
  uint64_t repeated = 0, once = 0;
  double kept_share = 1;
};
SketchDemand sketch_demand(const KmerSpectrumEstimate& estimate, unsigned target_coverage) noexcept;

struct ReadTally {
  uint64_t reads = 0;
  uint64_t bases = 0;
  void add(uint64_t n_bases) {
    ++reads;
    bases += n_bases;
  }
  void add(const ReadTally& o) {
    reads += o.reads;
    bases += o.bases;
  }
};

struct ReadFilterResult {
  SeqFormat format = SeqFormat::unknown;
  uint64_t fragments_in = 0, fragments_out = 0;  // reads, or pairs when paired
  ReadTally in, out;                             // out.bases after trimming
  // Why reads went where they went (bases as read, before trimming); the four
  // add up to `in`.
  ReadTally kept, above_coverage, weak, short_reads;
  uint64_t trimmed_reads = 0;   // kept reads that --trim-weak shortened
  uint64_t trimmed_bases = 0;   // bases those lost
  uint64_t kmers_queried = 0;   // k-mers whose abundance the normalizer looked up
  uint64_t kmers_added = 0;     // k-mers of kept reads counted into the sketch

  struct Sketch {
    bool used = false;
    std::string source;                  // "estimate", "--expected" or "stream default"
    double estimated_distinct = 0;       // the estimate's F0 and f1 (source "estimate")
    double estimated_singletons = 0;
    SketchDemand demand;                 // what the plan was made for
    GatedSketchPlan plan;                // shapes and model rates (gated_sketch.hpp)
    uint64_t bytes = 0;                  // gate + sketch
    uint64_t blocks = 0;                 // sketch blocks
    bool capped = false;                 // max_memory made them smaller than the rule
    std::string sizing;                  // the rule and its numbers, in words
    double design_collision_rate = 0;    // model sketch collision rate at the design keys
    CountMinSketch::Fill fill;           // the sketch at the end
    double gate_estimated_fpr = 0;       // the gate at the end: rate from its fill
    double gate_estimated_keys = 0;      //   and distinct k-mers it holds
  } sketch;

  struct Solid {
    bool used = false;
    std::string source;             // "first pass" or the file
    uint64_t kmers = 0;             // k-mers known with count >= min_count
    uint64_t bytes = 0;             // memory of their table
    double seconds = 0;
  } solid;

  std::vector<double> pass_seconds;
  // Busy time of the stages of the filtering pass: workers (summed over
  // threads), the ordered decider, the writer (sink included). The decider
  // is serial: when its time nears the pass time, it is the bottleneck.
  double prepare_seconds = 0, decide_seconds = 0, write_seconds = 0;
};

// Receives kept records, formatted, in input order, as chunks of whole
// records; stream 0 is the first (or only) output, stream 1 mate 2's. Called
// from one thread at a time; may throw (the run stops and rethrows).
using ReadFilterSink = std::function<void(unsigned stream, std::string_view records)>;

struct ReadFilterHooks {
  std::function<void(const std::string&)> log;   // details for -v
  std::function<void(const std::string&)> info;  // notes a user should see
  std::function<void(const std::string&)> pass;  // a pass begins (its name), for a progress meter
  PipelineProgress* progress = nullptr;          // counters every pass updates as it reads
};

ReadFilterResult filter_reads(const ReadFilterOptions& options, const ReadFilterSink& sink, const ReadFilterHooks& hooks = {});

// Name of a read up to its first space or tab, without a trailing "/1" or "/2".
std::string_view mate_base_name(std::string_view name) noexcept;

}  // namespace kmerbloom
