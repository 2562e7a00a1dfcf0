// profile/assembly_qv.hpp and profile/qv_files.hpp: the solid threshold
// against a scan for the first local minimum, the histogram against
// std::map, the error formula against its inverse, and the number format
// against awk itself (Merqury's formatter).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "profile/assembly_qv.hpp"
#include "profile/qv_files.hpp"
#include "profile/qv_plot.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

using Rows = std::vector<std::pair<uint64_t, uint64_t>>;

// The first row v that is lower than the row before it (or the first row)
// and than the row after it; the threshold is the next row's count - 1.
uint64_t first_local_minimum(const Rows& rows) {
  for (size_t v = 0; v + 1 < rows.size(); ++v) {
    const bool lower_than_before = v == 0 || rows[v - 1].second > rows[v].second;
    if (lower_than_before && rows[v].second < rows[v + 1].second) return rows[v + 1].first - 1;
  }
  return 0;
}

// An error tail falling as a power, a coverage peak, and some rows left out.
Rows random_spectrum(std::mt19937_64& rng) {
  const double peak = 8 + static_cast<double>(rng() % 40), tail = 1e6 * (1 + static_cast<double>(rng() % 9));
  std::map<uint64_t, uint64_t> h;
  for (uint64_t c = 1; c < 4 * static_cast<uint64_t>(peak); ++c) {
    const double z = (static_cast<double>(c) - peak) / (peak / 4);
    const double noise = static_cast<double>(rng() % 50);
    const double n = tail / std::pow(static_cast<double>(c), 3) + 2e5 * std::exp(-z * z / 2) + noise;
    if (rng() % 10 && n >= 1) h[c] = static_cast<uint64_t>(n);
  }
  return Rows(h.begin(), h.end());
}

TEST(SolidThreshold, FirstValleyOfRandomSpectra) {
  std::mt19937_64 rng(17);
  int compared = 0, with_valley = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Rows rows = random_spectrum(rng);
    // Flat steps are where the two definitions part (Merqury's walk does
    // not take a rise after a flat step): leave such spectra to the cases below.
    bool flat = false;
    for (size_t i = 1; i < rows.size(); ++i) flat |= rows[i].second == rows[i - 1].second;
    if (flat) continue;
    EXPECT_EQ(merqury_solid_threshold(rows), first_local_minimum(rows)) << "trial " << trial;
    ++compared;
    with_valley += first_local_minimum(rows) > 1;
  }
  EXPECT_GT(compared, 100);  // the comparison ran on many spectra
  EXPECT_GT(with_valley, compared / 2);  // most with a valley past row 1
}

TEST(SolidThreshold, EdgeCases) {
  EXPECT_EQ(merqury_solid_threshold({}), 0u);
  EXPECT_EQ(merqury_solid_threshold({{1, 5}}), 0u);
  EXPECT_EQ(merqury_solid_threshold({{1, 9}, {2, 5}, {3, 2}}), 0u);            // falls only: no valley
  EXPECT_EQ(merqury_solid_threshold({{1, 2}, {2, 5}}), 1u);                    // rises at once
  EXPECT_EQ(merqury_solid_threshold({{1, 9}, {2, 4}, {5, 6}}), 4u);            // a gap: the rising row's count - 1
  // A flat step, then a rise that is no valley, then one that is.
  EXPECT_EQ(merqury_solid_threshold({{1, 9}, {2, 4}, {3, 4}, {4, 6}, {5, 3}, {6, 8}}), 5u);
}

TEST(CountHistogram, AgreesWithAMapAcrossTheDenseLimit) {
  std::mt19937_64 rng(3);
  CountHistogram h, twice;
  std::map<uint64_t, uint64_t> oracle;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t c = 1 + (rng() % 3 ? rng() % (2 * CountHistogram::kDense) : rng() % 1000000);
    h.add(c);
    ++oracle[c];
  }
  EXPECT_EQ(h.rows(), Rows(oracle.begin(), oracle.end()));
  for (uint64_t t : {uint64_t{0}, uint64_t{5}, CountHistogram::kDense, CountHistogram::kDense + 1, uint64_t{999999}}) {
    uint64_t above = 0;
    for (const auto& [c, n] : oracle) above += c > t ? n : 0;
    EXPECT_EQ(h.distinct_above(t), above) << t;
  }
  twice.add(h);
  twice.add(h);
  for (const auto& [c, n] : twice.rows()) EXPECT_EQ(n, 2 * oracle[c]);
}

TEST(QvFormula, ErrorRateInvertsTheChanceOfAnErrorFreeWindow) {
  for (unsigned k : {15u, 21u, 31u, 55u})
    for (double e : {1e-2, 1e-4, 1e-6}) {
      const uint64_t total = 1000000000;
      const auto missing = static_cast<uint64_t>(std::llround(total * (1 - std::pow(1 - e, k))));
      EXPECT_NEAR(kmer_error_rate(missing, total, k) / e, 1.0, 1e-3) << k << " " << e;
      EXPECT_NEAR(phred_qv(kmer_error_rate(missing, total, k)), -10 * std::log10(e), 0.01);
    }
  EXPECT_EQ(kmer_error_rate(0, 10, 21), 0.0);
  EXPECT_TRUE(std::isinf(phred_qv(0.0)));
}

