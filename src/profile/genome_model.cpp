#include "profile/genome_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "common/format.hpp"
#include "report/count_summary.hpp"
#include "report/report.hpp"
#include "report/spectrum.hpp"

namespace kmerbloom {
namespace {

// The parameters the optimizer moves, all unconstrained: logs of the positive
// ones, the logit of d / kMaxDuplication, and the logits of the occurrence shares m * q[m] / p
// of m = 1 .. p-1 (that of m = p is 0).
enum Param : size_t { kLambda, kBias, kLength, kDup, kErrAmp, kErrSlope, kShares };

struct Rows {
  uint64_t first = 0, last = 0;  // rows fitted
  std::vector<double> f, weight;  // f(c) and 1 / sqrt(f(c) + 1), index c - first
  std::vector<double> log_c;      // log(c), the divisor of the pmf's step from row c - 1 into row c
};

// v with `digits` decimals, for messages.
std::string fixed(double v, int digits) { return strf("%.*f", digits, v); }

// Distinct k-mers at copy number j (1 .. 2p) per unit of the NB pmf: the
// positions in one copy holding k-mers shared by j haplotypes, and half of
// those in two copies holding k-mers shared by j / 2.
double copy_weight(unsigned j, unsigned p, double length, double dup, const std::vector<double>& q) {
  double w = j <= p ? (1 - dup) * length * q[j] : 0;
  if (j % 2 == 0) w += dup / 2 * length * q[j / 2];
  return w;
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// The two-copy share d stays below one half: at d = 1 every position is in
// two copies, which is the same spectrum as a genome at twice the coverage
// (and so on for any d above one half against a reading at 2 lambda), so the
// fit would choose between them by the noise.
constexpr double kMaxDuplication = 0.5;

struct Model {
  unsigned p = 2;
  double lambda = 0, bias = 0, length = 0, dup = 0, err_amp = 0, err_slope = 0;
  std::vector<double> q;  // q[m], m = 1 .. p

  static Model from(const gsl_vector* x, unsigned p) {
    Model m;
    m.p = p;
    m.lambda = std::exp(gsl_vector_get(x, kLambda));
    m.bias = std::exp(gsl_vector_get(x, kBias));
    m.length = std::exp(gsl_vector_get(x, kLength));
    m.dup = kMaxDuplication * sigmoid(gsl_vector_get(x, kDup));
    m.err_amp = std::exp(gsl_vector_get(x, kErrAmp));
    m.err_slope = std::exp(gsl_vector_get(x, kErrSlope));
    std::vector<double> share(p + 1, 0.0);
    double top = 0;
    for (unsigned j = 1; j <= p; ++j) top = std::max(top, j < p ? gsl_vector_get(x, kShares + j - 1) : 0.0);
    double sum = 0;
    for (unsigned j = 1; j <= p; ++j) sum += share[j] = std::exp((j < p ? gsl_vector_get(x, kShares + j - 1) : 0.0) - top);
    m.q.assign(p + 1, 0.0);
    for (unsigned j = 1; j <= p; ++j) m.q[j] = p * share[j] / sum / j;
    return m;
  }

  double weight(unsigned j) const { return copy_weight(j, p, length, dup, q); }
};

// log NB pmf with mean mu, variance mu * (1 + bias), at x.
double log_nb(double x, double mu, double bias) {
  const double n = mu / bias;
  return std::lgamma(x + n) - std::lgamma(n) - std::lgamma(x + 1) - n * std::log1p(bias) + x * std::log(bias / (1 + bias));
}

// The model over the rows: out[i] for c = rows.first + i.
void evaluate(const Model& m, const Rows& rows, std::vector<double>& out) {
  const size_t n = rows.f.size();
  out.assign(n, 0.0);
  for (size_t i = 0; i < n; ++i) out[i] = m.err_amp * std::exp(-m.err_slope * rows.log_c[i]);
  const double step = std::log(m.bias / (1 + m.bias));
  for (unsigned j = 1; j <= 2 * m.p; ++j) {
    const double w = m.weight(j);
    if (w <= 0) continue;
    const double size = j * m.lambda / m.bias;
    double lp = log_nb(static_cast<double>(rows.first), j * m.lambda, m.bias);
    for (size_t i = 0; i < n; ++i) {
      if (i) lp += std::log(static_cast<double>(rows.first + i - 1) + size) - rows.log_c[i] + step;
      out[i] += w * std::exp(lp);
    }
  }
}

struct FitData {
  const Rows* rows;
  unsigned p;
  std::vector<double> model;
};

int residuals(const gsl_vector* x, void* data, gsl_vector* f) {
  auto* d = static_cast<FitData*>(data);
  evaluate(Model::from(x, d->p), *d->rows, d->model);
  for (size_t i = 0; i < d->model.size(); ++i) {
    const double r = (d->rows->f[i] - d->model[i]) * d->rows->weight[i];
    gsl_vector_set(f, i, std::isfinite(r) ? r : 1e30);
  }
  return GSL_SUCCESS;
}

struct FitResult {
  bool ok = false;
  double chi2 = std::numeric_limits<double>::infinity();
  std::vector<double> x;
  double lambda_se = 0;  // standard error of lambda
  unsigned iterations = 0;
};

struct GslFree {
  void operator()(gsl_multifit_nlinear_workspace* w) const { gsl_multifit_nlinear_free(w); }
  void operator()(gsl_vector* v) const { gsl_vector_free(v); }
  void operator()(gsl_matrix* m) const { gsl_matrix_free(m); }
  void operator()(gsl_permutation* p) const { gsl_permutation_free(p); }
};

FitResult run_fit(const Rows& rows, unsigned p, const std::vector<double>& start) {
  FitResult r;
  const size_t n = rows.f.size(), np = start.size();
  if (n <= np) return r;
  FitData data{&rows, p, {}};
  gsl_multifit_nlinear_fdf fdf{};
  fdf.f = residuals;
  fdf.df = nullptr;  // finite differences
  fdf.fvv = nullptr;
  fdf.n = n;
  fdf.p = np;
  fdf.params = &data;
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
  params.trs = gsl_multifit_nlinear_trs_lm;
  std::unique_ptr<gsl_multifit_nlinear_workspace, GslFree> w(
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, np));
  std::unique_ptr<gsl_vector, GslFree> x0(gsl_vector_alloc(np));
  for (size_t i = 0; i < np; ++i) gsl_vector_set(x0.get(), i, start[i]);
  if (gsl_multifit_nlinear_init(x0.get(), &fdf, w.get()) != GSL_SUCCESS) return r;
  int info = 0;
  const int status = gsl_multifit_nlinear_driver(500, 1e-10, 1e-10, 1e-10, nullptr, nullptr, &info, w.get());
  r.iterations = static_cast<unsigned>(gsl_multifit_nlinear_niter(w.get()));
  if (status != GSL_SUCCESS && status != GSL_EMAXITER) return r;
  const gsl_vector* x = gsl_multifit_nlinear_position(w.get());
  double chi2 = 0;
  gsl_blas_ddot(gsl_multifit_nlinear_residual(w.get()), gsl_multifit_nlinear_residual(w.get()), &chi2);
  if (!std::isfinite(chi2)) return r;
  r.ok = true;
  r.chi2 = chi2;
  r.x.assign(x->data, x->data + np);  // the position vector is contiguous (stride 1)
  std::unique_ptr<gsl_matrix, GslFree> covar(gsl_matrix_alloc(np, np));
  if (gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w.get()), 0.0, covar.get()) == GSL_SUCCESS) {
    const double dof = static_cast<double>(n - np);
    const double var = gsl_matrix_get(covar.get(), kLambda, kLambda) * chi2 / dof;  // of log lambda
    if (var >= 0 && std::isfinite(var)) r.lambda_se = std::exp(r.x[kLambda]) * std::sqrt(var);
  }
  return r;
}

