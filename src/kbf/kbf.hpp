// Filter files of k-mers and mergeable results: the engine behind
// `kmerbloom build | query | merge | info | merge-counts`, callable without argv.
//
// A k-mer filter is a ScalableBloom whose keys are hash_kmer(kmer, seed) of
// the (canonical) k-mers, saved with its FilterMeta by save_filter()
// (bloom/bloom_file.hpp). These functions never print and never exit; bad options
// throw std::invalid_argument, bad input InputError, unwritable output
// OutputError, incompatible filters FilterMismatch. Which filters merge (same
// shape) and why chunks merge bit for bit: docs/bloom-file.md.
//
// Thread safety: the functions are reentrant and use options.threads worker
// threads inside; a LoadedFilter is only read by queries, so several queries
// may share one. A FilterCombiner is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloom/bloom_file.hpp"
#include "count/counter.hpp"
#include "common/error.hpp"
#include "formats/histogram_file.hpp"
#include "seqio/pipeline.hpp"

namespace kmerbloom {

// Notes for the user, details for -v, and progress; all optional.
struct FilterHooks {
  std::function<void(const std::string&)> log;
  std::function<void(const std::string&)> info;
  PipelineProgress* progress = nullptr;
};

// --------------------------------------------------------------------- build

struct BuildOptions : ReadSetOptions {  // inputs: FASTA/FASTQ; k: 1..255
  // 1: every k-mer of the input. >= 2: only the k-mers seen at least this
  // often, counted exactly first by count_kmers() (two passes over files).
  uint32_t min_count = 1;
  double fpr = 0.01;                // target false-positive rate, in (0, 0.5)
  // > 0: the filter is one layer sized for this many distinct keys at `fpr`,
  // whatever the data (the mergeable shape). 0: sized from the data.
  uint64_t expected = 0;
  uint64_t seed = 0;                // hash seed, stored in the file
  // Throws std::invalid_argument naming the first bad option.
  void validate() const;
};

// How the filter was sized.
enum class BuildSizing {
  expected,        // one layer for BuildOptions::expected keys: the mergeable shape
  counted,         // one layer for the exact number of solid k-mers (min_count >= 2)
  estimated,       // one layer for the distinct k-mers estimated by a first pass
                   // (estimate_kmers, cardinality.hpp), plus 3 standard errors
  growing,         // input read once (stdin): a scalable chain that grows as
                   // needed; its bits depend on the order of insertion when it
                   // grows past one layer, so with several threads it is not
                   // reproducible bit for bit
};
const char* to_string(BuildSizing s);

struct BuildStats {
  InputSummary input;            // reads, bases, k-mer occurrences
  BuildSizing sizing = BuildSizing::expected;
  uint64_t capacity = 0;         // keys the first layer was sized for
  // Distinct keys inserted: exact for counted solid k-mers and for a growing
  // chain, otherwise estimated from the bits.
  uint64_t keys_inserted = 0;
  bool keys_estimated = false;    // keys_inserted is the estimate from the bits
  double estimated_fpr = 0;      // compound, from the final fill
  // With sizing == expected: the filter holds more than 102% of the keys it
  // was sized for, so its false-positive rate exceeds the target
  // (estimated_fpr says by how much).
  bool over_capacity = false;
};

struct BuildResult {
  LoadedFilter filter;  // filter and meta, ready for write_filter()
  BuildStats stats;
};

// Builds the filter (no file is written). Memory: the filter, plus with
// min_count >= 2 what count_kmers() takes and 8 bytes per solid k-mer.
// Throws std::invalid_argument for bad options, InputError for bad input.
BuildResult build_filter(const BuildOptions& options, const FilterHooks& hooks = {});

// ------------------------------------------------------------ filter files

// load_filter() for a filter used as input: a damaged or unreadable file
// throws InputError, a filter whose hash this build does not compute
// (name other than kKmerHashName, or k out of 1..255) throws FilterMismatch.
LoadedFilter open_filter(const std::string& path, const LoadLimits& limits = {});
// save_filter() whose failures throw OutputError.
void write_filter(const std::string& path, const LoadedFilter& filter);

// --------------------------------------------------------------------- query

// k: 0 takes the filter's, otherwise it must equal it; canonical: the filter's.
struct QueryOptions : ReadSetOptions {  // inputs: FASTA/FASTQ
  QueryOptions() {
    k = 0;
    batch_bases = 1u << 20;
  }
  double threshold = 0.5;  // a read is a hit when fraction >= threshold
  void validate() const;
};

// One read's result. `name` is the read name up to the first space or tab; it
// is valid only during the callback.
struct ReadHits {
  std::string_view name;
  uint64_t kmers = 0;    // k-mers of the read (0 if shorter than k)
  uint64_t present = 0;  // of those, how many the filter holds
  double fraction() const { return kmers ? static_cast<double>(present) / static_cast<double>(kmers) : 0.0; }
};

struct QuerySummary {
  uint64_t reads = 0;
  uint64_t reads_with_kmers = 0;  // reads with at least one k-mer
  uint64_t reads_hit = 0;         // reads with a k-mer and fraction >= threshold
  uint64_t kmers = 0;
  uint64_t kmers_present = 0;
  double threshold = 0;
  double mean_fraction = 0;       // over reads_with_kmers
};

// Throws FilterMismatch when options.k is set and differs from the filter's.
void check_query_k(const FilterMeta& meta, unsigned k);

// Calls on_read once per read, in input order, from one thread at a time.
// Throws InputError for bad input, or whatever on_read threw.
QuerySummary query_reads(const LoadedFilter& filter, const QueryOptions& options,
                         const std::function<void(const ReadHits&)>& on_read, const FilterHooks& hooks = {});

// A k-mer list: one k-mer per line, optionally followed by whitespace and more
// fields (KMER<TAB>COUNT as count writes it); lines starting with '>' (count's
// FASTA form) and empty lines are skipped; plain or gzip, "-" for stdin. Or a
// KFF file (formats/kff.hpp), its k-mers in file order.
// Calls on_kmer(kmer as written, present) per k-mer in order. In the summary
// every k-mer is one "read" of one k-mer. Throws InputError for a line whose
// k-mer is not k bases of ACGT.
QuerySummary query_kmer_list(const LoadedFilter& filter, const std::string& path, double threshold,
                             const std::function<void(std::string_view kmer, bool present)>& on_kmer);

// ------------------------------------------------------------ merge filters

enum class SetOp { union_of, intersection };

// Throws FilterMismatch naming the first parameter that differs between a
// (named name_a) and b: k, canonical, hash, seed, min_count, layer count,
// then layer i's blocks or hashes.
void check_same_shape(const LoadedFilter& a, const std::string& name_a, const LoadedFilter& b,
                      const std::string& name_b);

// Folds filters into one by union or intersection, holding one copy of the
// filter (plus the one being added).
class FilterCombiner {
 public:
  explicit FilterCombiner(SetOp op) : op_(op) {}
  // The first filter sets the shape and metadata; later ones must match it
  // (check_same_shape) and are ORed / ANDed in layer by layer. An
  // intersection takes one-layer filters only (FilterMismatch otherwise): a
  // key may sit in different layers of two chains.
  void add(const LoadedFilter& filter, const std::string& name);
  // The combined filter, keys re-estimated from the bits (for an intersection
  // the estimate counts the keys of the AND, an upper bound of the common keys).
  // Throws std::logic_error if nothing was added.
  LoadedFilter result();
  size_t added() const { return added_; }

 private:
  SetOp op_;
  size_t added_ = 0;
  std::string first_name_;
  FilterMeta meta_;
  ScalableBloomParams params_;
  std::vector<ScalableBloom::RestoredLayer> layers_;
};

}  // namespace kmerbloom
