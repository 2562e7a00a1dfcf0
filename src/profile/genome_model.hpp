// The genome profile: genome length, heterozygosity, repeats, read error
// rate and k-mer coverage fitted to a k-mer spectrum.
//
// The model is the one GenomeScope 2.0 publishes (Ranallo-Benavidez, Jaron
// and Schatz 2020), written from the paper's definitions: the genomic k-mers
// of a genome of ploidy p form negative binomials at the copy numbers
// 1 .. 2p of the k-mer coverage lambda (one haplotype's copy), each of mean
// j * lambda and variance j * lambda * (1 + bias). A k-mer position of the
// haploid genome holds p k-mers, one a haplotype; q[m] of them are distinct
// k-mers shared by m haplotypes (sum of m * q[m] = p; q[p] is the chance that
// all p agree). A share d of the positions lies in sequence present twice
// (two-copy repeats), which doubles those multiplicities. Sequencing errors
// add a term a * c^-s that falls from c = 1.
//
// The fit is least squares on the rows c_lo .. c_hi of the spectrum, each
// row weighted by 1 / sqrt(f(c) + 1), by GSL's Levenberg-Marquardt
// (gsl_multifit_nlinear), started from each reading of the main peak as
// m * lambda (m = 1 .. p) and kept where the residual is least. The cut-off
// c_hi comes from the spectrum: (2p + 2) times the largest lambda started
// from, so the two-copy repeats of every start lie inside it; k-mers above
// it are repeats of more copies, counted in the genome length (as in
// GenomeScope) but not fitted. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kmerbloom {

inline constexpr unsigned kMaxProfilePloidy = 6;

// A heterozygous form of a site at ploidy p (GenomeScope's aab, aabb, ...):
// how the p haplotypes share the alleles there, a letter an allele, the
// largest group first. DNA has four bases, so a form has 2 to 4 alleles.
struct HetForm {
  std::string name;          // "ab"; "aab", "abc"; "aaab", "aabb", "aabc", "abcd"; ...
  double low = 0, high = 0;  // share of the bases in this form: least and most the spectrum allows
};

struct ProfileOptions {
  unsigned k = 0;          // k-mer length (required: heterozygosity and error rate are per base)
  unsigned ploidy = 2;     // 1 .. kMaxProfilePloidy
  bool last_row_overflow = false;  // the last row holds every k-mer seen that often or more
  bool skip_row1 = false;  // row 1 was estimated (Bloom-gated counting): not fitted
  uint64_t total_kmers = 0;  // k-mer occurrences if known (with an overflow row), 0 = sum the rows
};

// The fitted model, evaluated: what profile reports.
struct GenomeProfile {
  unsigned k = 0, ploidy = 0;
  bool fitted = false;
  std::string verdict;  // "fitted", or why the spectrum cannot be fitted

  // Fitted parameters.
  double kmer_coverage = 0;  // lambda: coverage of a k-mer one haplotype holds
  double bias = 0;           // overdispersion: variance = mean * (1 + bias)
  double duplication = 0;    // d: share of the genome in two-copy repeats
  std::vector<double> multiplicity;  // q[m], m = 1 .. p (index 0 unused)
  double error_amplitude = 0, error_slope = 0;  // errors(c) = amplitude * c^-slope

  // Derived, as the docs define them (docs/profile.md).
  double genome_length = 0;             // haploid: genomic k-mer occurrences / (p * lambda)
  double genome_length_low = 0, genome_length_high = 0;  // +- 2 standard errors of lambda
  double model_length = 0;              // positions the model holds (unique and two-copy)
  double unique_length = 0;             // model_length * (1 - d)
  double repeat_length = 0;             // genome_length - unique_length
  double heterozygosity = 0;            // per base: 1 - q[p]^(1/k)
  std::vector<HetForm> het_forms;       // p >= 2: het_form_shares of q (their shares sum to heterozygosity)
  double error_rate = 0;                // per base: 1 - (1 - error occurrences / occurrences)^(1/k)
  double error_kmers = 0;               // distinct k-mers the error term holds (rows c_lo .. c_hi)
  double model_fit = 0;                 // 1 - sum |f - model| / sum f over the fitted rows
  uint64_t fit_first = 0, fit_last = 0; // rows fitted
  unsigned iterations = 0;
  std::vector<std::string> notes;
  std::vector<std::string> readings;  // each start's fit, for -v: coverage, residual, shares

  // The model at row c: the error term, the genomic term at copy number j
  // (1 .. 2p), and their sum.
  double errors_at(uint64_t c) const;
  double copies_at(unsigned j, uint64_t c) const;
  double model_at(uint64_t c) const;
};

// Fits the model to histogram[c] (c >= 1; [0] ignored). Never throws for a
// histogram that cannot be fitted: fitted is false and verdict says why (no
// peak above the errors, too little coverage, no convergence, a fit that
// leaves too much unexplained). Throws std::invalid_argument for options out
// of range (k 0 or above 255, ploidy 0 or above 6).
GenomeProfile fit_genome_profile(const std::vector<uint64_t>& histogram, const ProfileOptions& options);

// The share of the bases in each heterozygous form of ploidy p that gives
// the k-mer sharing q[1..p] (index 0 unused; sum of m * q[m] = p), sites
// independent and the haplotypes of a form in any order. A k-mer is shared
// by a set of haplotypes when they agree at all its k bases, so q fixes the
// chance g(s) that s haplotypes agree at a base, for s = 2 .. p: p - 1
// figures for the forms' shares (one at p = 2 and 3, four at p = 4, five at 5
// and eight at 6). At p = 2 and 3 each form's share is exact (low = high);
// beyond, each is the range over the mixtures of forms that give the same
// g (a linear program, solved at its vertices). When no mixture gives q
// exactly (the fit's noise), the ranges are those of the mixtures closest to
// it (least sum of the deviations of g). Forms in GenomeScope's order.
std::vector<HetForm> het_form_shares(const std::vector<double>& q, unsigned p, unsigned k);

// What count's statistics say about their histogram (k, overflow row and
// total k-mers, an estimated row 1), at this ploidy.
ProfileOptions profile_options_from_stats(const nlohmann::json& stats, const std::vector<uint64_t>& histogram,
                                          unsigned ploidy);

// The figures of profile --stats and of count's "profile" object
// (docs/profile.md); null when not fitted.
nlohmann::json profile_json(const GenomeProfile& p);

// The profile back from profile_json, to draw it again (report): the fitted
// parameters and figures; throws std::invalid_argument naming a missing or
// mistyped key.
GenomeProfile profile_from_json(const nlohmann::json& j);

// The summary in GenomeScope's text layout: property, min, max.
std::string profile_summary(const GenomeProfile& p, const std::string& input);

}  // namespace kmerbloom
