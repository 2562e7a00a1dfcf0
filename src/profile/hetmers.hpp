// Het-mer search: the pairs of k-mers that differ at exactly one base and
// form a unique pair, binned by their two counts as smudgeplot's search does
// (docs/hetmers.md has the definitions and where smudgeplot states them).
//
// The k-mers are taken in both orientations (a canonical k-mer and its
// reverse complement: smudgeplot searches a FastK table made symmetric). Each
// oriented k-mer is cut into three pieces and keyed three times, each time
// with one piece masked: two k-mers at one base from each other agree on two
// pieces, so they meet under exactly one key, where they are compared. Keys
// are partitioned by value, so that one partition's keys fit in memory. A
// first pass sorts each partition's keys, marks how many pairs each oriented
// k-mer is in and keeps the pairs in a temporary file; a second pass bins the
// pairs whose two k-mers are in no other pair. Memory: 4 bits per k-mer of
// the set plus, per thread, one partition's keys (24 bytes each), the 4 MB
// grid and 2 MB of buffers. The result does not depend on the number of
// threads or partitions: bins are sums, and pairs come out in key order.
//
// Thread safety: find_hetmers runs its own threads; the inputs are read only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profile/counted_kmers.hpp"
#include "profile/cutoffs.hpp"
#include "seqio/pipeline.hpp"

namespace kmerbloom {

class OutputFile;

// grid[sum][minor]: pairs whose counts add up to sum, the smaller being minor.
class SmudgeGrid {
 public:
  SmudgeGrid() : cells_((kMaxPairCoverage + 1) * (kMaxMinorCoverage + 1), 0) {}
  uint64_t& at(uint64_t sum, uint64_t minor) { return cells_[sum * (kMaxMinorCoverage + 1) + minor]; }
  uint64_t at(uint64_t sum, uint64_t minor) const { return cells_[sum * (kMaxMinorCoverage + 1) + minor]; }
  void add(const SmudgeGrid& other) {
    for (size_t i = 0; i < cells_.size(); ++i) cells_[i] += other.cells_[i];
  }

 private:
  std::vector<uint64_t> cells_;
};

struct HetmerOptions {
  unsigned k = 0;
  unsigned threads = 1;
  uint64_t max_memory = uint64_t{1} << 30;  // bytes for the whole search
  // Pairs found, written to it (KMER COUNT KMER COUNT, the smaller count
  // first), one line per pair and its reverse complement; nullptr: none.
  OutputFile* pairs = nullptr;
  // Each pass's name as it begins, and its partitions searched of all in
  // progress->units_done (may be null) for a meter.
  std::function<void(const std::string&)> pass;
  PipelineProgress* progress = nullptr;
};

struct HetmerResult {
  uint64_t kmers = 0;                // canonical k-mers searched
  uint64_t oriented_kmers = 0;       // and their reverse complements (palindromes once)
  uint64_t pairs = 0;                // oriented pairs at one base, counts adding up to at most kMaxPairCoverage
  uint64_t kmers_in_pairs = 0;       // oriented k-mers in at least one of them
  uint64_t kmers_in_several = 0;     // in more than one: their pairs are not unique
  uint64_t unique_pairs = 0;         // oriented unique pairs, the sum of the grid (what smudgeplot counts)
  uint64_t unique_pairs_canonical = 0;  // the same, a pair and its reverse complement once
  unsigned partitions = 0;
  uint64_t memory_planned = 0;       // bytes the plan holds at most
  SmudgeGrid grid;
};

// The bytes the search needs at the least for `kmers` k-mers on `threads`
// threads (one partition of the smallest useful size each).
uint64_t hetmer_minimum_memory(uint64_t kmers, unsigned threads);

// Searches the canonical k-mers of `set` (their counts already within the
// chosen range, each below kMaxPairCoverage). Throws BudgetError when
// options.max_memory is below hetmer_minimum_memory, OutputError (SpoolError)
// when temporary files cannot be written.
HetmerResult find_hetmers(const CountedKmers& set, const HetmerOptions& options);

// smudgeplot's flat 2-D histogram (its .smu file): "MINOR<TAB>MAJOR<TAB>PAIRS"
// for every non-empty bin of minor below kMaxMinorCoverage, by sum then minor.
void write_smu(const SmudgeGrid& grid, OutputFile& out);

}  // namespace kmerbloom
