// Het-mer search: the pairs of k-mers that differ at exactly one base and
// form a unique pair, binned by their two counts as smudgeplot's search does
// (docs/hetmers.md has the definitions and where smudgeplot states them).
//
// The k-mers are taken in both orientations (a canonical k-mer and its
// reverse complement: smudgeplot searches a FastK table made symmetric),
// sorted, in an unlinked temporary file (16 bytes a k-mer). Two oriented
// k-mers at one base from each other, at position i, share their first i
// bases and their last k - 1 - i: in a stretch of k-mers of one prefix of i
// bases, split four ways by base i, each part is in order of the bases
// after i, and a merge of the four parts finds the pairs at i. The search
// takes the sorted k-mers a unit at a time (at most about 2 MiB of them:
// groups of one prefix, searched at every level from the prefix on, and for
// the levels above, four such groups), marks each oriented k-mer's degree
// (0, 1, more: 2 bits) and keeps the pairs in the temporary file; a second
// pass bins the pairs whose two k-mers are in no other pair. Memory: 2 bits
// per oriented k-mer, the 4 MB grid, per thread a unit and 256 KiB of
// pairs, whatever the set's size. The result does not depend on the number
// of threads or on -M: bins are sums, the units are the data's, and pairs
// come out in unit order.
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
  uint64_t max_memory = uint64_t{1} << 30;  // bytes the search may use (it is refused when it needs more)
  // Pairs found, written to it (KMER COUNT KMER COUNT, the smaller count
  // first), one line per pair and its reverse complement; nullptr: none.
  OutputFile* pairs = nullptr;
  // Each pass's name as it begins, and its units searched of all in
  // progress->units_done (may be null) for a meter.
  std::function<void(const std::string&)> pass;
  PipelineProgress* progress = nullptr;
  // Tests: at most this many oriented k-mers a search unit where the data
  // allow, about this many reverse complements a bucket (0: the defaults),
  // so that small sets take the paths of large ones.
  uint64_t unit_kmers = 0, bucket_kmers = 0;
};

struct HetmerResult {
  uint64_t kmers = 0;                // canonical k-mers searched
  uint64_t oriented_kmers = 0;       // and their reverse complements (palindromes once)
  uint64_t pairs = 0;                // oriented pairs at one base, counts adding up to at most kMaxPairCoverage
  uint64_t kmers_in_pairs = 0;       // oriented k-mers in at least one of them
  uint64_t kmers_in_several = 0;     // in more than one: their pairs are not unique
  uint64_t unique_pairs = 0;         // oriented unique pairs, the sum of the grid (what smudgeplot counts)
  uint64_t unique_pairs_canonical = 0;  // the same, a pair and its reverse complement once
  unsigned partitions = 0;           // the search's units
  uint64_t memory_planned = 0;       // bytes the plan holds at most
  SmudgeGrid grid;
};

// Searches the canonical k-mers of `set` (their counts already within the
// chosen range, each below kMaxPairCoverage), in order. Throws BudgetError
// when the search needs more than options.max_memory, OutputError
// (SpoolError) when temporary files cannot be written.
HetmerResult find_hetmers(const CountedKmers& set, const HetmerOptions& options);

// smudgeplot's flat 2-D histogram (its .smu file): "MINOR<TAB>MAJOR<TAB>PAIRS"
// for every non-empty bin of minor below kMaxMinorCoverage, by sum then minor.
void write_smu(const SmudgeGrid& grid, OutputFile& out);

}  // namespace kmerbloom
