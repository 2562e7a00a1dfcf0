// The coverage range [L, U] of the k-mers that hetmers pairs, chosen from a
// count histogram the way smudgeplot chooses it (docs/hetmers.md gives the
// rules and where smudgeplot states them). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace kmerbloom {

// Pairs whose two counts add up to more than this are not looked at, as in
// smudgeplot's search (its SMAX); nor are bins of minor count from this up
// written to the .smu file (its FMAX).
inline constexpr uint64_t kMaxPairCoverage = 1000;
inline constexpr uint64_t kMaxMinorCoverage = 500;

// smudgeplot `cutoff L`: the first local minimum of the histogram, counted as
// a 0-based row index i (i = count - 1), gives max(10, round(1.25 * i)),
// rounding halves to even as Python does. histogram[c] is the number of
// k-mers of count c; rows below the smallest count present are not looked at
// (a file written with --min-count has none), so the search starts there
// and ends at the largest count present.
uint64_t smudgeplot_lower_cutoff(const std::vector<uint64_t>& histogram);

// smudgeplot `cutoff U` (its older search, 0.2 and 0.3): the first row index
// at which the k-mers of count 2 and more reach a share above 0.998, rounded
// up to two significant digits (one below 100). 0 when the histogram has no
// k-mer above count 1.
uint64_t smudgeplot_upper_cutoff(const std::vector<uint64_t>& histogram);

}  // namespace kmerbloom