// Distinct k-mers of f within 15% of copy number j of lambda.
double mass_near(const std::vector<uint64_t>& h, double centre) {
  const auto lo = static_cast<size_t>(std::max(1.0, std::floor(centre * 0.85)));
  const auto hi = static_cast<size_t>(std::ceil(centre * 1.15));
  double s = 0;
  for (size_t c = lo; c <= hi && c < h.size(); ++c) s += static_cast<double>(h[c]);
  return s;
}

std::vector<double> start_point(const std::vector<uint64_t>& h, const Rows& rows, unsigned p, double lambda,
                                double genomic_occurrences) {
  std::vector<double> x(kShares + p - 1, 0.0);
  x[kLambda] = std::log(lambda);
  x[kBias] = std::log(0.5);
  x[kLength] = std::log(std::max(1.0, genomic_occurrences / (p * lambda)));
  x[kDup] = std::log(0.1 / 0.9);  // d = 0.05
  const double f1 = std::max(1.0, rows.f.front());
  const double f2 = std::max(1.0, rows.f.size() > 1 ? rows.f[1] : f1 / 8);
  const double slope = std::clamp(std::log(f1 / f2) / std::log((static_cast<double>(rows.first) + 1) / static_cast<double>(rows.first)), 1.0, 12.0);
  x[kErrSlope] = std::log(slope);
  x[kErrAmp] = std::log(f1) + slope * std::log(static_cast<double>(rows.first));
  // Occurrence shares, floored so that no form starts at 0.
  std::vector<double> occ(p + 1, 0.0);
  double total = 0;
  for (unsigned j = 1; j <= p; ++j) total += occ[j] = j * mass_near(h, j * lambda);
  for (unsigned j = 1; j <= p; ++j) occ[j] = std::max(occ[j] / std::max(total, 1.0), 0.02);
  for (unsigned j = 1; j < p; ++j) x[kShares + j - 1] = std::log(occ[j] / occ[p]);
  return x;
}

