#include "profile/smudge_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/format.hpp"
#include "report/report.hpp"

namespace kmerbloom {
namespace {

constexpr int kCols = 50, kRows = 40;                  // cells: shares 0.01 wide, sums in log steps
constexpr double kLeft = 70, kTop = 40, kCell = 10;    // pixels
constexpr double kWidth = kLeft + kCols * kCell + 170, kHeight = kTop + kRows * kCell + 60;

// Dark blue (few pairs) to yellow (many), as smudgeplot's palette runs.
std::string colour(double t) {
  static const double stops[][3] = {{49, 54, 149}, {69, 117, 180}, {116, 173, 209}, {171, 217, 233},
                                    {254, 224, 144}, {253, 174, 97}, {244, 109, 67}, {215, 48, 39}};
  constexpr int n = 8;
  const double x = std::clamp(t, 0.0, 1.0) * (n - 1);
  const int i = std::min(static_cast<int>(x), n - 2);
  const double f = x - i;
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(stops[i][0] + f * (stops[i + 1][0] - stops[i][0])),
                static_cast<int>(stops[i][1] + f * (stops[i + 1][1] - stops[i][1])),
                static_cast<int>(stops[i][2] + f * (stops[i + 1][2] - stops[i][2])));
  return buf;
}

struct Axes {
  double lo, hi;  // log10 of the coverage sums at the bottom and the top
  double y(double sum) const { return kTop + kRows * kCell * (1 - (std::log10(sum) - lo) / (hi - lo)); }
  static double x(double share) { return kLeft + kCols * kCell * share / 0.5; }
};

}  // namespace

