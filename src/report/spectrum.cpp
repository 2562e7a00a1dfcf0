#include "report/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "formats/histogram_file.hpp"
#include "report/count_summary.hpp"

namespace kmerbloom {
namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// log(1 + f(c)) averaged over a window that widens with c, so that the noisy
// tails of deep spectra do not make local extrema of their own.
std::vector<double> smooth_log(const std::vector<uint64_t>& f, size_t last) {
  std::vector<double> lf(last + 1, 0.0), s(last + 1, 0.0);
  for (size_t c = 1; c <= last; ++c) lf[c] = std::log1p(static_cast<double>(f[c]));
  for (size_t c = 1; c <= last; ++c) {
    const size_t w = std::max<size_t>(1, c / 10);
    const size_t lo = c > w ? c - w : 1, hi = std::min(last, c + w);
    double sum = 0;
    for (size_t i = lo; i <= hi; ++i) sum += lf[i];
    s[c] = sum / static_cast<double>(hi - lo + 1);
  }
  return s;
}

// Refined position of the peak at row p: the vertex of a parabola fitted to
// log f(c) over [lo, hi], weighted by f(c), plus half a row. The half row is
// because the log-density of a Poisson (or negative binomial) count with mean
// lambda, interpolated between integers, peaks near lambda - 1/2
// (f(c+1)/f(c) = lambda/(c+1)). Falls back to p + 1/2 when the fit is not a
// clean maximum inside the window.
double refine_peak(const std::vector<uint64_t>& f, size_t p, size_t lo, size_t hi) {
  double m[3][4] = {};
  size_t points = 0;
  for (size_t c = lo; c <= hi; ++c) {
    if (f[c] == 0) continue;
    const double x = static_cast<double>(c) - static_cast<double>(p);
    const double y = std::log(static_cast<double>(f[c]));
    const double w = static_cast<double>(f[c]);
    const double xs[3] = {1, x, x * x};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) m[i][j] += w * xs[i] * xs[j];
      m[i][3] += w * xs[i] * y;
    }
    ++points;
  }
  const double fallback = static_cast<double>(p) + 0.5;
  if (points < 3) return fallback;
  // Gauss-Jordan elimination with partial pivoting on the 3x4 system.
  for (int col = 0; col < 3; ++col) {
    int piv = col;
    for (int r = col + 1; r < 3; ++r)
      if (std::fabs(m[r][col]) > std::fabs(m[piv][col])) piv = r;
    if (std::fabs(m[piv][col]) < 1e-300) return fallback;
    for (int j = 0; j < 4; ++j) std::swap(m[col][j], m[piv][j]);
    for (int r = 0; r < 3; ++r) {
      if (r == col) continue;
      const double factor = m[r][col] / m[col][col];
      for (int j = col; j < 4; ++j) m[r][j] -= factor * m[col][j];
    }
  }
  const double b = m[1][3] / m[1][1], q = m[2][3] / m[2][2];
  if (!(q < 0)) return fallback;
  const double vertex = -b / (2 * q);
  const double at = static_cast<double>(p) + vertex;
  if (!std::isfinite(at) || at < static_cast<double>(lo) || at > static_cast<double>(hi)) return fallback;
  return static_cast<double>(p) + vertex + 0.5;
}

// Half-width of the window around a peak at row p: about one standard
// deviation of a Poisson count (sqrt p).
size_t peak_window(size_t p) {
  return std::max<size_t>(2, static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(p)))));
}

// Fit window around row p, kept strictly above `floor` and at or below `last`.
double refine_around(const std::vector<uint64_t>& f, size_t p, size_t floor, size_t last) {
  const size_t w = peak_window(p);
  const size_t lo = std::max(floor + 1, p > w ? p - w : 1);
  const size_t hi = std::min(last, p + w);
  return refine_peak(f, p, std::min(lo, p), hi);
}

// A secondary peak of the smoothed spectrum within [lo, hi]: an interior local
// maximum at least min_height high, else 0.
size_t secondary_peak(const std::vector<uint64_t>& f, const std::vector<double>& s, size_t lo, size_t hi,
                      double min_height) {
  if (lo < 2 || hi + 1 >= s.size() || lo >= hi) return 0;
  size_t best = lo;
  for (size_t c = lo; c <= hi; ++c)
    if (s[c] > s[best]) best = c;
  if (best == lo || best == hi) return 0;  // still climbing or falling: a flank, not a peak
  if (!(s[best] > s[best - 1] && s[best] >= s[best + 1])) return 0;
  if (static_cast<double>(f[best]) < min_height) return 0;
  return best;
}

}  // namespace