// The forms of a site at ploidy p: the partitions of p into 2 to 4 parts,
// largest part first, in reverse lexicographic order (GenomeScope's: aaab,
// aabb, aabc, abcd).
void partitions(unsigned left, unsigned largest, std::vector<unsigned>& parts, std::vector<std::vector<unsigned>>& out) {
  if (left == 0) {
    if (parts.size() >= 2) out.push_back(parts);
    return;
  }
  if (parts.size() == 4) return;
  for (unsigned part = std::min(left, largest); part >= 1; --part) {
    parts.push_back(part);
    partitions(left - part, part, parts, out);
    parts.pop_back();
  }
}

double choose(unsigned n, unsigned r) {
  if (r > n) return 0;
  double c = 1;
  for (unsigned i = 1; i <= r; ++i) c = c * (n - r + i) / i;
  return c;
}

// Every basic feasible solution of {x >= 0, A x = b}, A of b.size() rows
// (row-major): the vertices of the polytope, where a linear objective takes
// its least and most. The programs here have at most 6 rows and 17 columns,
// so every basis is tried, each solved by GSL's LU decomposition.
std::vector<std::vector<double>> vertices(const std::vector<double>& a, const std::vector<double>& b, size_t cols) {
  const size_t rows = b.size();
  std::vector<std::vector<double>> out;
  if (cols < rows) return out;
  std::unique_ptr<gsl_matrix, GslFree> m(gsl_matrix_alloc(rows, rows));
  std::unique_ptr<gsl_vector, GslFree> y(gsl_vector_alloc(rows));
  gsl_vector_const_view rhs = gsl_vector_const_view_array(b.data(), rows);
  std::unique_ptr<gsl_permutation, GslFree> perm(gsl_permutation_alloc(rows));
  std::vector<size_t> basis(rows);
  for (size_t i = 0; i < rows; ++i) basis[i] = i;
  for (;;) {
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < rows; ++c) gsl_matrix_set(m.get(), r, c, a[r * cols + basis[c]]);
    int sign = 0;
    gsl_linalg_LU_decomp(m.get(), perm.get(), &sign);
    bool singular = false;
    for (size_t i = 0; i < rows; ++i) singular = singular || std::abs(gsl_matrix_get(m.get(), i, i)) < 1e-12;
    if (!singular && gsl_linalg_LU_solve(m.get(), perm.get(), &rhs.vector, y.get()) == GSL_SUCCESS) {
      std::vector<double> x(cols, 0.0);
      bool feasible = true;
      for (size_t r = 0; r < rows; ++r) {
        feasible = feasible && gsl_vector_get(y.get(), r) >= -1e-12;
        x[basis[r]] = std::max(0.0, gsl_vector_get(y.get(), r));
      }
      if (feasible) out.push_back(std::move(x));
    }
    // The next basis, in lexicographic order.
    size_t i = rows;
    while (i > 0 && basis[i - 1] == cols - rows + i - 1) --i;
    if (i == 0) return out;
    ++basis[i - 1];
    for (size_t j = i; j < rows; ++j) basis[j] = basis[j - 1] + 1;
  }
}

