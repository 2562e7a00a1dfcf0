// kmerbloom qv: an assembly's consensus quality (QV) and k-mer completeness
// against the k-mers of its reads, as Merqury defines them (docs/qv.md).
//
// assess_assembly reads the sorted read count file once and the assembly
// twice: the first pass counts the assembly's canonical k-mers exactly with
// the count engine (count/counter.hpp, spilling under max_memory) and merges
// them with the read counts, giving the totals, the assembly k-mers missing
// from the reads and the copy-number table; the second pass tallies, per
// sequence, the k-mers found among the missing ones, which are kept in memory
// (sizeof(word) bytes each). Results do not depend on the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "seqio/pipeline.hpp"

namespace kmerbloom {

// Distinct k-mers by count: dense rows up to kDense, a map above. Counts >= 1.
class CountHistogram {
 public:
  static constexpr uint64_t kDense = 4096;
  void add(uint64_t count, uint64_t distinct = 1);
  void add(const CountHistogram& other);
  // (count, distinct k-mers) for every count with at least one, increasing.
  std::vector<std::pair<uint64_t, uint64_t>> rows() const;
  uint64_t distinct_above(uint64_t threshold) const;  // k-mers with count > threshold

 private:
  std::vector<uint64_t> dense_ = std::vector<uint64_t>(kDense + 1, 0);
  std::map<uint64_t, uint64_t> sparse_;
};

// The solid threshold Merqury takes (its build/filt.sh, the "boundary" of
// ploidy 0 that kmerHistToPloidyDepth prints): walking the histogram's
// non-empty rows in order, the first row whose count rises after one that
// fell; the threshold is that row's multiplicity minus one, and the solid
// k-mers are those seen more often. 0 when no row rises after a fall.
uint64_t merqury_solid_threshold(const std::vector<std::pair<uint64_t, uint64_t>>& histogram);

struct QvOptions {
  std::string assembly;      // FASTA/FASTQ, plain or gzip: read twice, so not a stream
  std::string read_counts;   // sorted TSV / FASTA-form / KFF counts of the reads (formats/count_file.hpp)
  unsigned k = 0;            // 0: the read counts' k; else they must have this k
  unsigned threads = 1;
  uint64_t max_memory = 0;   // bytes for the assembly count and the missing k-mers; 0 = no budget
  std::string tmp_dir;       // the count engine's spill files; empty: $TMPDIR, else /tmp
  std::optional<uint64_t> solid_threshold;  // read k-mers seen more often are solid; unset: Merqury's rule
  bool per_sequence = true;  // the second pass
  uint64_t batch_bases = uint64_t{1} << 20;  // second pass: bases per batch (longer records come in pieces)
  void validate() const;     // throws std::invalid_argument
};

struct SequenceQv {
  std::string name;     // the header's first word
  uint64_t kmers = 0;   // k-mer positions (windows of k A/C/G/T bases)
  uint64_t missing = 0; // of them, k-mers absent from the reads
};

// Copy-number rows of the spectra-cn table: read k-mers absent from the
// assembly, then present 1, 2, 3, 4 and more than 4 times in it.
inline constexpr int kCopyRows = 6;

struct QvResult {
  unsigned k = 0;
  uint64_t asm_kmers = 0;           // k-mer positions of the assembly (Merqury's "present" of asm.meryl)
  uint64_t asm_distinct = 0;
  uint64_t missing = 0;             // positions whose k-mer is absent from the reads
  uint64_t missing_distinct = 0;
  uint64_t read_distinct = 0;       // distinct k-mers of the read count file
  uint64_t read_min_count = 0;      // smallest count in it (> 1: the reads were counted with a minimum)
  uint64_t solid_threshold = 0;     // solid: read count > this
  bool threshold_given = false;
  uint64_t solid_distinct = 0;      // distinct solid read k-mers
  uint64_t solid_in_asm = 0;        // of them, found in the assembly
  std::vector<SequenceQv> sequences;  // input order; empty without per_sequence
  CountHistogram copies[kCopyRows];   // read k-mers by read count, one histogram per copy row
  InputSummary input;               // of the first pass
  double seconds_count = 0, seconds_per_sequence = 0;
};

// Merqury's per-k-mer error and QV: error = 1 - (1 - missing/total)^(1/k),
// QV = -10 log10(error) (infinite when nothing is missing). total > 0.
double kmer_error_rate(uint64_t missing, uint64_t total, unsigned k);
double phred_qv(double error);

struct QvHooks {
  std::function<void(const std::string&)> log;   // details for -v
  std::function<void(const std::string&)> info;  // notes a user should see
  std::function<void(const std::string&)> pass;  // a pass over the assembly begins (its name)
  PipelineProgress* progress = nullptr;          // what the passes have read
};

// Throws InputError naming the file and record or line for bad input (a
// malformed, unsorted, non-canonical or differently sized read k-mer; a bad
// FASTA record), BudgetError when the missing k-mers outgrow a quarter of
// max_memory, std::invalid_argument for bad options.
QvResult assess_assembly(const QvOptions& options, const QvHooks& hooks = {});

}  // namespace kmerbloom
