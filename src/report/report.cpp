#include "report/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "common/format.hpp"
#include "formats/output.hpp"
#include "report/count_summary.hpp"

namespace kmerbloom {
std::string strf(const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  const int n = std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  return n < 0 ? std::string() : std::string(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

double tick_step(double v) {
  const double raw = std::max(v / 6, 1.0), p = std::pow(10, std::floor(std::log10(raw)));
  return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

std::string figure_page(const std::string& title, const std::string& heading,
                        const std::vector<std::pair<std::string, std::string>>& rows, const std::string& svg) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
                  "</title>\n<style>body{font-family:sans-serif;margin:2em;color:#222}"
                  "table{border-collapse:collapse;max-width:52em}td,th{padding:2px 10px;text-align:left}"
                  "td.n{text-align:right}</style></head><body>\n<h1>" +
                  html_escape(heading) + "</h1>\n<table>\n";
  for (const auto& [key, value] : rows) h += "<tr><th>" + key + "</th><td class=\"n\">" + html_escape(value) + "</td></tr>\n";
  return h + "</table>\n" + svg + "</body></html>\n";
}

namespace {

using nlohmann::json;


std::string percent(double share) { return strf(share < 0.001 && share > 0 ? "%.3f%%" : "%.1f%%", 100 * share); }

// Short decade labels for the log axis: 1, 10, 100, 1k, ... 1G.
std::string decade_label(int e) {
  static const char* const suffix[] = {"", "k", "M", "G", "T", "P"};
  const int group = std::min(e / 3, 5);
  std::string s = "1";
  for (int i = 0; i < e - 3 * group; ++i) s += '0';
  return s + suffix[group];
}

// Lenient readers: a field that is absent, null or of another type reads as empty.
const json* field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}
bool has_num(const json& j, const char* key) { return field(j, key) && field(j, key)->is_number(); }
double num(const json& j, const char* key) { return has_num(j, key) ? field(j, key)->get<double>() : 0.0; }
uint64_t unum(const json& j, const char* key) {
  const json* f = field(j, key);  // signed when built in memory, unsigned when parsed
  return f && (f->is_number_unsigned() || (f->is_number_integer() && f->get<int64_t>() >= 0)) ? f->get<uint64_t>() : 0;
}
std::string text(const json& j, const char* key) {
  return field(j, key) && field(j, key)->is_string() ? field(j, key)->get<std::string>() : std::string();
}

// ---------------------------------------------------------------- the plot

struct Frame {
  double left, top, width, height, xmax, ytop;
  double x(double c) const { return left + c / xmax * width; }
  double y(double v) const { return top + height - std::log10(v) / ytop * height; }
  double bottom() const { return top + height; }
};

std::string svg_text(double x, double y, const std::string& t, const char* attrs = "") {
  return strf("<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs) + html_escape(t) + "</text>\n";
}
std::string vline(double x, double y1, double y2, const char* attrs) {
  return strf("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" %s/>\n", x, x, y1, y2, attrs);
}

double nice_step(double span, int target) {
  const double raw = span / target, mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) return std::max(1.0, m * mag);
  return std::max(1.0, 10 * mag);
}

}  // namespace

std::string html_escape(const std::string& t) {
  std::string out;
  out.reserve(t.size());
  for (char c : t) {
    const char* e = c == '&'    ? "&amp;"
                    : c == '<'  ? "&lt;"
                    : c == '>'  ? "&gt;"
                    : c == '"'  ? "&quot;"
                    : c == '\'' ? "&#39;"
                                : nullptr;
    if (e)
      out += e;
    else
      out += c;
  }
  return out;
}

namespace {

// The rows a plot shows: up to about 3x the peak, never the overflow row.
struct PlotRows {
  size_t last = 0;       // last non-zero row
  size_t drawable = 0;   // last row that may be drawn
  size_t xmax = 10;      // x axis end
  bool overflow_row = false;
  uint64_t maxf = 1;     // highest row shown
  uint64_t hidden = 0;   // k-mers in rows not shown
};

PlotRows plot_rows(const std::vector<uint64_t>& h, const SpectrumAnalysis& a) {
  PlotRows p;
  p.last = h.empty() ? 0 : h.size() - 1;
  while (p.last >= 1 && h[p.last] == 0) --p.last;
  p.overflow_row = a.overflow_row != 0 && a.overflow_row == p.last;
  p.drawable = p.overflow_row ? p.last - 1 : p.last;
  size_t xmax = 10;
  if (a.has_peak) {
    xmax = std::max<size_t>(10, static_cast<size_t>(std::ceil(3 * a.peak_coverage)));
  } else if (a.kmers_distinct > 0) {  // cover 99.9% of the distinct k-mers
    uint64_t seen = 0;
    for (size_t c = 1; c <= p.drawable; ++c) {
      seen += h[c];
      if (static_cast<double>(seen) >= 0.999 * static_cast<double>(a.kmers_distinct)) {
        xmax = std::max<size_t>(10, c + 1);
        break;
      }
    }
  }
  p.xmax = std::max<size_t>(10, std::min(xmax, std::max<size_t>(p.drawable + 1, 10)));
  for (size_t c = 1; c <= p.last; ++c) {
    const bool shown = c <= p.xmax && !(p.overflow_row && c == p.last);
    p.hidden += shown ? 0 : h[c];
    if (shown) p.maxf = std::max(p.maxf, h[c]);
  }
  return p;
}

// Error region, grid, axes and their labels.
std::string svg_axes(const Frame& fr, const SpectrumAnalysis& a, double H) {
  std::string s;
  if (a.has_trough && a.trough > 1)
    s += strf("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbe4e1\"/>\n", fr.left, fr.top,
              fr.x(static_cast<double>(a.trough)) - fr.left, fr.height);
  const int yt = static_cast<int>(fr.ytop), ystep = yt > 8 ? 2 : 1;
  for (int e = 0; e <= yt; e += ystep) {
    const double y = fr.y(std::pow(10.0, e));
    s += strf("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", fr.left,
              fr.left + fr.width, y, y);
    s += svg_text(fr.left - 8, y + 4, decade_label(e), "text-anchor=\"end\" fill=\"#444\"");
  }
  const double step = nice_step(fr.xmax, 8);
  for (double c = 0; c <= fr.xmax + 1e-9; c += step) {
    const double x = fr.x(c);
    s += vline(x, fr.bottom(), fr.bottom() + 5, "stroke=\"#444\"");
    s += svg_text(x, fr.bottom() + 19, strf("%.0f", c), "text-anchor=\"middle\" fill=\"#444\"");
  }
  s += strf("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n", fr.left,
            fr.top, fr.width, fr.height);
  s += svg_text(fr.left + fr.width / 2, H - 14, "k-mer count (times a k-mer was seen)",
                "text-anchor=\"middle\" fill=\"#222\"");
  s += strf(
      "<text transform=\"translate(22 %.1f) rotate(-90)\" text-anchor=\"middle\" fill=\"#222\">"
      "distinct k-mers (log scale)</text>\n",
      fr.top + fr.height / 2);
  return s;
}

// The spectrum: filled area and line, broken where a row is empty.
std::string svg_curve(const std::vector<uint64_t>& h, const Frame& fr, size_t end) {
  std::string area, line;
  size_t c = 1;
  while (c <= end) {
    if (h[c] == 0) {
      ++c;
      continue;
    }
    const size_t first = c;
    std::string pts;
    for (; c <= end && h[c] > 0; ++c)
      pts +=
          strf("%s%.1f %.1f ", pts.empty() ? "M" : "L", fr.x(static_cast<double>(c)), fr.y(static_cast<double>(h[c])));
    if (c - first == 1)  // a lone row: a short tick so it stays visible
      pts += strf("L%.1f %.1f ", fr.x(static_cast<double>(first)) + 1.5, fr.y(static_cast<double>(h[first])));
    line += pts;
    area += pts + strf("L%.1f %.1f L%.1f %.1f Z ", fr.x(static_cast<double>(c - 1)), fr.bottom(),
                       fr.x(static_cast<double>(first)), fr.bottom());
  }
  return "<path d=\"" + area + "\" fill=\"#cfe0f3\" stroke=\"none\"/>\n" + "<path d=\"" + line +
         "\" fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"1.8\" stroke-linejoin=\"round\"/>\n";
}

// Marks: trough, peak, secondary peaks.
std::string svg_marks(const std::vector<uint64_t>& h, const SpectrumAnalysis& a, const Frame& fr) {
  std::string s;
  double trough_x = -1e9;
  if (a.has_trough && a.trough > 1) {
    trough_x = fr.x(static_cast<double>(a.trough));
    s += vline(trough_x, fr.top, fr.bottom(), "stroke=\"#c0392b\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"");
    const bool right = trough_x + 170 < fr.left + fr.width;
    s += svg_text(right ? trough_x + 5 : trough_x - 5, fr.top + 16,
                  strf("error trough: %zu", static_cast<size_t>(a.trough)),
                  right ? "fill=\"#c0392b\"" : "fill=\"#c0392b\" text-anchor=\"end\"");
    // Below the trough label, on the side of the line away from the steep error curve.
    s += svg_text(right ? trough_x + 5 : trough_x - 5, fr.top + 32, right ? "\u25c2 errors" : "errors \u25c2",
                  right ? "fill=\"#c0392b\" font-style=\"italic\""
                        : "fill=\"#c0392b\" font-style=\"italic\" text-anchor=\"end\"");
  }
  if (a.has_peak) {
    const double px = fr.x(a.peak_coverage);
    s += vline(px, fr.top, fr.bottom(), "stroke=\"#1e7b34\" stroke-width=\"1.5\"");
    // The marker sits on the curve at the refined position (log-interpolated).
    const auto lo = static_cast<size_t>(std::floor(a.peak_coverage));
    const double t = a.peak_coverage - static_cast<double>(lo);
    auto logf = [&](size_t r) {
      return std::log10(static_cast<double>(std::max<uint64_t>(1, r < h.size() ? h[r] : 0)));
    };
    const double ly_curve = (1 - t) * logf(lo) + t * logf(lo + 1);
    s += strf("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#1e7b34\"/>\n", px, fr.y(std::pow(10.0, ly_curve)));
    const double ly = std::fabs(px - trough_x) < 175 ? fr.top + 50 : fr.top + 16;  // clear of the trough labels
    s += svg_text(px + 5, ly, strf("peak: %.1fx", a.peak_coverage), "fill=\"#1e7b34\" font-weight=\"bold\"");
  }
  for (double cov : {a.half_peak_coverage, a.double_peak_coverage}) {
    if (cov <= 0 || cov > fr.xmax) continue;
    const double x = fr.x(cov);
    s += vline(x, fr.top + 56, fr.bottom(), "stroke=\"#7d3c98\" stroke-dasharray=\"2 3\"");
    s += svg_text(x + 4, fr.top + 70, strf("%.1fx", cov), "fill=\"#7d3c98\"");
  }

  return s;
}

// The summary above the plot, where it hides no part of the curve.
std::string svg_summary(const SpectrumAnalysis& a, const Frame& fr, const PlotRows& rows) {
  std::string s, summary;
  if (a.has_peak)
    summary = "genome size \u2248 " + format_bases(a.genome_size) +
              strf("  \u00b7  peak coverage %.1fx", a.peak_coverage) +
              "  \u00b7  errors: " + percent(a.error_distinct_share) + " of distinct k-mers";
  else
    summary = "no coverage peak found";
  s += strf("<text x=\"%.1f\" y=\"48\" fill=\"#333\">", fr.left) + html_escape(summary);
  if (!a.reliable) s += "<tspan fill=\"#b35900\" font-weight=\"bold\">  \u00b7  unreliable: see the notes</tspan>";
  s += "</text>\n";
  if (rows.hidden)
    s += svg_text(fr.left + fr.width, 24,
                  format_count(rows.hidden) + " k-mers beyond " + std::to_string(rows.xmax) + " not shown",
                  "text-anchor=\"end\" fill=\"#777\" font-size=\"12\"");
  return s;
}

}  // namespace

std::string spectrum_svg(const std::vector<uint64_t>& h, const SpectrumAnalysis& a, const PlotOptions& o) {
  const double W = o.width, H = o.height;
  std::string s = strf(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %u %u\" width=\"%u\" height=\"%u\" "
      "font-family=\"DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif\" font-size=\"13\" "
      "role=\"img\" aria-label=\"k-mer spectrum\">\n",
      o.width, o.height, o.width, o.height);
  s += strf("<rect width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n", o.width, o.height);
  const std::string title = o.k ? strf("k-mer spectrum (k = %u)", o.k) : std::string("k-mer spectrum");
  s += svg_text(80, 24, title, "font-size=\"16\" font-weight=\"bold\" fill=\"#222\"");

  const PlotRows rows = plot_rows(h, a);
  const double ytop = std::max(1.0, std::ceil(std::log10(static_cast<double>(rows.maxf)) + 0.05));
  const Frame fr{80, 62, W - 80 - 24, H - 62 - 58, static_cast<double>(rows.xmax), ytop};
  s += svg_axes(fr, a, H);
  if (a.kmers_distinct == 0) {
    s += svg_text(fr.left + fr.width / 2, fr.top + fr.height / 2, "no k-mers in the histogram",
                  "text-anchor=\"middle\" font-size=\"18\" fill=\"#a33\"");
    return s + "</svg>\n";
  }
  s += svg_curve(h, fr, std::min<size_t>(rows.xmax, rows.drawable));
  s += svg_marks(h, a, fr);
  s += svg_summary(a, fr, rows);
  return s + "</svg>\n";
}

// -------------------------------------------------------------------- HTML

namespace {

const char* const kStyle = R"(
body{font-family:"DejaVu Sans","Liberation Sans",Arial,Helvetica,sans-serif;margin:0;background:#f4f5f7;color:#222}
main{max-width:1000px;margin:0 auto;padding:20px 28px 40px}
h1{font-size:26px;margin:8px 0 4px}h2{font-size:19px;margin:0 0 12px;color:#1f3f66}
.sub{color:#555;margin:0 0 18px;font-size:14px;word-break:break-all}
section{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:16px 20px;margin:0 0 18px}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{padding:5px 8px;border-bottom:1px solid #eceef1;text-align:left;vertical-align:top}
th{color:#555;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.kv th{width:34%;font-weight:normal}
code{font-family:"DejaVu Sans Mono","Liberation Mono",monospace;font-size:12.5px;word-break:break-all}
svg{max-width:100%;height:auto;display:block;margin:0 auto 10px}
.bar{background:#e8edf3;border-radius:3px;height:12px;min-width:90px;flex:1}
.fill{display:flex;align-items:center;gap:8px}
.bar span{display:block;height:12px;border-radius:3px;background:#3c78b4}
.ok,.warn{border-radius:4px;padding:8px 12px;margin:12px 0 6px;font-size:14px}
.ok{background:#e6f4ea;border:1px solid #9fd3ad}.warn{background:#fff4e0;border:1px solid #f0c27a}
ul{margin:6px 0 0 0;padding-left:20px;font-size:14px}.muted{color:#666;font-size:13px}
.tag{font-size:11px;background:#eef;border:1px solid #ccd;border-radius:3px;padding:0 4px;margin-left:6px;color:#446}
)";

struct Html {
  std::string s;
  void row(const std::string& key, const std::string& value_html) {
    s += "<tr><th>" + html_escape(key) + "</th><td>" + value_html + "</td></tr>\n";
  }
};

std::string bar(double share) {
  share = std::clamp(share, 0.0, 1.0);
  return strf("<div class=\"bar\"><span style=\"width:%.1f%%\"></span></div>", 100 * share);
}

void summary_section(Html& h, const json& st, const SpectrumAnalysis& a) {
  h.s += "<section id=\"summary\"><h2>Summary</h2><table class=\"kv\">\n";
  if (const json* in = field(st, "inputs"); in && in->is_array()) {
    std::string v;
    for (const auto& p : *in)
      if (p.is_string()) v += (v.empty() ? "" : "<br>") + ("<code>" + html_escape(p.get<std::string>()) + "</code>");
    h.row("Inputs", v);
  }
  if (has_num(st, stats_key::k))
    h.row("k-mer size", std::to_string(unum(st, stats_key::k)) +
                            (field(st, stats_key::canonical) && st[stats_key::canonical] == false ? " (as read)" : " (canonical)"));
  const std::string est = field(st, stats_key::kmers_singleton_estimated) && st[stats_key::kmers_singleton_estimated] == true
                              ? "<span class=\"tag\">estimated</span>"
                              : "";
  auto count_row = [&](const char* key, const char* label, const std::string& extra = "") {
    if (has_num(st, key)) h.row(label, format_count(unum(st, key)) + extra);
  };
  count_row(stats_key::reads, "Reads");
  count_row(stats_key::bases, "Bases",
            unum(st, stats_key::bases_skipped) ? " (" + format_count(unum(st, stats_key::bases_skipped)) + " not ACGT, skipped)" : "");
  count_row(stats_key::kmers_total, "k-mers (occurrences)");
  count_row(stats_key::kmers_distinct, "Distinct k-mers", est);
  std::string range;
  if (const json* o = field(st, "options"); o && has_num(*o, "min_count"))
    range = " (count " + std::to_string(unum(*o, "min_count")) + " to " +
            (unum(*o, "max_count") >= 4294967295u ? std::string("any") : std::to_string(unum(*o, "max_count"))) + ")";
  count_row(stats_key::kmers_solid, "Solid k-mers reported", range);
  count_row(stats_key::kmers_singleton, "Singletons (seen once)", est);
  count_row(stats_key::max_count, "Largest count");
  if (a.has_peak)
    h.row("Genome size", "<b>" + format_bases(a.genome_size) + "</b> " +
                             strf("(k-mer spectrum, peak coverage %.1fx%s)", a.peak_coverage,
                                  a.reliable ? "" : "; not reliable, see below"));
  if (const json* b = field(st, "bloom"); b && field(*b, "mode"))
    h.row("Counting mode", "Bloom-gated, " + html_escape(text(*b, "mode")));
  else if (has_num(st, stats_key::kmers_total))
    h.row("Counting mode", "exact table, no Bloom filter");
  if (has_num(st, "wall_seconds"))
    h.row("Time", strf("%.1f s (CPU %.1f s, %llu threads)", num(st, "wall_seconds"), num(st, "cpu_seconds"),
                       static_cast<unsigned long long>(unum(st, "threads"))));
  if (has_num(st, "peak_memory_bytes")) h.row("Peak memory", format_bytes(num(st, "peak_memory_bytes")));
  if (field(st, "version")) h.row("Version", "kmerbloom " + html_escape(text(st, "version")));
  if (field(st, "command_line")) h.row("Command line", "<code>" + html_escape(text(st, "command_line")) + "</code>");
  h.s += "</table></section>\n";
}

void spectrum_section(Html& h, const json& st, const std::vector<uint64_t>& hist, const SpectrumAnalysis& a) {
  h.s += "<section id=\"spectrum\"><h2>k-mer spectrum</h2>\n";
  if (std::all_of(hist.begin() + (hist.empty() ? 0 : 1), hist.end(), [](uint64_t f) { return f == 0; })) {
    h.s +=
        "<p class=\"warn\">No histogram in these statistics: run <code>kmerbloom count</code> with "
        "<code>--stats</code> from a version that embeds it, or give the histogram with "
        "<code>--histo PATH</code>.</p></section>\n";
    return;
  }
  PlotOptions po;
  po.k = static_cast<unsigned>(unum(st, stats_key::k));
  h.s += spectrum_svg(hist, a, po);
  h.s += "<table class=\"kv\" id=\"analysis\">\n";
  if (a.has_trough)
    h.row("Error trough",
          "count " + std::to_string(a.trough) + " (" + format_count(a.trough_height) + " distinct k-mers)");
  if (a.has_peak) {
    h.row("Main peak",
          strf("count %llu (%s distinct k-mers); refined coverage <b>%.1fx</b>",
               static_cast<unsigned long long>(a.peak), format_count(a.peak_height).c_str(), a.peak_coverage));
    h.row("Genome size estimate", "<b>" + format_bases(a.genome_size) + "</b> (" +
                                      format_count(static_cast<uint64_t>(std::llround(a.genome_size))) +
                                      " bp: k-mer occurrences at or above the trough / peak coverage)");
    h.row("Distinct k-mers at or above the trough",
          format_count(a.distinct_above_trough) + " <span class=\"muted\">(repeats count once)</span>");
  }
  if (a.has_trough) {
    h.row("Erroneous distinct k-mers",
          format_count(a.error_distinct) + " (" + percent(a.error_distinct_share) + " of distinct k-mers)");
    h.row("Erroneous k-mer occurrences",
          format_count(a.error_kmers) + " (" + percent(a.error_kmer_share) + " of all occurrences)");
  }
  if (a.half_peak_coverage > 0) h.row("Heterozygous peak?", strf("%.1fx", a.half_peak_coverage));
  h.s += "</table>\n";
  auto list = [&](const std::vector<std::string>& items, const char* cls) {
    h.s += std::string("<ul class=\"") + cls + "\">";
    for (const auto& item : items) h.s += "<li>" + html_escape(item) + "</li>";
    h.s += "</ul>\n";
  };
  if (a.reliable) {
    h.s += "<div class=\"ok\"><b>Reliable:</b> a clear error trough and a coverage peak well above it.</div>\n";
  } else {
    h.s += "<div class=\"warn\"><b>Not reliable:</b>";
    list(a.warnings, "");
    h.s += "</div>\n";
  }
  std::vector<std::string> notes = a.notes;
  if (const json* part = field(st, "partition"); part && unum(*part, "count") > 1)
    notes.insert(notes.begin(),
                 strf("this run counted only --partition %llu/%llu: the spectrum, and so the genome size, "
                      "cover only that share of the k-mers",
                      static_cast<unsigned long long>(unum(*part, "index")),
                      static_cast<unsigned long long>(unum(*part, "count"))));
  if (!notes.empty()) list(notes, "muted");
  h.s += "</section>\n";
}

void bloom_section(Html& h, const json& st) {
  const json* b = field(st, "bloom");
  if (!b) {
    if (has_num(st, stats_key::kmers_total))
      h.s +=
          "<section id=\"bloom\"><h2>Bloom filter</h2><p>No Bloom filter in this run (<code>--no-gate</code> or "
          "<code>--min-count 1</code>): every k-mer went into the exact table.</p></section>\n";
    return;
  }
  h.s += "<section id=\"bloom\"><h2>Bloom filter</h2><table class=\"kv\">\n";
  if (field(*b, "mode")) h.row("Mode", html_escape(text(*b, "mode")));
  if (has_num(*b, "target_fpr"))
    h.row("False-positive rate", strf("target %.3g, estimated %.3g (compound over all layers)", num(*b, "target_fpr"),
                                      num(*b, "estimated_fpr")));
  const json* parts = field(st, "partitions");
  const uint64_t partitions = parts && has_num(*parts, "count") ? unum(*parts, "count") : 1;
  if (has_num(*b, "bytes"))
    h.row("Memory", format_bytes(num(*b, "bytes")) +
                        (partitions > 1 ? " at once (each thread's largest partition filter, summed)" : ""));
  if (has_num(*b, "keys_inserted")) h.row("First sightings inserted", format_count(unum(*b, "keys_inserted")));
  if (has_num(*b, "kmers_rejected_by_gate"))
    h.row("Occurrences kept out of the table", format_count(unum(*b, "kmers_rejected_by_gate")));
  h.s += "</table>\n";
  const json* layers = field(*b, "layers");
  if (layers && layers->is_array() && !layers->empty()) {
    if (partitions > 1)
      h.s += "<p class=\"muted\">Each of the " + format_count(partitions) +
             " partitions has a filter of its own, counted one after another: capacity, bits and keys are summed "
             "over them (not memory at once), the estimated false-positive rate is their mean.</p>\n";
    h.s +=
        "<table id=\"layers\"><tr><th>layer</th><th class=\"n\">capacity</th><th class=\"n\">bits</th>"
        "<th class=\"n\">hashes</th><th class=\"n\">keys</th><th>fill</th><th class=\"n\">target FPR</th>"
        "<th class=\"n\">estimated FPR</th></tr>\n";
    size_t i = 0;
    for (const auto& l : *layers) {
      const double fill = num(l, "fill");
      h.s += strf("<tr><td>%zu</td><td class=\"n\">", ++i) + format_count(unum(l, "capacity")) +
             "</td><td class=\"n\">" + format_count(unum(l, "bits")) + " <span class=\"muted\">(" +
             format_bytes(num(l, "bits") / 8) + ")</span></td><td class=\"n\">" + std::to_string(unum(l, "hashes")) +
             "</td><td class=\"n\">" + format_count(unum(l, "keys")) + "</td><td><div class=\"fill\">" + bar(fill) +
             strf(
                 "<span class=\"muted\">%.1f%%</span></div></td><td class=\"n\">%.3g</td><td class=\"n\">%.3g</td>"
                 "</tr>\n",
                 100 * fill, num(l, "target_fpr"), num(l, "estimated_fpr"));
    }
    h.s += "</table>\n";
  }
  h.s += "</section>\n";
}

// Names of the timed passes: stats["pass_names"] (count writes them) or numbers.
std::vector<std::string> pass_names(const json& st, size_t n) {
  std::vector<std::string> names;
  const json* given = field(st, "pass_names");
  for (size_t i = 0; i < n; ++i)
    names.push_back(given && given->is_array() && given->size() == n && (*given)[i].is_string()
                        ? (*given)[i].get<std::string>()
                        : strf("pass %zu", i + 1));
  return names;
}

void resources_section(Html& h, const json& st) {
  const json* mem = field(st, "memory_bytes");
  const json* passes = field(st, "pass_seconds");
  if (!mem && !passes) return;
  h.s += "<section id=\"resources\"><h2>Memory and time</h2>\n";
  // Named amounts, each with a bar for its share of their sum.
  auto table = [&](const char* id, const char* head, const char* unit, const std::vector<std::string>& names,
                   const std::vector<double>& v, auto show) {
    double total = 0;
    for (double x : v) total += x;
    h.s += strf("<table id=\"%s\"><tr><th>%s</th><th class=\"n\">%s</th><th>share</th></tr>\n", id, head, unit);
    for (size_t i = 0; i < v.size(); ++i)
      h.s += "<tr><td>" + html_escape(names[i]) + "</td><td class=\"n\">" + show(v[i]) + "</td><td>" +
             bar(total > 0 ? v[i] / total : 0) + "</td></tr>\n";
  };
  auto amount = [](const json& x) { return x.is_number() ? x.get<double>() : 0.0; };
  if (mem && mem->is_object()) {
    std::vector<std::string> names;
    std::vector<double> v;
    std::vector<std::pair<std::string, double>> plans;  // what was planned: beside the components, not a share of them
    for (const auto& [k, x] : mem->items()) {
      if (k.ends_with("_planned"))
        plans.emplace_back(k.substr(0, k.size() - 8) + ", as planned", amount(x));
      else
        names.push_back(k), v.push_back(amount(x));
    }
    table("memory", "component", "memory", names, v, [](double x) { return format_bytes(x); });
    for (const auto& [name, x] : plans)
      h.s += "<tr><td>" + html_escape(name) + "</td><td class=\"n\">" + format_bytes(x) + "</td><td></td></tr>\n";
    if (has_num(st, "peak_memory_bytes"))
      h.s += "<tr><td>peak resident memory of the process</td><td class=\"n\">" +
             format_bytes(num(st, "peak_memory_bytes")) + "</td><td></td></tr>\n";
    h.s += "</table>\n";
  }
  if (passes && passes->is_array() && !passes->empty()) {
    std::vector<double> v;
    for (const auto& x : *passes) v.push_back(amount(x));
    table("passes", "pass", "seconds", pass_names(st, v.size()), v, [](double x) { return strf("%.2f", x); });
    if (has_num(st, "wall_seconds"))
      h.s +=
          strf("<tr><td>whole run (wall clock)</td><td class=\"n\">%.2f</td><td></td></tr>\n", num(st, "wall_seconds"));
    h.s += "</table>\n";
  }
  h.s += "</section>\n";
}

}  // namespace

SpectrumAnalysis analyze_stats_spectrum(const json& stats, const std::vector<uint64_t>& histogram) {
  return analyze_spectrum(histogram, spectrum_options_from_stats(stats, histogram));
}

std::string report_html(const json& stats, const std::vector<uint64_t>& histogram) {
  return report_html(stats, histogram, analyze_stats_spectrum(stats, histogram));
}

std::string report_html(const json& stats, const std::vector<uint64_t>& histogram, const SpectrumAnalysis& a,
                        const std::string& extra_sections) {
  Html h;
  h.s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>kmerbloom report</title>\n"
      "<style>" +
      std::string(kStyle) + "</style>\n</head>\n<body>\n<main>\n<h1>kmerbloom k-mer report</h1>\n";
  std::string sub;
  if (const json* in = field(stats, "inputs"); in && in->is_array())
    for (const auto& p : *in)
      if (p.is_string()) sub += (sub.empty() ? "" : ", ") + html_escape(p.get<std::string>());
  if (has_num(stats, "k"))
    sub += (sub.empty() ? "" : " \u00b7 ") + strf("k = %llu", static_cast<unsigned long long>(unum(stats, "k")));
  if (field(stats, "version"))
    sub += (sub.empty() ? "" : " \u00b7 ") + ("kmerbloom " + html_escape(text(stats, "version")));
  h.s += "<p class=\"sub\">" + sub + "</p>\n";
  summary_section(h, stats, a);
  spectrum_section(h, stats, histogram, a);
  h.s += extra_sections;
  bloom_section(h, stats);
  resources_section(h, stats);
  h.s +=
      "<p class=\"muted\">Made by <code>kmerbloom report</code>; self-contained: no script, no network.</p>\n"
      "</main>\n</body>\n</html>\n";
  return h.s;
}

void write_report_html(const json& stats, const std::vector<uint64_t>& histogram, const SpectrumAnalysis& a,
                       const std::string& path, const std::string& extra_sections) {
  OutputFile out(path);
  out.write(report_html(stats, histogram, a, extra_sections));
  out.commit();
}

void write_spectrum_svg(const json& stats, const std::vector<uint64_t>& histogram, const SpectrumAnalysis& a,
                        const std::string& path) {
  PlotOptions po;
  po.k = static_cast<unsigned>(unum(stats, "k"));
  OutputFile out(path);
  out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  out.write(spectrum_svg(histogram, a, po));
  out.commit();
}

void write_report_html(const json& stats, const std::vector<uint64_t>& histogram, const std::string& path) {
  write_report_html(stats, histogram, analyze_stats_spectrum(stats, histogram), path);
}

void write_spectrum_svg(const json& stats, const std::vector<uint64_t>& histogram, const std::string& path) {
  write_spectrum_svg(stats, histogram, analyze_stats_spectrum(stats, histogram), path);
}

}  // namespace kmerbloom