namespace {

// The rows that hold k-mers, and what the overflow row stands for.
struct Rows {
  size_t last = 0;              // last non-zero row
  bool overflow_used = false;   // the last row is the overflow row
  long double overflow_occ = 0; // occurrences it stands for
};

// Distinct and total k-mers, and the notes on the overflow row and row 1.
Rows add_totals(const std::vector<uint64_t>& histogram, const SpectrumOptions& options, SpectrumAnalysis& a) {
  Rows r;
  // Trailing empty rows carry nothing; the overflow row keeps its meaning only
  // if it is the true last row.
  size_t& last = r.last;
  last = histogram.empty() ? 0 : histogram.size() - 1;
  const bool overflow = options.last_row_overflow && last >= 1;
  while (last >= 1 && histogram[last] == 0) --last;
  r.overflow_used = overflow && last == histogram.size() - 1;
  const bool overflow_used = r.overflow_used;

  if (overflow_used) a.overflow_row = last;
  long double occ = 0;
  for (size_t c = 1; c <= last; ++c) {
    a.kmers_distinct += histogram[c];
    occ += static_cast<long double>(c) * static_cast<long double>(histogram[c]);
  }
  // Occurrences of the overflow row: from the known total when it says more.
  long double& overflow_occ = r.overflow_occ;
  overflow_occ = overflow_used ? static_cast<long double>(last) * histogram[last] : 0;
  if (overflow_used && histogram[last] > 0) {
    const long double rest = occ - overflow_occ;
    if (options.total_kmers > 0 && static_cast<long double>(options.total_kmers) - rest > overflow_occ) {
      overflow_occ = static_cast<long double>(options.total_kmers) - rest;
      occ = rest + overflow_occ;
      a.notes.push_back(std::to_string(histogram[last]) + " k-mers seen " + std::to_string(last) +
                        " times or more sit in the overflow row; their occurrences come from the total k-mer count");
    } else {
      a.notes.push_back(std::to_string(histogram[last]) + " k-mers seen " + std::to_string(last) +
                        " times or more sit in the overflow row, counted " + std::to_string(last) +
                        " times each: the genome size is a lower bound");
    }
  }
  a.kmers_total = options.total_kmers > 0 ? options.total_kmers : static_cast<uint64_t>(occ);
  if (options.row1_estimated)
    a.notes.push_back("row 1 (k-mers seen once) is estimated (Bloom-gated counting); rows 2 and above are exact");
  return r;
}

// The error trough and the main peak of the smoothed spectrum s; false, with
// a warning, when the spectrum never rises again.
bool find_trough_and_peak(const std::vector<uint64_t>& f, const std::vector<double>& s, size_t peak_last,
                          SpectrumAnalysis& a) {
  // Error trough: the first strict rise of the smoothed spectrum.
  size_t t0 = 0;
  for (size_t c = 1; c < peak_last; ++c)
    if (s[c + 1] > s[c]) {
      t0 = c;
      break;
    }
  if (t0 == 0) {
    a.warnings.push_back(
        "no error trough: the spectrum falls from row 1 and never rises again "
        "(coverage too low, or mostly sequencing errors)");
    return false;
  }
  // Main peak: the highest smoothed row above it; then the trough moves to
  // the lowest smoothed row between the first rise and the peak.
  size_t p = t0 + 1;
  for (size_t c = t0 + 1; c <= peak_last; ++c)
    if (s[c] > s[p]) p = c;
  size_t t = t0;
  for (size_t c = t0; c < p; ++c)
    if (s[c] < s[t]) t = c;
  // The smoothed maximum can sit rows off the raw one on a noisy top: the
  // peak row is the raw maximum within the fit window around it.
  const size_t w = peak_window(p), top = p;
  for (size_t c = std::max(t + 1, top > w ? top - w : 1); c <= std::min(peak_last, top + w); ++c)
    if (f[c] > f[p]) p = c;
  if (t == 1 && f[1] <= f[2]) a.notes.push_back("no error component: row 1 is not above row 2");

  a.has_trough = true;
  a.trough = t;
  a.trough_height = f[t];
  a.has_peak = true;
  a.peak = p;
  a.peak_height = f[p];
  a.peak_coverage = refine_around(f, p, t, peak_last);
  return true;
}

// Error and solid k-mers on either side of the trough, and the genome size.
void split_at_trough(const std::vector<uint64_t>& f, const Rows& rows, SpectrumAnalysis& a) {
  const size_t last = rows.last, t = a.trough;
  const bool overflow_used = rows.overflow_used;
  const long double overflow_occ = rows.overflow_occ;
  long double solid_occ = 0;
  for (size_t c = 1; c <= last; ++c) {
    const long double o = (overflow_used && c == last) ? overflow_occ : static_cast<long double>(c) * f[c];
    if (c < t) {
      a.error_distinct += f[c];
      a.error_kmers += static_cast<uint64_t>(o);
    } else {
      a.distinct_above_trough += f[c];
      solid_occ += o;
    }
  }
  a.error_distinct_share = static_cast<double>(a.error_distinct) / static_cast<double>(a.kmers_distinct);
  a.error_kmer_share = a.kmers_total ? static_cast<double>(a.error_kmers) / static_cast<double>(a.kmers_total) : 0.0;
  a.genome_size = static_cast<double>(solid_occ) / a.peak_coverage;
}

// Peaks at half and twice the main one, as notes.
void note_secondary_peaks(const std::vector<uint64_t>& f, const std::vector<double>& s, size_t peak_last,
                          SpectrumAnalysis& a) {
  const size_t p = a.peak, t = a.trough;
  const double pc = static_cast<double>(p);
  const size_t h = secondary_peak(f, s, std::max<size_t>(t + 1, static_cast<size_t>(pc * 0.35)),
                                  static_cast<size_t>(pc * 0.65), 0.05 * static_cast<double>(f[p]));
  if (h) {
    a.half_peak_coverage = refine_around(f, h, t, p - 1);
    a.notes.push_back("a second peak at " + fmt("%.1f", a.half_peak_coverage) +
                      "x, half the main one: heterozygous k-mers of a diploid genome? The genome size is then "
                      "the haploid one, the main peak being the homozygous coverage");
  }
  const size_t d = secondary_peak(f, s, static_cast<size_t>(pc * 1.6),
                                  std::min(peak_last, static_cast<size_t>(pc * 2.4)), 0.1 * static_cast<double>(f[p]));
  if (d) {
    a.double_peak_coverage = refine_around(f, d, p, peak_last);
    a.notes.push_back("a peak at " + fmt("%.1f", a.double_peak_coverage) + "x, twice the main one, " +
                      fmt("%.0f", 100.0 * static_cast<double>(f[d]) / static_cast<double>(f[p])) +
                      "% as high: if the sample is a highly heterozygous diploid, the main peak is the "
                      "heterozygous one and the haploid genome size is about half the estimate");
  }
}

void check_reliability(const SpectrumOptions& options, size_t peak_last, SpectrumAnalysis& a) {
  const size_t p = a.peak;
  if (a.peak_coverage < options.min_peak_coverage)
    a.warnings.push_back("the peak coverage (" + fmt("%.1f", a.peak_coverage) + "x) is below " +
                         fmt("%g", options.min_peak_coverage) + "x: too shallow to tell genomic k-mers from errors");
  if (static_cast<double>(a.peak_height) <
      options.min_peak_to_trough * static_cast<double>(std::max<uint64_t>(1, a.trough_height)))
    a.warnings.push_back(
        "the spectrum is too flat: the peak is only " +
        fmt("%.1f", static_cast<double>(a.peak_height) / static_cast<double>(std::max<uint64_t>(1, a.trough_height))) +
        " times as high as the trough");
  if (p >= peak_last)
    a.warnings.push_back(
        "the peak is at the histogram's last row: the coverage may be higher than the histogram "
        "reaches (raise --histo-max)");
  a.reliable = a.warnings.empty();
}

}  // namespace

