#include "profile/qv_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/format.hpp"
#include "report/report.hpp"

namespace kmerbloom {
namespace {

constexpr double kLeft = 80, kTop = 30, kPlotW = 560, kPlotH = 320;
constexpr double kWidth = kLeft + kPlotW + 140, kHeight = kTop + kPlotH + 60;
// Merqury's colours: read-only grey, then 1, 2, 3, 4, >4 copies.
constexpr const char* kColours[kCopyRows] = {"#7f7f7f", "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"};
constexpr const char* kNames[kCopyRows] = {"read-only", "1", "2", "3", "4", ">4"};

}  // namespace

std::string spectra_cn_svg(const QvResult& r) {
  // Across: up to three times the peak of the single-copy k-mers (or of all
  // of them), at least 20. Up: the highest point above the solid threshold,
  // so that the error k-mers of count 1 do not flatten the rest.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> rows(kCopyRows);
  for (int c = 0; c < kCopyRows; ++c) rows[c] = r.copies[c].rows();
  uint64_t peak_at = 0, peak = 0;
  for (const int c : {1, 2, 0})
    for (const auto& [x, n] : rows[c])
      if (x > r.solid_threshold && n > peak) peak = n, peak_at = x;
  const uint64_t xmax = std::clamp<uint64_t>(3 * peak_at, 20, 2000);
  uint64_t ymax = 1;
  for (const auto& row : rows)
    for (const auto& [x, n] : row)
      if (x > r.solid_threshold && x <= xmax) ymax = std::max(ymax, n);
  ymax = static_cast<uint64_t>(1.15 * static_cast<double>(ymax)) + 1;
  const double xtop = static_cast<double>(xmax), ytop = static_cast<double>(ymax);
  // Count 0 too: the assembly-only k-mers stand there, as Merqury draws them.
  const auto px = [&](double x) { return kLeft + kPlotW * (x + 0.5) / (xtop + 0.5); };
  const auto py = [&](double y) { return kTop + kPlotH * (1 - std::min(y, ytop) / ytop); };

  std::string svg = strf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                        "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
                        kWidth, kHeight, kWidth, kHeight);
  svg += "<title>copy-number spectrum: read k-mers by their count, by their copies in the assembly</title>\n";
  svg += strf("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fbfbfd\" stroke=\"#999\"/>\n", kLeft,
             kTop, kPlotW, kPlotH);
  const double xs = tick_step(xtop), ys = tick_step(ytop);
  for (double x = xs; x <= xtop; x += xs)
    svg += strf("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>\n", px(x), kTop + kPlotH + 16, x);
  for (double y = 0; y <= ytop; y += ys)
    svg += strf("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", kLeft - 6, py(y) + 4) +
           format_quantity(y) + "</text>\n";
  svg += strf("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">k-mer count in the reads</text>\n",
             kLeft + kPlotW / 2, kTop + kPlotH + 38);
  svg += strf("<text x=\"16\" y=\"%.0f\" transform=\"rotate(-90 16 %.0f)\" text-anchor=\"middle\">distinct "
             "k-mers</text>\n",
             kTop + kPlotH / 2, kTop + kPlotH / 2);
  if (r.solid_threshold >= 1 && r.solid_threshold < xmax)
    svg += strf("<line class=\"solid\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#444\" "
               "stroke-dasharray=\"4 3\"/>\n",
               px(static_cast<double>(r.solid_threshold) + 0.5), kTop, px(static_cast<double>(r.solid_threshold) + 0.5),
               kTop + kPlotH);
  for (int c = 0; c < kCopyRows; ++c) {
    // Every count from 1 to xmax, zero where the histogram has no row.
    std::vector<uint64_t> y(xmax + 1, 0);
    for (const auto& [x, n] : rows[c])
      if (x <= xmax) y[x] = n;
    std::string points;
    for (uint64_t x = 1; x <= xmax; ++x) points += strf("%.1f,%.1f ", px(static_cast<double>(x)), py(static_cast<double>(y[x])));
    svg += std::string("<polyline class=\"cn\" fill=\"none\" stroke-width=\"2\" stroke=\"") + kColours[c] +
           "\" points=\"" + points + "\"><title>" + kNames[c] + (c == 0 ? "" : c == 5 ? " copies" : c == 1 ? " copy" : " copies") +
           "</title></polyline>\n";
    svg += strf("<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"4\" fill=\"", kLeft + kPlotW + 14, kTop + 12 + 18 * c) +
           kColours[c] + "\"/>" +
           strf("<text x=\"%.0f\" y=\"%.0f\">", kLeft + kPlotW + 34, kTop + 18 + 18 * c) +
           (c == 0 ? std::string("read-only") : std::string(kNames[c]) + (c == 1 ? " copy" : " copies")) + "</text>\n";
  }
  // Assembly-only k-mers (in the assembly, absent from the reads): a bar at
  // count 0, cut at the top of the plot with its number when taller.
  if (r.missing_distinct) {
    const double h = static_cast<double>(r.missing_distinct);
    svg += strf("<rect class=\"asm-only\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#000\">",
                px(-0.4), py(h), px(0.4) - px(-0.4), kTop + kPlotH - py(h)) +
           "<title>assembly only: " + format_count(r.missing_distinct) + " distinct k-mers</title></rect>\n";
    svg += strf("<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", px(0.6), std::max(py(h), kTop + 12)) +
           "assembly only: " + format_count(r.missing_distinct) + "</text>\n";
  }
  svg += strf("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">0</text>\n", px(0), kTop + kPlotH + 16);
  svg += "</svg>\n";
  return svg;
}

namespace {

// A share as a percentage of 3 decimals, or more when those would round a
// share short of 1 up to 100% (99.9998% is not 100.000%).
std::string percent_unrounded(double share) {
  int digits = 3;
  while (share < 1 && digits < 9 && strf("%.*f", digits, 100 * share) == strf("%.*f", digits, 100.0)) ++digits;
  return strf("%.*f%%", digits, 100 * share);
}

}  // namespace

std::string qv_report_html(const std::string& assembly, const QvResult& r) {
  const double error = r.asm_kmers ? kmer_error_rate(r.missing, r.asm_kmers, r.k) : 0;
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"QV", r.missing ? strf("%.2f", phred_qv(error)) : "no k-mer missing"},
      {"Error rate (per base)", strf("%.3g", error)},
      {"Assembly k-mers absent from the reads", format_count(r.missing) + " of " + format_count(r.asm_kmers)},
      {"Completeness (solid read k-mers in the assembly)",
       r.solid_distinct
           ? percent_unrounded(static_cast<double>(r.solid_in_asm) / static_cast<double>(r.solid_distinct))
           : std::string("no solid k-mer")},
      {"Solid: read count above", std::to_string(r.solid_threshold)}};
  // Per sequence, as PREFIX.NAME.qv holds it: the first 1,000 in input order.
  std::string table;
  if (!r.sequences.empty()) {
    table = "<h2>Per sequence</h2>\n<table class=\"sequences\">\n<tr><th>sequence</th><th>k-mers</th><th>absent from "
            "the reads</th><th>QV</th><th>error rate</th></tr>\n";
    const size_t shown = std::min<size_t>(r.sequences.size(), 1000);
    for (size_t i = 0; i < shown; ++i) {
      const SequenceQv& q = r.sequences[i];
      const double e = q.kmers ? kmer_error_rate(q.missing, q.kmers, r.k) : 0;
      table += "<tr><td>" + html_escape(q.name) + "</td><td class=\"n\">" + format_count(q.kmers) +
               "</td><td class=\"n\">" + format_count(q.missing) + "</td><td class=\"n\">" +
               (!q.kmers ? std::string("na") : q.missing ? strf("%.2f", phred_qv(e)) : std::string("inf")) +
               "</td><td class=\"n\">" + (q.kmers ? strf("%.3g", e) : std::string("na")) + "</td></tr>\n";
    }
    table += "</table>\n";
    if (shown < r.sequences.size())
      table += "<p>" + format_count(r.sequences.size() - shown) + " more sequences in the per-sequence .qv file.</p>\n";
  }
  return figure_page("kmerbloom qv: " + assembly, "Assembly quality: " + assembly, rows, spectra_cn_svg(r) + table);
}

}  // namespace kmerbloom
