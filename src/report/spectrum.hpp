// k-mer spectrum analysis: error trough, main coverage peak, genome size.
//
// The spectrum of a read set (histogram[c] = distinct k-mers seen exactly c
// times) has an error component that falls steeply from c = 1 and a genomic
// component around the k-mer coverage of the genome. analyze_spectrum finds
//  - the error trough: the first local minimum after row 1 of the spectrum
//    smoothed in log space, then moved to the lowest point between it and
//    the main peak (so a dip in the noisy error tail is not taken for it);
//  - the main peak: the row with the most distinct k-mers above the trough,
//    its position refined by a weighted parabola fit of log f(c) around it;
//  - the genome size as KAT, BBTools and GenomeScope's simple estimate do:
//    k-mer occurrences at or above the trough divided by the peak coverage;
//  - the share of erroneous distinct k-mers and k-mer occurrences (below the
//    trough), and notes when the spectrum is too flat or too shallow to trust.
// Pure functions of their input (but for reading a file); thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/histogram_file.hpp"  // read_histogram_file

namespace kmerbloom {

struct SpectrumOptions {
  // The last row of the histogram holds every k-mer seen that often or more
  // (kmerbloom and jellyfish's overflow row): its occurrences are a lower bound.
  bool last_row_overflow = false;
  // Total k-mer occurrences if known (stats "kmers_total"); with an overflow
  // row it gives that row's true occurrences. 0 = sum them from the histogram.
  uint64_t total_kmers = 0;
  // Row 1 was estimated (Bloom-gated counting): noted, used as it is.
  bool row1_estimated = false;
  // A peak whose refined coverage is below this is too shallow to trust.
  double min_peak_coverage = 5;
  // The peak must be at least this many times higher than the trough.
  double min_peak_to_trough = 2;
};

struct SpectrumAnalysis {
  uint64_t kmers_distinct = 0;  // sum of f(c)
  uint64_t kmers_total = 0;     // sum of c * f(c) (or options.total_kmers)
  uint64_t overflow_row = 0;    // the row holding every k-mer seen that often or more, 0 if none

  bool has_trough = false;
  uint64_t trough = 0;         // count at the error trough; k-mers below it are errors
  uint64_t trough_height = 0;  // f(trough)

  bool has_peak = false;
  uint64_t peak = 0;         // row with the most distinct k-mers above the trough
  uint64_t peak_height = 0;  // f(peak)
  double peak_coverage = 0;  // refined peak position: k-mer coverage of single-copy sequence

  // sum over c >= trough of c * f(c) / peak_coverage; 0 when there is no peak.
  double genome_size = 0;
  uint64_t distinct_above_trough = 0;  // distinct k-mers at or above the trough (repeats collapse)

  uint64_t error_distinct = 0;      // distinct k-mers below the trough
  uint64_t error_kmers = 0;         // their occurrences
  double error_distinct_share = 0;  // error_distinct / kmers_distinct
  double error_kmer_share = 0;      // error_kmers / kmers_total

  // Peaks at half and twice the main peak (heterozygosity or a highly
  // heterozygous diploid): 0 when absent. Reported only as notes.
  double half_peak_coverage = 0;
  double double_peak_coverage = 0;

  bool reliable = false;              // true when warnings is empty
  std::vector<std::string> warnings;  // reasons not to trust the numbers
  std::vector<std::string> notes;     // context worth knowing
};

// histogram[c] for c >= 1 (histogram[0] is ignored). Never throws for any
// input; an empty or degenerate histogram gives warnings and zeros.
SpectrumAnalysis analyze_spectrum(const std::vector<uint64_t>& histogram, const SpectrumOptions& options = {});

// The analysis as JSON, for the "spectrum" object of --stats: error_trough,
// peak, peak_coverage, genome_size (null without a peak), error shares,
// reliable, warnings, notes.
nlohmann::json spectrum_json(const SpectrumAnalysis& a);

// Histogram <-> JSON rows [[count, frequency], ...]: the non-zero rows c >= 1,
// as count embeds them in stats["histogram"]["rows"].
nlohmann::json histogram_rows_json(const std::vector<uint64_t>& histogram);
// Inverse of histogram_rows_json. Throws std::invalid_argument on malformed rows.
std::vector<uint64_t> histogram_from_rows(const nlohmann::json& rows);
// What a kmerbloom --stats object says about its histogram (overflow row,
// estimated row 1, total k-mers); fields that are absent keep the defaults.
SpectrumOptions spectrum_options_from_stats(const nlohmann::json& stats, const std::vector<uint64_t>& histogram);

}  // namespace kmerbloom