std::string smudge_svg(const SmudgeGrid& grid, const SmudgePeak& peak, uint64_t lower) {
  uint64_t top = 2 * std::max<uint64_t>(lower, 1) + 1;
  for (uint64_t s = 2; s <= kMaxPairCoverage; ++s)
    for (uint64_t m = 1; m <= s / 2 && m <= kMaxMinorCoverage; ++m)
      if (grid.at(s, m)) top = std::max(top, s);
  const Axes ax{std::log10(static_cast<double>(2 * std::max<uint64_t>(lower, 1))), std::log10(static_cast<double>(top) + 1)};
  std::vector<uint64_t> cells(kCols * kRows, 0);
  uint64_t most = 0;
  for (uint64_t s = 2; s <= kMaxPairCoverage; ++s)
    for (uint64_t m = 1; m <= s / 2 && m <= kMaxMinorCoverage; ++m)
      if (const uint64_t n = grid.at(s, m)) {
        const double share = static_cast<double>(m) / static_cast<double>(s);
        const int c = std::min(kCols - 1, static_cast<int>(share / 0.5 * kCols));
        const double up = (std::log10(static_cast<double>(s)) - ax.lo) / (ax.hi - ax.lo);
        const int r = std::clamp(static_cast<int>(up * kRows), 0, kRows - 1);
        most = std::max(most, cells[r * kCols + c] += n);
      }
  std::string svg = strf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                        "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
                        kWidth, kHeight, kWidth, kHeight);
  svg += "<title>smudge plot: coverage sum of het-mer pairs against the minor count's share</title>\n";
  svg += strf("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f8\" stroke=\"#999\"/>\n", kLeft,
             kTop, kCols * kCell, kRows * kCell);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c)
      if (const uint64_t n = cells[r * kCols + c]) {
        const double t = most > 1 ? std::log(static_cast<double>(n)) / std::log(static_cast<double>(most)) : 1.0;
        svg += "<rect class=\"cell\" x=\"" + strf("%.0f", kLeft + c * kCell) + "\" y=\"" +
               strf("%.0f", kTop + (kRows - 1 - r) * kCell) + "\" width=\"10\" height=\"10\" fill=\"" + colour(t) +
               "\"><title>" + format_count(n) + " pairs</title></rect>\n";
      }
  // The shares of the structures: 1/2 AB, 1/3 AAB, 1/4 AAAB, 1/5 AAAAB.
  const char* names[] = {"AB", "AAB", "AAAB", "AAAAB"};
  for (int d = 2; d <= 5; ++d) {
    const double x = Axes::x(1.0 / d);
    svg += strf("<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#666\" stroke-dasharray=\"3 3\"/>\n", x,
               kTop, x, kTop + kRows * kCell);
    // AAAB and AAAAB lie 50 pixels apart: their labels on two lines.
    svg += strf("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#444\">", x, kTop - (d == 5 ? 20 : 6)) +
           names[d - 2] + "</text>\n";
  }
  // Axes: shares across, sums up (powers of ten and their doubles).
  for (int i = 0; i <= 5; ++i)
    svg += strf("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.1f</text>\n", Axes::x(i * 0.1),
               kTop + kRows * kCell + 16, i * 0.1);
  svg += strf("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">minor count / coverage sum</text>\n",
             kLeft + kCols * kCell / 2, kTop + kRows * kCell + 36);
  for (double v = 1; v <= 1000; v *= 10)
    for (const double m : {1.0, 2.0, 5.0}) {
      const double sum = v * m;
      if (std::log10(sum) < ax.lo || std::log10(sum) > ax.hi) continue;
      svg += strf("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", kLeft - 6, ax.y(sum) + 4, sum);
    }
  svg += strf("<text x=\"16\" y=\"%.0f\" transform=\"rotate(-90 16 %.0f)\" text-anchor=\"middle\">coverage sum "
             "(log)</text>\n",
             kTop + kRows * kCell / 2, kTop + kRows * kCell / 2);
  if (peak.found && std::isfinite(peak.sum) && peak.sum > 0) {
    const double x = Axes::x(peak.minor_share), y = ax.y(peak.sum);
    svg += strf("<circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>\n",
               x, y);
    const std::string label =
        peak.ploidy ? peak.structure + ": ploidy " + std::to_string(peak.ploidy) + strf(", 1n %.1fx", peak.haploid_coverage)
                    : std::string("no ploidy said");
    svg += strf("<text class=\"verdict\" x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">", kLeft + kCols * kCell + 12,
               kTop + 14) +
           html_escape(label) + "</text>\n";
    svg += strf("<text x=\"%.0f\" y=\"%.0f\">share %.3f, sum %.1f</text>\n", kLeft + kCols * kCell + 12, kTop + 32,
               peak.minor_share, peak.sum);
  } else {
    svg += strf("<text class=\"verdict\" x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">no pairs</text>\n",
               kLeft + kCols * kCell + 12, kTop + 14);
  }
  // The colour scale: pairs a cell, on the log scale the cells are coloured by.
  if (most > 0) {
    const double x = kLeft + kCols * kCell + 12, y0 = kTop + 70, h = 200;
    svg += "<defs><linearGradient id=\"pairs\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
    for (int i = 0; i <= 7; ++i) svg += strf("<stop offset=\"%.3f\" stop-color=\"", i / 7.0) + colour(i / 7.0) + "\"/>";
    svg += "</linearGradient></defs>\n";
    svg += strf("<text x=\"%.0f\" y=\"%.0f\">pairs a cell (log)</text>\n", x, y0 - 8);
    svg += strf("<rect class=\"scale\" x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"%.0f\" fill=\"url(#pairs)\" "
                "stroke=\"#999\"/>\n",
                x, y0, h);
    svg += strf("<text x=\"%.0f\" y=\"%.0f\">", x + 20, y0 + 10) + format_count(most) + "</text>\n";
    if (most > 10) {
      const double mid = std::sqrt(static_cast<double>(most));  // halfway on the log scale
      svg += strf("<text x=\"%.0f\" y=\"%.0f\">", x + 20, y0 + h / 2 + 4) +
             format_count(static_cast<uint64_t>(std::llround(mid))) + "</text>\n";
    }
    svg += strf("<text x=\"%.0f\" y=\"%.0f\">1</text>\n", x + 20, y0 + h);
  }
  svg += "</svg>\n";
  return svg;
}

std::string smudge_report_html(const std::string& sample, const SmudgeGrid& grid, const SmudgePeak& peak,
                               uint64_t lower, uint64_t upper, uint64_t unique_pairs) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Counts searched", std::to_string(lower) + " to " + std::to_string(upper)},
      {"Unique pairs (with their reverse complements)", format_count(unique_pairs)},
      {"k-mers in unique pairs", strf("%.2f%%", 100 * peak.pair_kmer_share)}};
  if (peak.found && std::isfinite(peak.sum))
    rows.emplace_back("Densest smudge", strf("minor share %.3f at coverage sum %.1f", peak.minor_share, peak.sum));
  rows.emplace_back("Suggests", peak.ploidy ? peak.structure + ", ploidy " + std::to_string(peak.ploidy) +
                                                  strf(", 1n coverage %.1f", peak.haploid_coverage)
                                            : "no ploidy: " + peak.note);
  return figure_page("kmerbloom hetmers: " + sample, "Het-mer pairs: " + sample, rows, smudge_svg(grid, peak, lower));
}

}  // namespace kmerbloom
