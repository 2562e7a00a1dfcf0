// The smudge plot of het-mer pairs (smudgeplot's picture): the coverage sum
// of a pair (log scale, up) against its minor count's share of the sum (0 to
// 1/2, across), each cell coloured by the pairs in it (log scale), the
// shares of AB, AAB, AAAB, AAAAB as lines, and the densest smudge marked
// with the structure and ploidy it suggests. Pure functions of their inputs.
#pragma once

#include <cstdint>
#include <string>

#include "profile/hetmers.hpp"
#include "profile/smudge_peak.hpp"

namespace kmerbloom {

// A standalone SVG document. lower: the -L of the search (the lowest count).
std::string smudge_svg(const SmudgeGrid& grid, const SmudgePeak& peak, uint64_t lower);

// A self-contained HTML page: the plot and the figures beside it.
// sample: a name for the title.
std::string smudge_report_html(const std::string& sample, const SmudgeGrid& grid, const SmudgePeak& peak,
                               uint64_t lower, uint64_t upper, uint64_t unique_pairs);

}  // namespace kmerbloom
