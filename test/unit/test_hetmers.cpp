// hetmers' pieces apart from the command line: smudgeplot's cutoff rules
// against a second implementation of Python's rounding, and the densest-smudge
// reading on grids drawn from the coverage model of each structure (AB, AAB,
// AAAB: counts Poisson around copies x haploid coverage), seeded; the search
// in small and in one piece against a brute force.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "formats/output.hpp"
#include "kmer/kmer.hpp"
#include "profile/counted_kmers.hpp"
#include "profile/cutoffs.hpp"
#include "profile/hetmers.hpp"
#include "profile/smudge_peak.hpp"
#include "temp_dir.hpp"

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

namespace {

// Canonical k-mers, sorted, once each, with counts: many one base from one
// chosen before (families), some of a count high enough that their pairs
// add up to more than kMaxPairCoverage.
std::vector<CountedKmer> family_set(unsigned k, size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  const uint64_t mask = (uint64_t{1} << (2 * k)) - 1;
  std::map<uint64_t, uint64_t> set;
  std::vector<uint64_t> chosen;
  while (set.size() < n) {
    uint64_t x = rng() & mask;
    if (!chosen.empty() && rng() % 10 < 6) {  // a neighbour of one chosen before
      const unsigned at = static_cast<unsigned>(rng() % k);
      x = chosen[rng() % chosen.size()] ^ (uint64_t{1 + rng() % 3} << (2 * at));
    }
    x = std::min(x, reverse_complement(x, k));
    chosen.push_back(x);
    set.emplace(x, rng() % 20 == 0 ? 600 + rng() % 300 : 1 + rng() % 60);
  }
  std::vector<CountedKmer> out;
  for (const auto& [kmer, count] : set) out.push_back({kmer, count});
  return out;
}

// Every two oriented k-mers compared: the pairs at one base (counts adding
// up to at most kMaxPairCoverage), each k-mer's degree, the unique pairs binned.
HetmerResult brute_force(const std::vector<CountedKmer>& set, unsigned k) {
  std::vector<CountedKmer> all;
  for (const CountedKmer& c : set) {
    all.push_back(c);
    if (reverse_complement(c.kmer, k) != c.kmer) all.push_back({reverse_complement(c.kmer, k), c.count});
  }
  std::vector<unsigned> degree(all.size(), 0);
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j) {
      unsigned differ = 0;
      for (unsigned p = 0; p < k; ++p) differ += ((all[i].kmer ^ all[j].kmer) >> (2 * p) & 3) != 0;
      if (differ != 1 || all[i].count + all[j].count > kMaxPairCoverage) continue;
      ++degree[i];
      ++degree[j];
      pairs.emplace_back(i, j);
    }
  HetmerResult r;
  r.pairs = pairs.size();
  for (const unsigned d : degree) {
    r.kmers_in_pairs += d > 0;
    r.kmers_in_several += d > 1;
  }
  for (const auto& [i, j] : pairs)
    if (degree[i] == 1 && degree[j] == 1) {
      ++r.unique_pairs;
      ++r.grid.at(all[i].count + all[j].count, std::min(all[i].count, all[j].count));
    }
  return r;
}

class HetmerSearch : public TempDirTest {
 protected:
  HetmerResult search(const std::vector<CountedKmer>& set, unsigned k, unsigned threads, uint64_t unit,
                      uint64_t bucket, const std::string& pairs_name) {
    CountedKmers kept(path(""));
    for (const CountedKmer& c : set) kept.add(c.kmer, c.count);
    kept.finish();
    OutputFile pairs(path(pairs_name));
    HetmerOptions o;
    o.k = k;
    o.threads = threads;
    o.pairs = &pairs;
    o.unit_kmers = unit;
    o.bucket_kmers = bucket;
    const HetmerResult r = find_hetmers(kept, o);
    pairs.commit();
    return r;
  }
  std::string bytes(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

bool same_grid(const SmudgeGrid& a, const SmudgeGrid& b) {
  for (uint64_t sum = 0; sum <= kMaxPairCoverage; ++sum)
    for (uint64_t minor = 0; minor <= kMaxMinorCoverage; ++minor)
      if (a.at(sum, minor) != b.at(sum, minor)) return false;
  return true;
}

}  // namespace

// Units of at most 64 oriented k-mers and buckets of about 32 reverse
// complements: the search runs through shallow units (four groups of one
// level) and the scatter's many buckets; in one piece, it does not. Both
// give the brute force's pairs, degrees and bins, and each the same pairs
// file on 1 and 3 threads.
TEST_F(HetmerSearch, SmallPiecesAndOnePieceFindTheBruteForcesPairs) {
  for (const unsigned k : {11u, 12u}) {
    const std::vector<CountedKmer> set = family_set(k, 3000, k);
    const HetmerResult want = brute_force(set, k);
    ASSERT_GT(want.unique_pairs, 100u) << "the set holds unique pairs";
    ASSERT_GT(want.kmers_in_several, 100u) << "and k-mers in several pairs";
    for (const auto& [unit, bucket] : {std::pair<uint64_t, uint64_t>{0, 0}, {64, 32}}) {
      const HetmerResult one = search(set, k, 1, unit, bucket, "p1.tsv");
      const HetmerResult three = search(set, k, 3, unit, bucket, "p3.tsv");
      const std::string what = "k = " + std::to_string(k) + (unit ? ", small pieces" : ", one piece");
      if (unit) EXPECT_GT(one.partitions, 100u) << what;
      else EXPECT_EQ(one.partitions, 1u) << what;
      for (const HetmerResult* r : {&one, &three}) {
        EXPECT_EQ(r->pairs, want.pairs) << what;
        EXPECT_EQ(r->kmers_in_pairs, want.kmers_in_pairs) << what;
        EXPECT_EQ(r->kmers_in_several, want.kmers_in_several) << what;
        EXPECT_EQ(r->unique_pairs, want.unique_pairs) << what;
        EXPECT_TRUE(same_grid(r->grid, want.grid)) << what;
      }
      EXPECT_EQ(bytes("p1.tsv"), bytes("p3.tsv")) << what << ": the pairs in one order whatever the threads";
    }
  }
}
