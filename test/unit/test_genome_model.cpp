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
};

struct Simulated {
  std::vector<uint64_t> histogram;
  double error_rate = 0;  // per base, from the share of error occurrences
};

Simulated simulate(const Planted& s) {
  std::mt19937_64 rng(s.seed);
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