GenomeProfile unfit(GenomeProfile p, std::string why) {
  p.fitted = false;
  p.verdict = std::move(why);
  return p;
}

}  // namespace

double GenomeProfile::errors_at(uint64_t c) const {
  return c ? error_amplitude * std::pow(static_cast<double>(c), -error_slope) : 0;
}

double GenomeProfile::copies_at(unsigned j, uint64_t c) const {
  if (j == 0 || j > 2 * ploidy || multiplicity.size() != ploidy + 1u) return 0;
  const double w = copy_weight(j, ploidy, model_length, duplication, multiplicity);
  return w > 0 ? w * std::exp(log_nb(static_cast<double>(c), j * kmer_coverage, bias)) : 0;
}

double GenomeProfile::model_at(uint64_t c) const {
  double s = errors_at(c);
  for (unsigned j = 1; j <= 2 * ploidy; ++j) s += copies_at(j, c);
  return s;
}

GenomeProfile fit_genome_profile(const std::vector<uint64_t>& histogram, const ProfileOptions& o) {
  if (o.k == 0 || o.k > 255) throw std::invalid_argument("k must be 1 to 255");
  if (o.ploidy == 0 || o.ploidy > kMaxProfilePloidy) throw std::invalid_argument("ploidy must be 1 to 6");
  GenomeProfile out;
  out.k = o.k;
  out.ploidy = o.ploidy;
  const unsigned p = o.ploidy;

  SpectrumOptions so;
  so.last_row_overflow = o.last_row_overflow;
  so.total_kmers = o.total_kmers;
  so.row1_estimated = o.skip_row1;
  const SpectrumAnalysis s = analyze_spectrum(histogram, so);
  if (!s.has_peak) return unfit(out, "no genomic peak above the sequencing errors (too little coverage, or not reads of one genome)");
  if (s.peak_coverage < 4)
    return unfit(out, "the genomic peak lies at " + fixed(s.peak_coverage, 1) +
                          "x: too little coverage to fit (at least about 10x of each haplotype)");

  // The rows fitted: from 0.6 of the error trough (the errors' tail there is
  // the model's error term) to (2p + 2) times the peak, below the overflow
  // row. A last row inside that range is taken for an overflow row only when
  // it piles up above the row before it; else it is the last non-zero row of
  // a histogram that leaves zero rows out (jellyfish, statistics' rows), and
  // the rows past it are zeros.
  const auto wanted = static_cast<uint64_t>(std::ceil((2.0 * p + 2) * s.peak_coverage));
  const size_t n = histogram.size();
  const bool overflow = o.last_row_overflow && n >= 3 && (n - 1 > wanted || histogram[n - 1] > histogram[n - 2]);
  const uint64_t usable = overflow ? n - 2 : n - 1;
  Rows rows;
  rows.first = std::max<uint64_t>(o.skip_row1 ? 2 : 1,
                                  s.has_trough ? static_cast<uint64_t>(std::ceil(0.6 * static_cast<double>(s.trough))) : 1);
  rows.last = overflow ? std::min(usable, wanted) : wanted;
  const auto f = [&](uint64_t c) { return c < histogram.size() ? static_cast<double>(histogram[c]) : 0.0; };
  if (rows.last < rows.first + 20) return unfit(out, "the spectrum ends before its genomic peaks (a histogram cut too low)");
  for (uint64_t c = rows.first; c <= rows.last; ++c) {
    rows.f.push_back(f(c));
    rows.weight.push_back(1 / std::sqrt(f(c) + 1));
    rows.log_c.push_back(std::log(static_cast<double>(c)));
  }

  // Occurrences: every row (the overflow row through total_kmers when known).
  double occurrences = 0, above_trough = 0;
  for (size_t c = 1; c <= usable; ++c) {
    occurrences += static_cast<double>(c) * static_cast<double>(histogram[c]);
    if (c >= s.trough) above_trough += static_cast<double>(c) * static_cast<double>(histogram[c]);
  }
  if (overflow) {
    const double row = static_cast<double>(histogram.size() - 1) * static_cast<double>(histogram.back());
    const double total = static_cast<double>(o.total_kmers);
    const double rest = total > occurrences ? total - occurrences : row;
    occurrences += rest;
    above_trough += rest;
    if (o.total_kmers == 0 && histogram.back() != 0)
      out.notes.push_back("the overflow row's occurrences are a lower bound (no total k-mers given): the genome length is too");
  }

  // One fit for each reading of the peak. Readings can explain a spectrum
  // equally well: one peak is a homozygous diploid at lambda or an
  // all-heterozygous one at twice that; a diploid's het and hom peaks are
  // also a homozygous genome at half the coverage, half of it in two-copy
  // repeats. Of the fits within 2% of the least residual, the simplest
  // genome is kept: the fewest k-mers heterozygous (1 - q[p]) or repeated (d).
  std::vector<FitResult> fits;
  double least = std::numeric_limits<double>::infinity();
  auto keep = [&](FitResult r) {
    if (!r.ok) return;
    least = std::min(least, r.chi2);
    fits.push_back(std::move(r));
  };
  for (unsigned m = 1; m <= p; ++m) {
    const double lambda = s.peak_coverage / m;
    if (lambda < 2) break;
    keep(run_fit(rows, p, start_point(histogram, rows, p, lambda, above_trough)));
  }
  if (p > 1) {
    // The homozygous genome (q[p] = 1), fitted as a haploid one at p times
    // the coverage: the full model reaches it only at the edge of its
    // parameters, where the optimizer crawls.
    FitResult r = run_fit(rows, 1, start_point(histogram, rows, 1, s.peak_coverage, above_trough));
    if (r.ok) {
      r.x[kLambda] -= std::log(static_cast<double>(p));
      r.x.resize(kShares + p - 1, -50.0);  // every other form's share e^-50
      keep(std::move(r));
    }
  }
  if (fits.empty()) return unfit(out, "the fit did not converge");
  const FitResult* best = nullptr;
  double simplest = std::numeric_limits<double>::infinity();
  for (const auto& r : fits) {
    gsl_vector_const_view v = gsl_vector_const_view_array(r.x.data(), r.x.size());
    const Model fm = Model::from(&v.vector, p);
    out.readings.push_back("k-mer coverage " + fixed(fm.lambda, 2) + "x: residual " + fixed(r.chi2, 1) +
                           ", homozygous k-mers " + fixed(100 * fm.q[p], 2) + "%, two-copy share " +
                           fixed(100 * fm.dup, 2) + "%" + (r.chi2 > least * 1.02 ? " (left: residual above 1.02 x the least)" : ""));
    if (r.chi2 > least * 1.02) continue;
    const double complexity = (1 - fm.q[p]) + fm.dup;
    if (complexity < simplest) best = &r, simplest = complexity;
  }
  gsl_vector_const_view xv = gsl_vector_const_view_array(best->x.data(), best->x.size());
  const Model m = Model::from(&xv.vector, p);
  out.kmer_coverage = m.lambda;
  out.bias = m.bias;
  out.duplication = m.dup;
  out.multiplicity = m.q;
  out.error_amplitude = m.err_amp;
  out.error_slope = m.err_slope;
  out.model_length = m.length;
  out.iterations = best->iterations;
  out.fit_first = rows.first;
  out.fit_last = rows.last;

  std::vector<double> model;
  evaluate(m, rows, model);
  double diff = 0, seen = 0;
  for (size_t i = 0; i < model.size(); ++i) {
    diff += std::abs(rows.f[i] - model[i]);
    seen += rows.f[i];
  }
  out.model_fit = seen > 0 ? 1 - diff / seen : 0;

  // Errors: below the rows fitted, what the genomic terms leave of each
  // row; within them, the error term.
  double error_occ = 0, error_distinct = 0;
  for (uint64_t c = 1; c <= rows.last; ++c) {
    double e = out.errors_at(c);
    if (c < rows.first) e = std::max(0.0, f(c) - (out.model_at(c) - e));
    error_occ += static_cast<double>(c) * e;
    error_distinct += e;
  }
  out.error_kmers = error_distinct;
  const double genomic = std::max(0.0, occurrences - error_occ);
  out.genome_length = genomic / (p * m.lambda);
  const double rel = m.lambda > 0 ? 2 * best->lambda_se / m.lambda : 0;
  out.genome_length_low = out.genome_length / (1 + rel);
  out.genome_length_high = out.genome_length / std::max(1e-9, 1 - rel);
  out.unique_length = m.length * (1 - m.dup);
  out.repeat_length = std::max(0.0, out.genome_length - out.unique_length);
  out.heterozygosity = p > 1 ? 1 - std::pow(std::clamp(m.q[p], 0.0, 1.0), 1.0 / o.k) : 0;
  out.het_forms = het_form_shares(m.q, p, o.k);
  out.error_rate = occurrences > 0 ? 1 - std::pow(std::max(0.0, 1 - error_occ / occurrences), 1.0 / o.k) : 0;

  // Verdicts on the fit itself: never a confident number from a spectrum the
  // model does not describe.
  if (m.lambda < 3)
    return unfit(out, "the fitted k-mer coverage is " + fixed(m.lambda, 1) + "x: too little coverage to fit");
  if (m.lambda * (2.0 * p) > static_cast<double>(rows.last) * 1.05)
    return unfit(out, "the fitted copies lie beyond the rows fitted (the spectrum ends too soon)");
  if (out.model_fit < 0.8)
    return unfit(out, "the model explains only " + fixed(100 * out.model_fit, 1) +
                          "% of the fitted rows (contamination, a mixture of samples, or another ploidy)");
  out.fitted = true;
  out.verdict = "fitted";
  return out;
}

