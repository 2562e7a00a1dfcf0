#include "profile/genome_plot.hpp"

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "formats/output.hpp"
#include "report/report.hpp"

namespace kmerbloom {
namespace {

constexpr double kLeft = 80, kTop = 40, kPlotW = 420, kPlotH = 300, kGap = 90;
constexpr double kWidth = 2 * (kLeft + kPlotW) + kGap, kHeight = kTop + kPlotH + 100;
// Copy numbers 1 .. 12 (ploidy 6, two-copy repeats).
constexpr const char* kCopyColours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                        "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939"};

struct Panel {
  double left;
  bool log;
  double xmax, ymin, ymax;
  double px(double x) const {
    return log ? left + kPlotW * std::log10(x) / std::log10(xmax) : left + kPlotW * (x - 1) / (xmax - 1);
  }
  double py(double y) const {
    if (log) {
      const double v = std::log10(std::max(y, ymin));
      return kTop + kPlotH * (1 - (v - std::log10(ymin)) / (std::log10(ymax) - std::log10(ymin)));
    }
    return kTop + kPlotH * (1 - std::min(y, ymax) / ymax);
  }
};

std::string polyline(const Panel& pn, uint64_t xmax, const auto& y, const std::string& attrs, const std::string& name) {
  std::string points;
  for (uint64_t x = 1; x <= xmax; ++x) {
    const double v = y(x);
    if (pn.log && v < pn.ymin) continue;
    points += strf("%.1f,%.1f ", pn.px(static_cast<double>(x)), pn.py(v));
  }
  return "<polyline fill=\"none\" " + attrs + " points=\"" + points + "\"><title>" + html_escape(name) +
         "</title></polyline>\n";
}

std::string axes(const Panel& pn, const char* heading) {
  std::string s = strf("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fbfbfd\" stroke=\"#999\"/>\n",
                       pn.left, kTop, kPlotW, kPlotH);
  s += strf("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>\n", pn.left + kPlotW / 2,
            kTop - 12, heading);
  if (pn.log) {
    for (double x = 1; x <= pn.xmax; x *= 10)
      s += strf("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>\n", pn.px(x), kTop + kPlotH + 16, x);
    for (double y = pn.ymin; y <= pn.ymax; y *= 10)
      s += strf("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", pn.left - 6, pn.py(y) + 4) + format_quantity(y) +
           "</text>\n";
  } else {
    const double xs = tick_step(pn.xmax), ys = tick_step(pn.ymax);
    for (double x = xs; x <= pn.xmax; x += xs)
      s += strf("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>\n", pn.px(x), kTop + kPlotH + 16, x);
    for (double y = 0; y <= pn.ymax; y += ys)
      s += strf("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", pn.left - 6, pn.py(y) + 4) + format_quantity(y) +
           "</text>\n";
  }
  s += strf("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">k-mer count</text>\n", pn.left + kPlotW / 2,
            kTop + kPlotH + 36);
  s += strf("<text x=\"%.0f\" y=\"%.0f\" transform=\"rotate(-90 %.0f %.0f)\" text-anchor=\"middle\">distinct "
            "k-mers</text>\n",
            pn.left - 60, kTop + kPlotH / 2, pn.left - 60, kTop + kPlotH / 2);
  return s;
}

}  // namespace

