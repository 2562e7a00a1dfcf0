// The genome profile against spectra of simulated genomes with planted
// figures: sequences, not the model's own formulas. A founder of G random
// bases; p haplotypes that differ from it at a share r of the positions
// (each such position: a random non-empty proper subset of the haplotypes
// takes another base); the first d / 2 of every haplotype copied over its
// end (a share d of the positions in exact two-copy repeats); every distinct k-mer of the haplotypes counted by how
// many haplotype copies hold it (m), then seen gamma-Poisson(m * lambda)
// times (overdispersed sampling of reads); errors as k-mers of their own
// seen 1 + Poisson(mu) times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_map>

#include "profile/genome_model.hpp"
#include "profile/genome_plot.hpp"

namespace kmerbloom {
namespace {

struct Planted {
  unsigned p = 2;
  size_t genome = 400'000;
  double het = 0.01, repeats = 0, lambda = 25, bias = 0.3;
  double error_kmers_per_occurrence = 0.05;  // distinct error k-mers per genomic occurrence
  double error_mu = 0.2;
  unsigned k = 21;
  uint64_t seed = 1;
  // The het sites' forms: allele groups (largest first, 2 to 4) and each
  // one's share of the het sites. Empty: a random non-empty proper subset
  // of the haplotypes takes one other base.
  std::vector<std::pair<std::vector<unsigned>, double>> forms = {};
};

struct Simulated {
  std::vector<uint64_t> histogram;
  double error_rate = 0;  // per base, from the share of error occurrences
};

// Every distinct k-mer of the haplotypes and how many haplotype copies hold it.
std::unordered_map<uint64_t, uint32_t> kmer_copies(const Planted& s, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> base(0, 3);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<uint8_t> founder(s.genome);
  for (auto& b : founder) b = static_cast<uint8_t>(base(rng));
  // Two-copy repeats: the founder's first share `repeats / 2` copied over a
  // later stretch, so that `repeats` of the positions are in two copies.
  const auto copy = static_cast<size_t>(s.repeats / 2 * static_cast<double>(s.genome));
  std::vector<std::vector<uint8_t>> haps(s.p, founder);
  for (size_t i = 0; i < s.genome; ++i) {
    if (s.p < 2 || unit(rng) >= s.het) continue;
    if (!s.forms.empty()) {
      // A planted form: its groups over the haplotypes in a random order,
      // each group another base.
      double pick = unit(rng);
      size_t f = 0;
      while (f + 1 < s.forms.size() && (pick -= s.forms[f].second) > 0) ++f;
      std::vector<unsigned> order(s.p);
      for (unsigned h = 0; h < s.p; ++h) order[h] = h;
      std::shuffle(order.begin(), order.end(), rng);
      uint8_t bases[4] = {0, 1, 2, 3};
      std::shuffle(bases, bases + 4, rng);
      unsigned h = 0;
      for (size_t g = 0; g < s.forms[f].first.size(); ++g)
        for (unsigned n = 0; n < s.forms[f].first[g]; ++n) haps[order[h++]][i] = bases[g];
      continue;
    }
    // A non-empty proper subset of the haplotypes carries another base.
    uint32_t mask = 0;
    while (mask == 0 || mask == (1u << s.p) - 1) mask = static_cast<uint32_t>(rng() & ((1u << s.p) - 1));
    const uint8_t alt = static_cast<uint8_t>((founder[i] + 1 + base(rng) % 3) % 4);
    for (unsigned h = 0; h < s.p; ++h)
      if (mask >> h & 1) haps[h][i] = alt;
  }
  for (auto& h : haps)
    for (size_t i = 0; i < copy; ++i) h[s.genome - copy + i] = h[i];
  std::unordered_map<uint64_t, uint32_t> copies;
  copies.reserve(s.genome * 2);
  const uint64_t mask = (uint64_t{1} << (2 * s.k)) - 1;
  for (const auto& h : haps) {
    uint64_t w = 0;
    for (size_t i = 0; i < h.size(); ++i) {
      w = (w << 2 | h[i]) & mask;
      if (i + 1 >= s.k) ++copies[w];
    }
  }
  return copies;
}

Simulated simulate(const Planted& s) {
  std::mt19937_64 rng(s.seed);
  const std::unordered_map<uint64_t, uint32_t> copies = kmer_copies(s, rng);
  Simulated out;
  out.histogram.assign(20000, 0);
  double occurrences = 0;
  for (const auto& [kmer, m] : copies) {
    const double mean = m * s.lambda;
    std::gamma_distribution<double> g(mean / s.bias, s.bias);
    const auto c = std::poisson_distribution<uint64_t>(g(rng))(rng);
    if (c == 0) continue;
    ++out.histogram[std::min<uint64_t>(c, out.histogram.size() - 1)];
    occurrences += static_cast<double>(c);
  }
  const auto errors = static_cast<uint64_t>(s.error_kmers_per_occurrence * occurrences);
  std::poisson_distribution<uint64_t> extra(s.error_mu);
  double error_occ = 0;
  for (uint64_t i = 0; i < errors; ++i) {
    const uint64_t c = 1 + extra(rng);
    ++out.histogram[c];
    error_occ += static_cast<double>(c);
  }
  out.error_rate = 1 - std::pow(1 - error_occ / (occurrences + error_occ), 1.0 / s.k);
  out.histogram.resize(2000);  // a histogram written with its overflow row at 1999
  return out;
}

GenomeProfile fit(const Simulated& sim, const Planted& s) {
  ProfileOptions o;
  o.k = s.k;
  o.ploidy = s.p;
  return fit_genome_profile(sim.histogram, o);
}

void expect_recovered(const Planted& s, double length_tolerance = 0.02) {
  const Simulated sim = simulate(s);
  const GenomeProfile p = fit(sim, s);
  const std::string what = "ploidy " + std::to_string(s.p) + ", het " + std::to_string(s.het) + ", repeats " +
                           std::to_string(s.repeats) + ", lambda " + std::to_string(s.lambda);
  ASSERT_TRUE(p.fitted) << what << ": " << p.verdict;
  const double genome = static_cast<double>(s.genome - s.k + 1);
  EXPECT_NEAR(p.genome_length / genome, 1, length_tolerance) << what << ": " << p.genome_length;
  EXPECT_NEAR(p.kmer_coverage / s.lambda, 1, 0.03) << what;
  if (s.p > 1) {
    EXPECT_NEAR(p.heterozygosity, s.het, 0.001) << what;
  }
  EXPECT_NEAR(p.error_rate / sim.error_rate, 1, 0.25) << what << ": " << p.error_rate << " planted " << sim.error_rate;
  EXPECT_GT(p.model_fit, 0.9) << what;
  if (s.repeats > 0) {
    EXPECT_NEAR(p.repeat_length / genome, s.repeats, 0.03) << what;
  }
}

TEST(GenomeModel, HaploidLengthAndCoverage) { expect_recovered({.p = 1, .het = 0, .repeats = 0.1}); }

TEST(GenomeModel, DiploidHeterozygosityFromNoneToTwoPercent) {
  for (const double het : {0.0, 0.005, 0.01, 0.02}) expect_recovered({.p = 2, .het = het, .seed = 7});
}

TEST(GenomeModel, DiploidWithRepeatsAtLowAndHighCoverage) {
  expect_recovered({.p = 2, .het = 0.01, .repeats = 0.2, .lambda = 15});
  expect_recovered({.p = 2, .het = 0.01, .repeats = 0.3, .lambda = 100, .bias = 1});
}

TEST(GenomeModel, PolyploidsUpToHexaploid) {
  for (const unsigned p : {3u, 4u, 6u}) expect_recovered({.p = p, .genome = 200'000, .het = 0.01, .lambda = 20, .seed = p});
}

// q[m] of a simulated genome, without reads: its distinct k-mers held by m
// haplotypes, a position.
std::vector<double> sharing(const Planted& s) {
  std::mt19937_64 rng(s.seed);
  std::vector<double> q(s.p + 1, 0.0);
  for (const auto& [kmer, m] : kmer_copies(s, rng)) q[std::min<uint32_t>(m, s.p)] += 1;
  for (auto& v : q) v /= static_cast<double>(s.genome - s.k + 1);
  return q;
}

// Each planted form's share lies in its reported range (give or take
// `slack`), and the shares sum to the heterozygosity.
void expect_forms(const std::vector<HetForm>& got, const Planted& s, double slack) {
  ASSERT_EQ(got.size(), s.forms.size());
  double low = 0, high = 0;
  for (size_t f = 0; f < got.size(); ++f) {
    std::string name;
    for (size_t g = 0; g < s.forms[f].first.size(); ++g) name += std::string(s.forms[f].first[g], static_cast<char>('a' + g));
    EXPECT_EQ(got[f].name, name);
    const double planted = s.het * s.forms[f].second;
    EXPECT_LE(got[f].low, planted + slack) << name << " planted " << planted;
    EXPECT_GE(got[f].high, planted - slack) << name << " planted " << planted;
    EXPECT_LE(got[f].low, got[f].high) << name;
    low += got[f].low;
    high += got[f].high;
  }
  EXPECT_LE(low, s.het + slack);
  EXPECT_GE(high, s.het - slack);
}

TEST(GenomeModel, HetFormsFromTheKmerSharing) {
  // Triploid: the spectrum's two sharing figures fix both forms.
  Planted t{.p = 3, .het = 0.02, .forms = {{{2, 1}, 0.7}, {{1, 1, 1}, 0.3}}};
  std::vector<HetForm> f = het_form_shares(sharing(t), 3, t.k);
  expect_forms(f, t, 0.0005);
  for (const auto& form : f) EXPECT_NEAR(form.low, form.high, 1e-9) << form.name;
  // Only aab: abc is none.
  t.forms = {{{2, 1}, 1.0}, {{1, 1, 1}, 0.0}};
  f = het_form_shares(sharing(t), 3, t.k);
  expect_forms(f, t, 0.0005);
  EXPECT_LT(f[1].high, 0.0005);
  // Tetraploid: aaab is fixed; aabb, aabc and abcd share two figures, so
  // each has a range, narrower than the heterozygosity.
  Planted q{.p = 4, .het = 0.02, .forms = {{{3, 1}, 0.4}, {{2, 2}, 0.4}, {{2, 1, 1}, 0.14}, {{1, 1, 1, 1}, 0.06}}};
  f = het_form_shares(sharing(q), 4, q.k);
  expect_forms(f, q, 0.0005);
  EXPECT_NEAR(f[0].low, f[0].high, 1e-9);
  EXPECT_GT(f[1].low, 0.005) << "aabb at least 6 X - Y: 0.68%";
  EXPECT_LT(f[3].high, 0.004) << "abcd at most Y - 6 X + 3 X: 0.26%";
  // Hexaploid: eight forms of at most four alleles.
  Planted h{.p = 6, .het = 0.02, .forms = {{{5, 1}, 0.3}, {{4, 2}, 0.2}, {{4, 1, 1}, 0.1}, {{3, 3}, 0.1},
                                           {{3, 2, 1}, 0.1}, {{3, 1, 1, 1}, 0.05}, {{2, 2, 2}, 0.1}, {{2, 2, 1, 1}, 0.05}}};
  f = het_form_shares(sharing(h), 6, h.k);
  expect_forms(f, h, 0.0005);
  // A sharing no mixture gives (as much aab as abc k-mers cannot be, since
  // two aab sites of other groups in one k-mer make it abc): the closest
  // mixture, no NaN.
  f = het_form_shares({0, 0.2, 0.2, 0.8}, 3, 21);
  ASSERT_EQ(f.size(), 2u);
  for (const auto& form : f) EXPECT_TRUE(std::isfinite(form.low) && std::isfinite(form.high)) << form.name;
  EXPECT_EQ(het_form_shares({0, 0, 1}, 2, 21).size(), 1u);
}

TEST(GenomeModel, HetFormsFittedFromASpectrum) {
  Planted t{.p = 3, .genome = 200'000, .het = 0.015, .lambda = 20, .seed = 11,
            .forms = {{{2, 1}, 0.6}, {{1, 1, 1}, 0.4}}};
  const GenomeProfile p = fit(simulate(t), t);
  ASSERT_TRUE(p.fitted) << p.verdict;
  expect_forms(p.het_forms, t, 0.001);
  const nlohmann::json j = profile_json(p);
  EXPECT_DOUBLE_EQ(j.at("het_forms").at("abc").at(0).get<double>(), p.het_forms[1].low);
  EXPECT_NE(profile_summary(p, "x").find("\nabc "), std::string::npos);
  // Back from the JSON: the same forms; from a JSON without them (older
  // statistics), the same from the multiplicity.
  EXPECT_DOUBLE_EQ(profile_from_json(j).het_forms[0].high, p.het_forms[0].high);
  nlohmann::json old = j;
  old.erase("het_forms");
  EXPECT_NEAR(profile_from_json(old).het_forms[0].high, p.het_forms[0].high, 1e-12);
}

TEST(GenomeModel, UnfittableSpectraGetAVerdictNotANumber) {
  Planted s{.p = 2, .lambda = 1.5};
  GenomeProfile p = fit(simulate(s), s);
  EXPECT_FALSE(p.fitted);
  EXPECT_NE(p.verdict, "fitted");
  // Errors only: a spectrum falling from row 1 without a peak.
  std::vector<uint64_t> errors(200, 0);
  for (size_t c = 1; c < errors.size(); ++c) errors[c] = static_cast<uint64_t>(1e7 * std::pow(static_cast<double>(c), -3));
  p = fit_genome_profile(errors, {.k = 21, .ploidy = 2});
  EXPECT_FALSE(p.fitted) << p.verdict;
  // Two genomes at unrelated coverages, neither a copy of the other.
  Planted a{.p = 1, .het = 0, .lambda = 20, .seed = 3}, b{.p = 1, .het = 0, .lambda = 47, .seed = 4};
  Simulated mix = simulate(a);
  const Simulated other = simulate(b);
  for (size_t c = 0; c < mix.histogram.size(); ++c) mix.histogram[c] += other.histogram[c];
  p = fit_genome_profile(mix.histogram, {.k = 21, .ploidy = 1});
  EXPECT_FALSE(p.fitted) << "a mixture is not one haploid genome: " << p.genome_length;
  EXPECT_THROW(fit_genome_profile(errors, {.k = 0, .ploidy = 2}), std::invalid_argument);
  EXPECT_THROW(fit_genome_profile(errors, {.k = 21, .ploidy = 7}), std::invalid_argument);
}

TEST(GenomeModel, ModelIsTheSumOfItsTerms) {
  const Planted s{.p = 2, .repeats = 0.1};
  const GenomeProfile p = fit(simulate(s), s);
  ASSERT_TRUE(p.fitted);
  for (const uint64_t c : {1u, 5u, 25u, 50u, 100u}) {
    double sum = p.errors_at(c);
    for (unsigned j = 1; j <= 4; ++j) sum += p.copies_at(j, c);
    EXPECT_DOUBLE_EQ(sum, p.model_at(c));
  }
  // The genomic terms hold the model's positions times p: sum of j * copies(j) over all rows = p * lambda * L.
  double occ = 0;
  for (uint64_t c = 1; c < 2000; ++c)
    for (unsigned j = 1; j <= 4; ++j) occ += static_cast<double>(c) * p.copies_at(j, c);
  EXPECT_NEAR(occ / (2 * p.kmer_coverage * p.model_length), 1, 1e-6);
  const nlohmann::json j = profile_json(p);
  EXPECT_EQ(j.at("ploidy"), 2);
  EXPECT_DOUBLE_EQ(j.at("genome_length").get<double>(), p.genome_length);
  const std::vector<uint64_t> h = simulate(s).histogram;
  const std::string svg = profile_svg(h, p, "sample");
  EXPECT_NE(svg.find("class=\"model\""), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  // Back from the JSON (the report draws count's fit from its statistics): the same drawing.
  const GenomeProfile back = profile_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(profile_svg(h, back, "sample"), svg);
  EXPECT_EQ(profile_summary(back, "x"), profile_summary(p, "x"));
  nlohmann::json broken = j;
  broken.erase("error_term");
  EXPECT_THROW(profile_from_json(broken), std::invalid_argument);
}

}  // namespace
}  // namespace kmerbloom
