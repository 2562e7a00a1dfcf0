#include "profile/smudge_peak.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace kmerbloom {
namespace {

constexpr unsigned kShareBins = 21;  // 0.025 wide: [0, 0.025) ... [0.5, 0.525) holds 1/2 alone
constexpr double kSumBinWidth = 0.09531017980432486;  // log(1.1)

unsigned share_bin(uint64_t sum, uint64_t minor) {
  return static_cast<unsigned>(40.0 * static_cast<double>(minor) / static_cast<double>(sum));
}
unsigned sum_bin(uint64_t sum) { return static_cast<unsigned>(std::log(static_cast<double>(sum)) / kSumBinWidth); }

}  // namespace

SmudgePeak find_smudge_peak(const SmudgeGrid& grid, uint64_t lower, uint64_t kmers, uint64_t min_pairs,
                            double min_share) {
  const unsigned sum_bins = sum_bin(kMaxPairCoverage) + 1;
  std::vector<uint64_t> bins(sum_bins * kShareBins, 0);
  uint64_t total = 0;
  for (uint64_t s = 2; s <= kMaxPairCoverage; ++s)
    for (uint64_t m = 1; m <= s / 2; ++m)
      if (const uint64_t n = grid.at(s, m)) {
        bins[sum_bin(s) * kShareBins + share_bin(s, m)] += n;
        total += n;
      }
  SmudgePeak p;
  p.pair_kmer_share = kmers ? static_cast<double>(total) / static_cast<double>(kmers) : 0.0;
  if (total == 0) {
    p.note = "no unique pairs";
    return p;
  }
  // The fullest bin once summed with its neighbours; ties go to the smaller sum.
  uint64_t best = 0;
  unsigned best_s = 0, best_f = 0;
  for (unsigned s = 0; s < sum_bins; ++s)
    for (unsigned f = 0; f < kShareBins; ++f) {
      uint64_t n = 0;
      for (unsigned ds = s ? s - 1 : 0; ds <= s + 1 && ds < sum_bins; ++ds)
        for (unsigned df = f ? f - 1 : 0; df <= f + 1 && df < kShareBins; ++df) n += bins[ds * kShareBins + df];
      if (n > best) {
        best = n;
        best_s = s;
        best_f = f;
      }
    }
  // The mean sum and share of the pairs in the peak bin itself, or, when it
  // is empty (a sparse grid: its neighbours made it the fullest), in the
  // neighbourhood that did.
  double pairs = 0, sum = 0, share = 0;
  for (const unsigned reach : {0u, 1u}) {
    for (uint64_t s = 2; s <= kMaxPairCoverage; ++s)
      for (uint64_t m = 1; m <= s / 2; ++m) {
        const unsigned sb = sum_bin(s), fb = share_bin(s, m);
        const bool near = sb + reach >= best_s && sb <= best_s + reach && fb + reach >= best_f && fb <= best_f + reach;
        if (const uint64_t n = grid.at(s, m); n && near) {
          pairs += static_cast<double>(n);
          sum += static_cast<double>(n * s);
          share += static_cast<double>(n) * static_cast<double>(m) / static_cast<double>(s);
        }
      }
    if (pairs > 0) break;
  }
  p.found = true;
  p.pairs = best;
  p.sum = sum / pairs;
  p.minor_share = share / pairs;
  // The nearest of 1/2 .. 1/6.
  unsigned nearest = 2;
  for (unsigned q = 3; q <= 6; ++q)
    if (std::abs(p.minor_share - 1.0 / q) < std::abs(p.minor_share - 1.0 / nearest)) nearest = q;
  if (total < min_pairs) {
    p.note = "too few unique pairs (" + std::to_string(total) + ", fewer than " + std::to_string(min_pairs) + ")";
  } else if (p.pair_kmer_share < min_share) {
    p.note = "the unique pairs hold " + strf("%.2f", p.pair_kmer_share * 100) + "% of the k-mers, below " +
             strf("%.2f", min_share * 100) +
             "%: repeats of two copies that differ at a base (paralogs) make such a smudge in any genome";
  } else if (const double minor = p.sum * p.minor_share, line = 1.5 * static_cast<double>(lower); minor < line) {
    // Depth scales both counts of a pair; the error line stays near L.
    p.note = "the densest smudge lies on the error line: its minor count, about " + strf("%.1f", minor) +
             ", is below 1.5 L = " + strf("%.1f", line) +
             ", where a k-mer paired with one of its own sequencing errors lies, so its pairs cannot be told from "
             "errors' (reads at about " + strf("%.1f", line / minor) +
             " times this depth would lift it clear; or give -L, if the histogram's trough is lower)";
  } else if (nearest > 4) {
    p.note = "the densest smudge has a minor share of about 1/" + std::to_string(nearest) +
             " (a structure beyond AAAB is not said)";
  } else {
    p.ploidy = nearest;
    p.structure = std::string(nearest - 1, 'A') + "B";
    p.haploid_coverage = p.sum / nearest;
  }
  return p;
}

}  // namespace kmerbloom