std::string profile_svg(const std::vector<uint64_t>& histogram, const GenomeProfile& p, const std::string& title) {
  // Across: the rows fitted (or 100 without a fit); rows past the histogram are zeros.
  const uint64_t xmax = std::max<uint64_t>(p.fit_last ? p.fit_last : 100, 10);
  const auto f = [&](uint64_t x) { return x < histogram.size() ? static_cast<double>(histogram[x]) : 0.0; };
  // Up (linear): the highest genomic row, so the errors at count 1 do not flatten the rest.
  double ymax = 1, ylog = 1;
  for (uint64_t x = 1; x <= xmax; ++x) {
    ylog = std::max(ylog, f(x));
    if (!p.fitted || static_cast<double>(x) > 0.5 * p.kmer_coverage) ymax = std::max(ymax, f(x));
  }
  const Panel lin{kLeft, false, static_cast<double>(xmax), 0, 1.15 * ymax};
  const Panel lg{2 * kLeft + kPlotW + kGap - kLeft, true, static_cast<double>(xmax), 1,
                 std::pow(10, std::ceil(std::log10(ylog + 1)))};

  std::string svg = strf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f "
                         "%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
                         kWidth, kHeight, kWidth, kHeight);
  svg += "<title>k-mer spectrum of " + html_escape(title) + " with the fitted genome model</title>\n";
  for (const Panel* pn : {&lin, &lg}) {
    svg += axes(*pn, pn->log ? "log scale" : "linear scale");
    svg += polyline(*pn, xmax, f, "stroke=\"#000\" stroke-width=\"1.5\" class=\"observed\"", "observed");
    if (!p.fitted) continue;
    svg += polyline(*pn, xmax, [&](uint64_t x) { return p.model_at(x); },
                    "stroke=\"#000\" stroke-width=\"2\" stroke-dasharray=\"6 3\" class=\"model\"", "model");
    svg += polyline(*pn, xmax, [&](uint64_t x) { return p.errors_at(x); },
                    "stroke=\"#d8a000\" stroke-width=\"1.5\" class=\"errors\"", "errors");
    for (unsigned j = 1; j <= 2 * p.ploidy; ++j)
      svg += polyline(*pn, xmax, [&](uint64_t x) { return p.copies_at(j, x); },
                      std::string("stroke=\"") + kCopyColours[j - 1] + "\" stroke-width=\"1.2\" class=\"copies\"",
                      std::to_string(j) + (j == 1 ? " copy" : " copies"));
  }
  // The legend, and the fitted figures under it.
  double x = kLeft;
  const double y = kTop + kPlotH + 62;
  auto key = [&](const std::string& colour, const std::string& name) {
    svg += strf("<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"4\" fill=\"", x, y - 4) + colour + "\"/>" +
           strf("<text x=\"%.0f\" y=\"%.0f\">", x + 18, y) + html_escape(name) + "</text>\n";
    x += 26 + 7.0 * static_cast<double>(name.size());
  };
  key("#000", "observed");
  if (p.fitted) {
    key("#d8a000", "errors");
    for (unsigned j = 1; j <= 2 * p.ploidy; ++j) key(kCopyColours[j - 1], std::to_string(j) + "x");
  }
  const std::string line =
      p.fitted ? strf("ploidy %u, k %u: haploid length ", p.ploidy, p.k) + format_bases(p.genome_length) +
                     strf(", heterozygosity %.3f%%, k-mer coverage %.1fx, error rate %.3f%%, model fit %.1f%%",
                          100 * p.heterozygosity, p.kmer_coverage, 100 * p.error_rate, 100 * p.model_fit)
               : "not fitted: " + p.verdict;
  svg += strf("<text x=\"%.0f\" y=\"%.0f\" class=\"verdict\">", kLeft, y + 24) + html_escape(line) + "</text>\n";
  svg += "</svg>\n";
  return svg;
}

namespace {

// The fitted figures as (name, value) rows, for the report's section and the
// page; none when not fitted.
std::vector<std::pair<std::string, std::string>> profile_rows(const GenomeProfile& p) {
  const auto bp = [](double v) { return format_count(static_cast<uint64_t>(std::llround(v))) + " bp"; };
  std::vector<std::pair<std::string, std::string>> rows;
  if (!p.fitted) return rows;
  rows.emplace_back("Haploid genome length",
                    bp(p.genome_length) + " (" + bp(p.genome_length_low) + " to " + bp(p.genome_length_high) + ")");
  rows.emplace_back("Unique length", bp(p.unique_length));
  rows.emplace_back("Repeat length", bp(p.repeat_length));
  rows.emplace_back("Heterozygosity", p.ploidy > 1 ? strf("%.3f%%", 100 * p.heterozygosity) : std::string("haploid"));
  if (p.ploidy > 2)
    for (const auto& f : p.het_forms)
      rows.emplace_back("&nbsp;&nbsp;" + f.name, f.high - f.low < 5e-6 ? strf("%.3f%%", 100 * f.low)
                                                                       : strf("%.3f%% to %.3f%%", 100 * f.low, 100 * f.high));
  rows.emplace_back("k-mer coverage", strf("%.2fx", p.kmer_coverage));
  rows.emplace_back("Read error rate", strf("%.3f%%", 100 * p.error_rate));
  rows.emplace_back("Model fit", strf("%.1f%%", 100 * p.model_fit));
  return rows;
}

}  // namespace

std::string profile_report_section(const std::vector<uint64_t>& histogram, const GenomeProfile& p) {
  std::string s = "<section>\n<h2>Genome profile</h2>\n";
  s += "<p>GenomeScope 2.0's model fitted to the spectrum at ploidy " + std::to_string(p.ploidy) +
       " (<code>kmerbloom profile</code>, docs/profile.md): " + html_escape(p.verdict) + ".</p>\n";
  if (p.fitted) {
    s += "<table>\n";
    for (const auto& [name, value] : profile_rows(p)) s += "<tr><th>" + name + "</th><td>" + html_escape(value) + "</td></tr>\n";
    s += "</table>\n";
  }
  s += profile_svg(histogram, p, "the reads") + "</section>\n";
  return s;
}

std::string profile_report_html(const std::vector<uint64_t>& histogram, const GenomeProfile& p,
                                const std::string& sample) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Ploidy, k", std::to_string(p.ploidy) + ", " + std::to_string(p.k)}, {"Verdict", p.verdict}};
  for (auto& row : profile_rows(p)) rows.push_back(std::move(row));
  for (const auto& note : p.notes) rows.emplace_back("Note", note);
  return figure_page("kmerbloom profile: " + sample, "Genome profile: " + sample, rows, profile_svg(histogram, p, sample));
}

void write_profile_svg(const std::vector<uint64_t>& histogram, const GenomeProfile& p, const std::string& title,
                       const std::string& path) {
  OutputFile out(path);
  out.write(profile_svg(histogram, p, title));
  out.commit();
}

}  // namespace kmerbloom