std::vector<HetForm> het_form_shares(const std::vector<double>& q, unsigned p, unsigned k) {
  if (p < 2 || p > kMaxProfilePloidy || q.size() != p + 1u || k == 0) return {};
  std::vector<std::vector<unsigned>> forms;
  std::vector<unsigned> parts;
  partitions(p, p - 1, parts, forms);
  // g(s): s haplotypes agree at a base. The s-sets inside one k-mer group
  // number sum_m q[m] C(m, s) a position, of C(p, s) s-sets, and the s
  // haplotypes agree over a k-mer with chance g(s)^k.
  std::vector<double> g(p + 1, 1.0);
  for (unsigned s = 2; s <= p; ++s) {
    double inside = 0;
    for (unsigned m = s; m <= p; ++m) inside += std::max(0.0, q[m]) * choose(m, s);
    g[s] = std::pow(std::clamp(inside / choose(p, s), 0.0, 1.0), 1.0 / k);
  }
  const double hom = g[p];
  // Rows s = 2 .. p-1: sum_f share_f h_f(s) + up_s - down_s = g(s) - hom, with
  // h_f(s) the chance that s haplotypes share an allele in form f; then the
  // shares sum to 1 - hom; then (the second program only) the deviations
  // up and down plus a slack w sum to a bound. Columns: the forms, up and
  // down of each row s, w.
  const size_t nf = forms.size(), ns = p - 2, cols = nf + 2 * ns + 1;
  std::vector<double> a((ns + 2) * cols, 0.0), b(ns + 2, 0.0);
  for (size_t f = 0; f < nf; ++f) {
    for (unsigned s = 2; s < p; ++s) {
      double h = 0;
      for (const unsigned part : forms[f]) h += choose(part, s);
      a[(s - 2) * cols + f] = h / choose(p, s);
    }
    a[ns * cols + f] = 1;
  }
  for (size_t r = 0; r < ns; ++r) {
    a[r * cols + nf + 2 * r] = 1;
    a[r * cols + nf + 2 * r + 1] = -1;
    a[(ns + 1) * cols + nf + 2 * r] = a[(ns + 1) * cols + nf + 2 * r + 1] = 1;
    b[r] = g[r + 2] - hom;
  }
  a[(ns + 1) * cols + cols - 1] = 1;
  b[ns] = 1 - hom;
  // The least deviation: the first ns + 1 rows, without w (a matrix of
  // fewer rows reads the same row-major entries, w's column all zero there,
  // so no basis holding it is regular).
  double least = std::numeric_limits<double>::infinity();
  for (const auto& x : vertices({a.begin(), a.begin() + static_cast<std::ptrdiff_t>((ns + 1) * cols)}, {b.begin(), b.end() - 1}, cols)) {
    double dev = 0;
    for (size_t c = nf; c + 1 < cols; ++c) dev += x[c];
    least = std::min(least, dev);
  }
  if (!std::isfinite(least)) return {};
  // The mixtures within that least deviation.
  b[ns + 1] = least + 1e-12 + 1e-9 * least;
  std::vector<HetForm> out(nf);
  for (size_t f = 0; f < nf; ++f) {
    for (size_t i = 0; i < forms[f].size(); ++i) out[f].name += std::string(forms[f][i], static_cast<char>('a' + i));
    out[f].low = std::numeric_limits<double>::infinity();
    out[f].high = 0;
  }
  for (const auto& x : vertices(a, b, cols))
    for (size_t f = 0; f < nf; ++f) {
      out[f].low = std::min(out[f].low, x[f]);
      out[f].high = std::max(out[f].high, x[f]);
    }
  for (auto& form : out)
    if (!std::isfinite(form.low)) form.low = form.high = 0;
  return out;
}

