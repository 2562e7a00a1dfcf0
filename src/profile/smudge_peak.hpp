// The densest smudge of a het-mer grid and the ploidy it suggests.
//
// Pairs are binned by their coverage sum (bins 10% wide on a log scale) and
// minor share minor / sum (bins 0.025 wide, 0 to 0.5); each bin's pairs are
// summed with its 8 neighbours and the fullest bin is the peak. Its minor
// share suggests the structure of the smudge: 1/2 AB (diploid), 1/3 AAB
// (triploid), 1/4 AAAB (tetraploid); the share is taken as the nearest of
// 1/2 .. 1/6 and no ploidy is said beyond 1/4, with fewer than min_pairs
// unique pairs, when the pairs hold less than min_share of the k-mers
// searched (a haploid genome's two-copy repeats that differ at a base make a
// small AB smudge), or when the peak's minor count is within 1.5 L of the
// error line (minor = L: pairs of a k-mer and one of its errors). This reads
// the peak, it does not fit smudgeplot's model (docs/hetmers.md). Pure.
#pragma once

#include <cstdint>
#include <string>

#include "profile/hetmers.hpp"

namespace kmerbloom {

struct SmudgePeak {
  bool found = false;          // any pair at all
  double sum = 0;              // mean coverage sum of the pairs of the peak bin
  double minor_share = 0;      // mean minor / sum of those pairs
  uint64_t pairs = 0;          // pairs in the peak bin and its neighbours
  unsigned ploidy = 0;         // 2, 3 or 4 when the peak says so, else 0
  std::string structure;       // "AB", "AAB", "AAAB" or ""
  double haploid_coverage = 0; // sum / ploidy when ploidy is said
  double pair_kmer_share = 0;  // k-mers in unique pairs / k-mers searched (both counted canonically)
  std::string note;            // why no ploidy is said, when it is not
};

// kmers: canonical k-mers searched. A unique pair and its reverse complement
// are two entries of the grid and hold two canonical k-mers, so the grid's
// total is the number of canonical k-mers in unique pairs.
SmudgePeak find_smudge_peak(const SmudgeGrid& grid, uint64_t lower, uint64_t kmers, uint64_t min_pairs = 1000,
                            double min_share = 0.01);

}  // namespace kmerbloom
