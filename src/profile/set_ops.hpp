// Set algebra on sorted k-mer count files (`kmerbloom sets`): union,
// intersection, difference and counter subtraction of the exact sets that
// count and merge-counts write, as one streaming merge. Operations, count
// modes and filters: docs/sets.md.
//
// Inputs are TSV, FASTA form or KFF (formats/count_file.hpp; KFF sections
// merged into text order), plain or gzip, "-" for stdin, each sorted by k-mer
// text as count writes them. The merge compares k-mers packed, 2 bits a base
// (KFF's own bytes; text packed as it is read), and hands the writer packed
// chunks: no letters are made between a KFF input and a KFF output.
//
// Memory: a read buffer per input (buffer_bytes shared among them), one
// batch of packed k-mers per input (SortedCounts::kBatchKmers) and four more
// for an input read on its own thread, and the writer's chunk; it does not
// grow with the sets. Thread safety: one SetOperation is used by one thread;
// its reading threads are its own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seqio/pipeline.hpp"

namespace kmerbloom {
class SortedCounts;     // formats/sorted_counts.hpp
class KmerCountWriter;  // formats/count_writer.hpp

enum class KmerSetOp {
  union_,     // k-mers of any input
  intersect,  // k-mers of every input
  diff,       // k-mers of the first input found in no other, the first's counts
  subtract,   // the first's count minus the others' (summed), kept when above zero
};

// How the counts of one k-mer in several inputs become one. automatic: the
// operation's default (union: sum; intersect: min; diff and subtract have
// their own rule and take no mode).
enum class CountMode { automatic, sum, min, max, first, last };

struct SetOpOptions {
  KmerSetOp op = KmerSetOp::union_;
  CountMode counts = CountMode::automatic;
  uint64_t input_min = 1, input_max = UINT64_MAX;  // each input's k-mers outside are left out first
  uint64_t min_count = 1, max_count = UINT64_MAX;  // result counts outside are not written
  // Result counts above cap are written as cap, before the result range
  // (kmc_tools' -cs: its default 255 under sets --like-kmc-tools).
  uint64_t cap = UINT64_MAX;
  bool presence = false;                           // write count 1 for every k-mer written
  unsigned threads = 1;  // the first threads - 1 inputs are parsed on threads of their own
  size_t buffer_bytes = size_t{16} << 20;          // read buffers of all inputs together
  uint64_t histo_max = 0;                          // > 0: histogram of the counts written (SetOpResult)

  // The mode in effect (automatic resolved; sum for diff and subtract, unused).
  CountMode mode() const;
  // Throws std::invalid_argument naming the option: a mode the operation does
  // not take, an empty range, no input, one input to diff or subtract.
  void validate(size_t inputs) const;
};

// Names as the command line spells them ("union", "min", ...); parse_* throws
// std::invalid_argument listing the names it takes.
KmerSetOp parse_set_op(std::string_view name);
CountMode parse_count_mode(std::string_view name);
const char* set_op_name(KmerSetOp op);
const char* count_mode_name(CountMode mode);

struct SetInputResult {
  std::string name;   // as in messages ("<stdin>" for "-")
  uint64_t kmers = 0; // k-mers read
  uint64_t kept = 0;  // of them within input_min .. input_max
};

struct SetOpResult {
  unsigned k = 0;  // 0 when every input was empty
  std::vector<SetInputResult> inputs;
  uint64_t kmers_out = 0;   // k-mers written
  uint64_t count_sum = 0;   // their counts summed (saturating at UINT64_MAX)
  // With histo_max > 0: [c] k-mers written with count c, c = 1 .. histo_max;
  // [histo_max + 1] those above (count --histo's rows). Empty otherwise.
  std::vector<uint64_t> histogram;
};

using SetSink = std::function<void(std::string_view kmer, uint64_t count)>;

// One operation over its inputs. The constructor opens every input and reads
// its first k-mer in the input count range, so that k is known before any
// output is opened; run()
// streams the result to the sink in k-mer order. Throws InputError naming the
// file and line (KFF: byte) for a malformed record, a k-mer out of order or of
// another length than the file's first; and naming both files when two inputs
// have different k (an empty KFF file's declared k counts), or when one KFF
// input declares canonical k-mers and another k-mers as read
// (std::invalid_argument: the command is wrong, not a file).
class SetOperation {
 public:
  SetOperation(const std::vector<std::string>& inputs, const SetOpOptions& options);
  ~SetOperation();
  SetOperation(const SetOperation&) = delete;
  SetOperation& operator=(const SetOperation&) = delete;

  // The inputs' k; 0 when every input is empty and declares none.
  unsigned k() const { return k_; }
  // Whether the inputs' k-mers are canonical, where a KFF input says so.
  std::optional<bool> canonical() const { return canonical_; }
  // Once only: the result into `out` (not finished: the caller finishes it),
  // in chunks of packed k-mers; a count above 2^32 - 1 goes alone, in letters.
  // progress (may be null): units_done is set to the bytes read of all
  // inputs as the merge goes.
  SetOpResult run(KmerCountWriter& out, PipelineProgress* progress = nullptr);
  // The same, k-mer by k-mer in letters.
  SetOpResult run(const SetSink& sink, PipelineProgress* progress = nullptr);

  struct Head;  // an input's smallest k-mer not yet merged (set_ops.cpp)

 private:
  template <class Emit>
  SetOpResult merge(Emit& emit, PipelineProgress* progress);

  SetOpOptions o_;
  std::vector<std::unique_ptr<SortedCounts>> in_;
  std::vector<Head> heads_;
  unsigned k_ = 0;
  std::optional<bool> canonical_;
};

}  // namespace kmerbloom
