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
#include <vector>

#include <nlohmann/json.hpp>

#include "kmerbloom/spectrum.hpp"

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

// The HTML page. The spectrum analysis is computed from histogram with the
// options the statistics imply (spectrum_options_from_stats); an empty
// histogram gives a page without the spectrum section but a note saying how
// to get it.
std::string report_html(const nlohmann::json& stats, const std::vector<uint64_t>& histogram);

// report_html / spectrum_svg written to path ("-" = stdout).
void write_report_html(const nlohmann::json& stats, const std::vector<uint64_t>& histogram, const std::string& path);
void write_spectrum_svg(const nlohmann::json& stats, const std::vector<uint64_t>& histogram, const std::string& path);

// Escapes & < > " ' for HTML and XML text and attributes.
std::string html_escape(const std::string& text);

}  // namespace kmerbloom
