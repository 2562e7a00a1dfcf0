// hetmers' pieces apart from the command line: smudgeplot's cutoff rules
// against a second implementation of Python's rounding, and the densest-smudge
// reading on grids drawn from the coverage model of each structure (AB, AAB,
// AAAB: counts Poisson around copies x haploid coverage), seeded.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "profile/cutoffs.hpp"
#include "profile/hetmers.hpp"
#include "profile/smudge_peak.hpp"

using namespace kmerbloom;

namespace {

// Python's round() of x >= 0: to the nearest integer, an exact half to the even one.
uint64_t python_round(double x) {
  const double f = std::floor(x);
  if (x - f > 0.5) return static_cast<uint64_t>(f) + 1;
  if (x - f < 0.5) return static_cast<uint64_t>(f);
  return static_cast<uint64_t>(f) % 2 == 0 ? static_cast<uint64_t>(f) : static_cast<uint64_t>(f) + 1;
}

// Falling error counts down to a trough at `trough`, then a peak at 3 x trough.
std::vector<uint64_t> spectrum(uint64_t trough, uint64_t first = 1) {
  std::vector<uint64_t> h(8 * trough, 0);
  for (uint64_t c = first; c < h.size(); ++c) {
    const double errors = 1e7 / std::pow(static_cast<double>(c), 4);
    const double x = static_cast<double>(c) - 3.0 * static_cast<double>(trough);
    const double genome = 1e5 * std::exp(-x * x / (2.0 * static_cast<double>(trough)));
    h[c] = static_cast<uint64_t>(errors + genome) + 1;
  }
  return h;
}

uint64_t first_local_minimum(const std::vector<uint64_t>& h, uint64_t first) {
  for (uint64_t c = first + 1; c + 1 < h.size(); ++c)
    if (h[c - 1] >= h[c] && h[c] < h[c + 1]) return c;
  return 0;
}

SmudgeGrid draw(unsigned copies_a, unsigned copies_b, double haploid, uint64_t pairs, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::poisson_distribution<uint64_t> a(copies_a * haploid), b(copies_b * haploid);
  SmudgeGrid g;
  for (uint64_t i = 0; i < pairs; ++i) {
    const uint64_t x = a(rng), y = b(rng);
    if (x + y <= kMaxPairCoverage && x > 0 && y > 0) ++g.at(x + y, std::min(x, y));
  }
  return g;
}

}  // namespace

TEST(HetmerCutoffs, LowerIsSmudgeplotsRuleOnTheFirstTrough) {
  for (uint64_t trough : {6, 9, 11, 14, 20, 27}) {
    const auto h = spectrum(trough);
    const uint64_t at = first_local_minimum(h, 1);
    ASSERT_GT(at, 0u);
    EXPECT_EQ(smudgeplot_lower_cutoff(h), std::max<uint64_t>(10, python_round(1.25 * double(at - 1))))
        << "trough " << trough;
  }
}

TEST(HetmerCutoffs, RowsBelowTheSmallestCountAreNotATrough) {
  const auto full = spectrum(20);
  auto cut = full;
  for (size_t c = 0; c < 4; ++c) cut[c] = 0;  // written with --min-count 4
  EXPECT_EQ(smudgeplot_lower_cutoff(cut), smudgeplot_lower_cutoff(full));
}

TEST(HetmerCutoffs, UpperIsTheQuantileRoundedUpNicely) {
  const auto h = spectrum(20);
  uint64_t total = 0, sum = 0, at = 0;
  for (size_t c = 2; c < h.size(); ++c) total += h[c];
  for (size_t c = 2; c < h.size() && !at; ++c)
    if ((sum += h[c]) * 1000 > total * 998) at = c;
  const uint64_t index = at - 2;  // smudgeplot's row index
  const uint64_t step = index < 10 ? 1 : index < 100 ? 1 : index < 1000 ? 10 : 100;
  EXPECT_EQ(smudgeplot_upper_cutoff(h), (index + step - 1) / step * step);
}