ProfileOptions profile_options_from_stats(const nlohmann::json& stats, const std::vector<uint64_t>& histogram,
                                          unsigned ploidy) {
  const SpectrumOptions so = spectrum_options_from_stats(stats, histogram);
  ProfileOptions o;
  o.ploidy = ploidy;
  o.last_row_overflow = so.last_row_overflow;
  o.skip_row1 = so.row1_estimated;
  o.total_kmers = so.total_kmers;
  if (auto k = stats.find(stats_key::k); k != stats.end() && k->is_number_unsigned()) o.k = k->get<unsigned>();
  return o;
}

nlohmann::json profile_json(const GenomeProfile& p) {
  using nlohmann::json;
  auto num = [&](double v) { return p.fitted ? json(v) : json(nullptr); };
  json q = json::array();
  for (size_t m = 1; m < p.multiplicity.size(); ++m) q.push_back(p.fitted ? json(p.multiplicity[m]) : json(nullptr));
  json forms = nullptr;
  if (p.fitted && p.ploidy > 1) {
    forms = json::object();
    for (const auto& f : p.het_forms) forms[f.name] = json::array({f.low, f.high});
  }
  return json{{"k", p.k},
              {"ploidy", p.ploidy},
              {"fitted", p.fitted},
              {"verdict", p.verdict},
              {"genome_length", num(p.genome_length)},
              {"genome_length_range", p.fitted ? json::array({p.genome_length_low, p.genome_length_high}) : json(nullptr)},
              {"unique_length", num(p.unique_length)},
              {"repeat_length", num(p.repeat_length)},
              {"heterozygosity", p.fitted && p.ploidy > 1 ? json(p.heterozygosity) : json(nullptr)},
              {"het_forms", forms},
              {"multiplicity", q},
              {"kmer_coverage", num(p.kmer_coverage)},
              {"bias", num(p.bias)},
              {"duplication", num(p.duplication)},
              {"error_rate", num(p.error_rate)},
              {"model_fit", num(p.model_fit)},
              {"rows_fitted", json::array({p.fit_first, p.fit_last})},
              {"model_length", num(p.model_length)},
              {"error_term", p.fitted ? json{{"amplitude", p.error_amplitude}, {"slope", p.error_slope}} : json(nullptr)},
              {"notes", p.notes}};
}