SpectrumAnalysis analyze_spectrum(const std::vector<uint64_t>& histogram, const SpectrumOptions& options) {
  SpectrumAnalysis a;
  const Rows rows = add_totals(histogram, options, a);
  if (a.kmers_distinct == 0) {
    a.warnings.push_back("the histogram is empty");
    return a;
  }
  const std::vector<uint64_t>& f = histogram;
  const std::vector<double> s = smooth_log(f, rows.last);
  const size_t peak_last = rows.overflow_used ? rows.last - 1 : rows.last;  // the overflow row is no peak
  if (!find_trough_and_peak(f, s, peak_last, a)) return a;
  split_at_trough(f, rows, a);
  note_secondary_peaks(f, s, peak_last, a);
  check_reliability(options, peak_last, a);
  return a;
}

nlohmann::json spectrum_json(const SpectrumAnalysis& a) {
  using nlohmann::json;
  json j;
  j["method"] = "k-mer occurrences at or above the error trough divided by the peak coverage";
  j["reliable"] = a.reliable;
  j["warnings"] = a.warnings;
  j["notes"] = a.notes;
  j["error_trough"] = a.has_trough ? json(a.trough) : json(nullptr);
  j["error_trough_height"] = a.trough_height;
  j["peak"] = a.has_peak ? json(a.peak) : json(nullptr);
  j["peak_height"] = a.peak_height;
  j["peak_coverage"] = a.has_peak ? json(a.peak_coverage) : json(nullptr);
  j["genome_size"] = a.has_peak ? json(static_cast<uint64_t>(std::llround(a.genome_size))) : json(nullptr);
  j["kmers_distinct_above_trough"] = a.distinct_above_trough;
  j["error_kmers_distinct"] = a.error_distinct;
  j["error_kmers_distinct_share"] = a.error_distinct_share;
  j["error_kmers"] = a.error_kmers;
  j["error_kmers_share"] = a.error_kmer_share;
  j["heterozygous_peak_coverage"] = a.half_peak_coverage > 0 ? json(a.half_peak_coverage) : json(nullptr);
  j["double_peak_coverage"] = a.double_peak_coverage > 0 ? json(a.double_peak_coverage) : json(nullptr);
  return j;
}