TEST(SmudgePeak, EachStructureIsReadAtItsMinorShare) {
  struct Case {
    unsigned a, b, ploidy;
  };
  for (const Case c : {Case{1, 1, 2}, Case{2, 1, 3}, Case{3, 1, 4}})
    for (double haploid : {15.0, 30.0}) {
      const SmudgePeak p = find_smudge_peak(draw(c.a, c.b, haploid, 50000, 7 + c.a), 8, 200000);
      EXPECT_EQ(p.ploidy, c.ploidy) << c.a << "A" << c.b << "B at " << haploid << "x: share " << p.minor_share;
      EXPECT_NEAR(p.sum, (c.a + c.b) * haploid, 0.1 * (c.a + c.b) * haploid);
      EXPECT_NEAR(p.haploid_coverage, haploid, 0.1 * haploid);
    }
}

// A sparse grid whose fullest neighbourhood has an empty centre (minor
// shares 0.45 and 0.50 around the empty bin [0.475, 0.5)): the peak is the
// mean of that neighbourhood, not 0 / 0.
TEST(SmudgePeak, AnEmptyCentreTakesItsNeighbourhood) {
  SmudgeGrid g;
  g.at(100, 45) = 1;
  g.at(100, 50) = 1;
  const SmudgePeak p = find_smudge_peak(g, 8, 1000);
  ASSERT_TRUE(p.found);
  EXPECT_DOUBLE_EQ(p.sum, 100.0);
  EXPECT_DOUBLE_EQ(p.minor_share, 0.475);
}

TEST(SmudgePeak, NoPloidyFromFewPairsRarePairsOrTheErrorLine) {
  const SmudgePeak few = find_smudge_peak(draw(1, 1, 20, 500, 3), 8, 2000);
  EXPECT_TRUE(few.found);
  EXPECT_EQ(few.ploidy, 0u);
  EXPECT_NE(few.note.find("too few"), std::string::npos);
  // A k-mer at 2 x 20 paired with one of its errors just above L = 10.
  SmudgeGrid errors;
  for (uint64_t major = 30; major <= 50; ++major) errors.at(major + 11, 11) += 1000;
  const SmudgePeak e = find_smudge_peak(errors, 10, 100000);
  EXPECT_EQ(e.ploidy, 0u);
  EXPECT_NE(e.note.find("error line"), std::string::npos);
  // Why, and the depth that would decide: the minor count 11 against 1.5 L = 15.
  EXPECT_NE(e.note.find("its minor count, about 11.0, is below 1.5 L = 15.0"), std::string::npos) << e.note;
  EXPECT_NE(e.note.find("reads at about 1.4 times this depth would lift it clear"), std::string::npos) << e.note;
  EXPECT_FALSE(find_smudge_peak(SmudgeGrid{}, 10, 1000).found);
  // A clear AB smudge of 50,000 pairs among 10 million k-mers: 0.5%, as the
  // paralogs of a haploid bacterium give.
  const SmudgeGrid ab = draw(1, 1, 25, 50000, 5);
  const SmudgePeak rare = find_smudge_peak(ab, 10, 10000000);
  EXPECT_EQ(rare.ploidy, 0u);
  EXPECT_NE(rare.note.find("paralogs"), std::string::npos);
  {  // the share as the page and the run's line round it, 0.849% as 0.85%, not cut short to 0.84%
    SmudgeGrid few_pairs;
    few_pairs.at(50, 25) = 8490;
    const SmudgePeak rounded = find_smudge_peak(few_pairs, 10, 1000000);
    EXPECT_NE(rounded.note.find("the unique pairs hold 0.85% of the k-mers, below 1.00%"), std::string::npos)
        << rounded.note;
  }
  EXPECT_EQ(find_smudge_peak(ab, 10, 1000000).ploidy, 2u);  // 5%
}