GenomeProfile profile_from_json(const nlohmann::json& j) {
  GenomeProfile p;
  try {
    p.k = j.at("k").get<unsigned>();
    p.ploidy = j.at("ploidy").get<unsigned>();
    p.fitted = j.at("fitted").get<bool>();
    p.verdict = j.at("verdict").get<std::string>();
    if (p.ploidy == 0 || p.ploidy > kMaxProfilePloidy) throw std::invalid_argument("ploidy must be 1 to 6");
    const auto& rows = j.at("rows_fitted");
    p.fit_first = rows.at(0).get<uint64_t>();
    p.fit_last = rows.at(1).get<uint64_t>();
    if (p.fit_last > (uint64_t{1} << 24)) throw std::invalid_argument("rows_fitted beyond any histogram");
    if (!p.fitted) return p;
    p.genome_length = j.at("genome_length").get<double>();
    p.genome_length_low = j.at("genome_length_range").at(0).get<double>();
    p.genome_length_high = j.at("genome_length_range").at(1).get<double>();
    p.unique_length = j.at("unique_length").get<double>();
    p.repeat_length = j.at("repeat_length").get<double>();
    p.heterozygosity = p.ploidy > 1 ? j.at("heterozygosity").get<double>() : 0;
    p.kmer_coverage = j.at("kmer_coverage").get<double>();
    p.bias = j.at("bias").get<double>();
    p.duplication = j.at("duplication").get<double>();
    p.error_rate = j.at("error_rate").get<double>();
    p.model_fit = j.at("model_fit").get<double>();
    p.model_length = j.at("model_length").get<double>();
    p.error_amplitude = j.at("error_term").at("amplitude").get<double>();
    p.error_slope = j.at("error_term").at("slope").get<double>();
    p.multiplicity.assign(1, 0.0);
    for (const auto& q : j.at("multiplicity")) p.multiplicity.push_back(q.get<double>());
    if (p.multiplicity.size() != p.ploidy + 1u) throw std::invalid_argument("multiplicity must hold ploidy shares");
    // Statistics written before the forms were reported have none: they
    // follow from the multiplicity.
    if (const auto f = j.find("het_forms"); f != j.end() && f->is_object()) {
      for (const auto& [name, share] : f->items()) p.het_forms.push_back({name, share.at(0).get<double>(), share.at(1).get<double>()});
    } else {
      p.het_forms = het_form_shares(p.multiplicity, p.ploidy, p.k);
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("profile: ") + e.what());
  }
  return p;
}

