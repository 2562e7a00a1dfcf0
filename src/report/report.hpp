// The k-mer report: one self-contained HTML page (inline CSS and SVG, no
// script, no font or file from the network) and the spectrum plot as SVG.
//
// Both take the --stats JSON of `kmerbloom count` and the histogram
// (histogram[c] = distinct k-mers seen c times; see spectrum.hpp for reading
// it from stats["histogram"]["rows"] or a jellyfish-style file). Fields absent
// from the statistics are left out of the page, so a report can be made from
// any kmerbloom statistics. Pure functions but for the write_* ones, which
// write atomically through OutputFile and throw OutputError.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/spectrum.hpp"

namespace kmerbloom {

struct PlotOptions {
  unsigned width = 860;  // SVG user units (the page scales it to fit)
  unsigned height = 440;
  unsigned k = 0;  // shown in the title when non-zero
};

// The spectrum plot: log-scale y, x up to about three times the peak, the
// error region shaded, trough and peak marked and labelled. A histogram with
// no k-mers gives a plot that says so.
std::string spectrum_svg(const std::vector<uint64_t>& histogram, const SpectrumAnalysis& analysis,
                         const PlotOptions& options = {});

// The spectrum analysis of histogram with the options the statistics imply
// (spectrum_options_from_stats). Analyse once per run and hand the result to
// the JSON, the page and the plot.
SpectrumAnalysis analyze_stats_spectrum(const nlohmann::json& stats, const std::vector<uint64_t>& histogram);

// The HTML page; the genome size and peak coverage appear in its summary
// table when the spectrum has a peak. An empty histogram gives a page without
// the spectrum section but a note saying how to get it. The overload without
// an analysis makes it with analyze_stats_spectrum.
// extra_sections: HTML of sections made elsewhere (the genome profile),
// placed after the spectrum.
std::string report_html(const nlohmann::json& stats, const std::vector<uint64_t>& histogram,
                        const SpectrumAnalysis& analysis, const std::string& extra_sections = "");
std::string report_html(const nlohmann::json& stats, const std::vector<uint64_t>& histogram);

// report_html / spectrum_svg written to path ("-" = stdout); without an
// analysis they make one with analyze_stats_spectrum.
void write_report_html(const nlohmann::json& stats, const std::vector<uint64_t>& histogram,
                       const SpectrumAnalysis& analysis, const std::string& path,
                       const std::string& extra_sections = "");
void write_spectrum_svg(const nlohmann::json& stats, const std::vector<uint64_t>& histogram,
                        const SpectrumAnalysis& analysis, const std::string& path);
void write_report_html(const nlohmann::json& stats, const std::vector<uint64_t>& histogram, const std::string& path);
void write_spectrum_svg(const nlohmann::json& stats, const std::vector<uint64_t>& histogram, const std::string& path);

// Which statistics a report can be made from: check_count_stats (stats.hpp).

// MultiQC custom content (picked up by `multiqc` with no module, files named
// *_mqc.json): a general statistics row for `sample` (reads, bases, distinct,
// solid and singleton k-mers, genome size, peak coverage, error share) and a
// line plot of the spectrum (rows 1 to max(200, 3 x peak), the overflow row
// left out). Files of several samples with the same id join in one section.
nlohmann::json multiqc_general_stats(const std::string& sample, const nlohmann::json& stats);
// One MultiQC General Statistics section of custom content: `id`, its
// section name and description, the columns in order (format nullptr: a text
// column), one row of `sample`. Every subcommand's *_mqc.json is made here.
struct MultiqcColumn {
  const char* key;
  const char* title;
  std::string description;
  const char* format;  // e.g. "{:,.0f}"
};
nlohmann::json multiqc_general_stats_section(const std::string& id, const std::string& section,
                                             const std::string& description,
                                             const std::vector<MultiqcColumn>& columns, const std::string& sample,
                                             const nlohmann::json& row);
nlohmann::json multiqc_spectrum(const std::string& sample, const nlohmann::json& stats,
                                const std::vector<uint64_t>& histogram);
// Where `count --stats S.stats.json` puts them: S.stats_mqc.json and
// S.stats_spectrum_mqc.json. The sample is named, first that applies:
//  - after the reads (inputs): reads.fq.gz is "reads", mates x_R1.fq.gz and
//    x_R2.fq.gz are "x", several files their common name (lane_1.fq
//    lane_2.fq: "lane");
//  - S, the statistics file's name without .json and a trailing .stats,
//    _stats, or the name of the subcommand that wrote it (.profile, .qv,
//    .hetmers, .sets: S.qv.json is sample S, joining S's count row).
// A histogram's name plays no part: MultiQC's jellyfish module calls
// H_jf.hist sample H_jf for its plot, which adds no row of its own.
struct MultiqcPaths {
  std::string sample, general_stats, spectrum;
};
MultiqcPaths multiqc_paths(const std::string& stats_path, const std::vector<std::string>& inputs = {});
// The reads' part of that rule: "" when the inputs name no sample.
std::string sample_of_inputs(const std::vector<std::string>& inputs);

// Escapes & < > " ' for HTML and XML text and attributes.
std::string html_escape(const std::string& text);

// printf into a string (at most 511 bytes), for the SVG and HTML writers.
std::string strf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// A round step of about a sixth of v (at least 1) for an axis: 1, 2 or 5 times a power of ten.
double tick_step(double v);

// A self-contained page of one figure: `heading`, a table of (name, value)
// rows (names are HTML already, values are escaped), then `svg`.
std::string figure_page(const std::string& title, const std::string& heading,
                        const std::vector<std::pair<std::string, std::string>>& rows, const std::string& svg);

}  // namespace kmerbloom