nlohmann::json histogram_rows_json(const std::vector<uint64_t>& histogram) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t c = 1; c < histogram.size(); ++c)
    if (histogram[c]) rows.push_back({static_cast<uint64_t>(c), histogram[c]});
  return rows;
}

namespace {
// A count in JSON: built in memory it may be a signed integer, parsed from a
// file a non-negative one is unsigned.
bool is_count(const nlohmann::json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}
}  // namespace

std::vector<uint64_t> histogram_from_rows(const nlohmann::json& rows) {
  if (!rows.is_array()) throw std::invalid_argument("histogram rows are not an array");
  std::vector<uint64_t> h(1, 0);
  for (const auto& row : rows) {
    if (!row.is_array() || row.size() != 2 || !is_count(row[0]) || !is_count(row[1]))
      throw std::invalid_argument("histogram row " + row.dump() + " is not [count, frequency]");
    const auto c = row[0].get<uint64_t>();
    if (c > kMaxHistogramRow)
      throw std::invalid_argument("histogram row " + std::to_string(c) + " is beyond the supported range");
    if (c == 0) continue;
    if (h.size() <= c) h.resize(c + 1, 0);
    h[c] += row[1].get<uint64_t>();
  }
  return h;
}

SpectrumOptions spectrum_options_from_stats(const nlohmann::json& stats, const std::vector<uint64_t>& histogram) {
  SpectrumOptions o;
  if (!stats.is_object()) return o;
  if (auto it = stats.find(stats_key::kmers_total); it != stats.end() && is_count(*it)) o.total_kmers = it->get<uint64_t>();
  if (auto it = stats.find("histogram"); it != stats.end() && it->is_object()) {
    if (auto ov = it->find("overflow_row"); ov != it->end() && is_count(*ov))
      o.last_row_overflow = !histogram.empty() && ov->get<uint64_t>() == histogram.size() - 1;
    if (auto est = it->find("estimated_rows"); est != it->end() && est->is_array())
      for (const auto& r : *est)
        if (is_count(r) && r.get<uint64_t>() == 1) o.row1_estimated = true;
  }
  return o;
}

}  // namespace kmerbloom