TEST(QvPage, CompletenessShortOfOneIsNotRoundedToAHundred) {
  QvResult r;
  r.k = 21;
  r.asm_kmers = 1000;
  r.solid_distinct = 1000000;
  r.solid_in_asm = 999998;
  EXPECT_NE(qv_report_html("asm", r).find("99.9998%"), std::string::npos);
  r.solid_in_asm = 1000000;
  EXPECT_NE(qv_report_html("asm", r).find("100.000%"), std::string::npos);
  r.solid_in_asm = 500000;
  EXPECT_NE(qv_report_html("asm", r).find("50.000%"), std::string::npos);
}

TEST(AwkNumber, PrintsAsAwkDoes) {
  // Values every awk prints alike (mawk and gawk part ways on integers
  // beyond the int range; see below).
  const std::vector<double> values = {0,        -0.0,    1,         100,        40.5, 58.449180806859, 1e-7,
                                      2.3818e-06, 99.97999, 1.0 / 3, 123456789, 2147483647, -2.5, 0.1 + 0.2};
  const std::string in = testing::TempDir() + "awk_number.in";
  {
    std::ofstream f(in);
    f.precision(17);
    for (double v : values) f << v << "\n";
  }
  FILE* p = popen(("awk '{ print $1 + 0 }' " + in).c_str(), "r");
  ASSERT_NE(p, nullptr);
  char line[128];
  for (double v : values) {
    ASSERT_NE(std::fgets(line, sizeof line, p), nullptr);
    std::string want(line);
    want.pop_back();
    EXPECT_EQ(awk_number(v), want) << v;
  }
  pclose(p);
  EXPECT_EQ(awk_number(INFINITY), "inf");
  EXPECT_EQ(awk_number(3e9), "3e+09");  // as mawk, Debian's awk (gawk: 3000000000); never a QV or a share
}

TEST(AssemblyName, DropsFolderAndFastaSuffixes) {
  EXPECT_EQ(assembly_name("/data/asm.fa"), "asm");
  EXPECT_EQ(assembly_name("asm.fasta.gz"), "asm");
  EXPECT_EQ(assembly_name("d/hap1.p_ctg.fa.gz"), "hap1.p_ctg");
  EXPECT_EQ(assembly_name("asm.fna"), "asm.fna");
  EXPECT_EQ(assembly_name(".fa"), ".fa");
}

class AssessAssembly : public TempDirTest {};

std::string canonical_kmer(const std::string& s) {
  std::string rc(s.rbegin(), s.rend());
  for (char& c : rc) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return std::min(s, rc);
}

// Long records cut into pieces in the second pass tally as whole ones: per
// sequence, and summed, they equal the first pass's totals, and the missing
// k-mers are those of the planted substitutions, counted by brute force.
TEST_F(AssessAssembly, PiecesOfLongRecordsTallyAsWholeRecords) {
  const unsigned k = 21;
  std::mt19937_64 rng(8);
  std::string genome(40000, 'A');
  for (char& c : genome) c = "ACGT"[rng() % 4];
  std::set<std::string> reads;
  for (size_t i = 0; i + k <= genome.size(); ++i) reads.insert(canonical_kmer(genome.substr(i, k)));
  std::string tsv;
  for (const std::string& x : reads) tsv += x + "\t7\n";
  std::string asm_seq = genome;
  for (size_t pos = 500; pos < asm_seq.size(); pos += 1777) asm_seq[pos] = asm_seq[pos] == 'A' ? 'C' : 'A';
  const std::vector<std::string> seqs = {asm_seq.substr(0, 30000), asm_seq.substr(30000)};
  std::vector<uint64_t> missing_by_brute_force;
  std::set<std::string> asm_kmers;
  for (const std::string& s : seqs) {
    uint64_t m = 0;
    for (size_t i = 0; i + k <= s.size(); ++i) {
      const std::string x = canonical_kmer(s.substr(i, k));
      m += !reads.count(x);
      asm_kmers.insert(x);
    }
    missing_by_brute_force.push_back(m);
  }
  uint64_t reads_in_asm = 0;
  for (const std::string& x : reads) reads_in_asm += asm_kmers.count(x);
  QvOptions o;
  o.read_counts = write("reads.tsv", tsv);
  o.assembly = write("asm.fa", ">long one\n" + seqs[0] + "\n>short\n" + seqs[1] + "\n");
  o.threads = 3;
  std::vector<QvResult> runs;
  for (uint64_t batch : {uint64_t{1} << 20, uint64_t{2000}}) {
    o.batch_bases = batch;
    runs.push_back(assess_assembly(o));
  }
  for (const QvResult& r : runs) {
    ASSERT_EQ(r.sequences.size(), 2u);
    EXPECT_EQ(r.sequences[0].name, "long");
    EXPECT_EQ(r.sequences[0].kmers, seqs[0].size() - k + 1);
    EXPECT_EQ(r.sequences[1].kmers, seqs[1].size() - k + 1);
    EXPECT_EQ(r.sequences[0].missing, missing_by_brute_force[0]);
    EXPECT_EQ(r.sequences[1].missing, missing_by_brute_force[1]);
    EXPECT_EQ(r.missing, missing_by_brute_force[0] + missing_by_brute_force[1]);
    EXPECT_EQ(r.solid_threshold, 0u);  // one histogram row: no valley, every read k-mer solid
    EXPECT_EQ(r.solid_distinct, reads.size());
    EXPECT_EQ(r.solid_in_asm, reads_in_asm);
  }
}

}  // namespace
}  // namespace kmerbloom