std::string profile_summary(const GenomeProfile& p, const std::string& input) {
  std::string s = "kmerbloom profile " KMERBLOOM_VERSION "\ninput = " + input + "\nk = " + std::to_string(p.k) +
                  "\nploidy = " + std::to_string(p.ploidy) + "\nverdict = " + p.verdict + "\n";
  if (!p.fitted) return s;
  auto row = [&](const std::string& name, const std::string& lo, const std::string& hi) {
    s += name + std::string(name.size() < 28 ? 28 - name.size() : 1, ' ') + lo + std::string(lo.size() < 20 ? 20 - lo.size() : 1, ' ') + hi + "\n";
  };
  auto bp = [](double v) { return format_count(static_cast<uint64_t>(std::llround(v))) + " bp"; };
  auto pct = [](double v) { return fixed(100 * v, 3) + "%"; };
  s += "\n";
  row("property", "min", "max");
  if (p.ploidy > 1) {
    row("Homozygous", pct(1 - p.heterozygosity), pct(1 - p.heterozygosity));
    row("Heterozygous", pct(p.heterozygosity), pct(p.heterozygosity));
    if (p.ploidy > 2)
      for (const auto& f : p.het_forms) row(f.name, pct(f.low), pct(f.high));
  }
  row("Genome Haploid Length", bp(p.genome_length_low), bp(p.genome_length_high));
  row("Genome Repeat Length", bp(p.repeat_length), bp(p.repeat_length));
  row("Genome Unique Length", bp(p.unique_length), bp(p.unique_length));
  row("Model Fit", pct(p.model_fit), pct(p.model_fit));
  row("Read Error Rate", pct(p.error_rate), pct(p.error_rate));
  row("k-mer Coverage", fixed(p.kmer_coverage, 2) + "x", fixed(p.kmer_coverage, 2) + "x");
  return s;
}

}  // namespace kmerbloom
