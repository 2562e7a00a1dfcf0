// Count statistics as the report reads them: which JSON a report accepts,
// the genome size in the summary, one MultiQC sample name, and the gathered
// statistics of partitioned counts (with their spectrum).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/format.hpp"
#include "report/report.hpp"
#include "report/run_stats.hpp"
#include "report/spectrum.hpp"
#include "report/stats.hpp"
#include "strings.hpp"

namespace kmerbloom {
namespace {

using json = nlohmann::json;

// Errors at counts 1-4 and a genome of 10,000 k-mers at Poisson coverage 30
// (rows 1..120, the last one the overflow row).
std::vector<uint64_t> spectrum30x(double scale = 1) {
  std::vector<uint64_t> h(121, 0);
  const double err[] = {0, 20000, 2000, 200, 30};
  for (size_t c = 1; c <= 4; ++c) h[c] += static_cast<uint64_t>(err[c] * scale);
  for (size_t c = 1; c < h.size(); ++c) {
    const double pmf = std::exp(static_cast<double>(c) * std::log(30.0) - 30.0 - std::lgamma(static_cast<double>(c) + 1));
    h[c] += static_cast<uint64_t>(std::llround(10000 * scale * pmf));
  }
  return h;
}

// The statistics `count --stats` writes (count_stats_json) for a run with
// histogram h (its last row the overflow row), partition index of parts.
json count_stats(const std::vector<uint64_t>& h, unsigned index, unsigned parts) {
  CountOptions o;
  o.k = 31;
  o.histo_max = h.size() - 2;
  o.partition = index;
  o.partitions = parts;
  CountResult r;
  r.input.reads = 1000;
  for (size_t c = 1; c < h.size(); ++c) {
    r.input.kmers += c * h[c];
    r.distinct += h[c];
  }
  r.singletons = h[1];
  r.solid = r.distinct - h[1];
  r.max_count = h.size() - 1;
  r.histogram = h;
  RunInfo run;
  run.command = "count";
  return count_stats_json(run, o, r, analyze_spectrum(h, {}), {}, {});
}

std::string error_of(const json& j) {
  try {
    check_count_stats(j, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportStats, RefusesWhatIsNotCountStatistics) {
  EXPECT_NE(error_of(json::object()).find("s.json: not k-mer count statistics"), std::string::npos);
  EXPECT_NE(error_of(json::array()), "");
  EXPECT_NE(error_of({{"tool", "kmerbloom"}, {"command", "filter"}, {"reads_in", 5}}).find("statistics of filter"),
            std::string::npos);
  EXPECT_NE(error_of({{"tool", "kmerbloom"}, {"command", "query"}, {"reads", 5}}), "");
  EXPECT_NE(error_of({{"tool", "jellyfish"}, {"kmers_distinct", 5}}), "");
  EXPECT_EQ(error_of(count_stats(spectrum30x(), 0, 1)), "");
  EXPECT_EQ(error_of({{"reads", 5}}), "") << "a report shows what there is";
  json gathered_by_workflow = count_stats(spectrum30x(), 0, 1);
  gathered_by_workflow.erase("command");
  EXPECT_EQ(error_of(gathered_by_workflow), "");
}

TEST(ReportStats, SummaryTableShowsTheGenomeSize) {
  const std::vector<uint64_t> h = spectrum30x();
  const json st = count_stats(h, 0, 1);
  const SpectrumAnalysis a = analyze_stats_spectrum(st, h);
  ASSERT_TRUE(a.has_peak);
  EXPECT_NEAR(a.genome_size, 10000, 500);
  const std::string html = report_html(st, h, a);
  const size_t begin = html.find("<section id=\"summary\">");
  const size_t end = html.find("</section>", begin);
  ASSERT_NE(begin, std::string::npos);
  const std::string summary = html.substr(begin, end - begin);
  EXPECT_NE(summary.find("<th>Genome size</th><td><b>" + format_bases(a.genome_size) + "</b>"), std::string::npos)
      << summary;
  EXPECT_EQ(html, report_html(st, h)) << "the overload that analyses gives the same page";
}

// One sample, one name: the statistics file's, or the reads'; a histogram
// named ex_jf.hist (MultiQC's jellyfish module calls it ex_jf for its plot)
// does not rename the row, which the other subcommands' files of ex join.
TEST(ReportStats, OneMultiqcNameWhateverTheHistogramIsCalled) {
  EXPECT_EQ(multiqc_paths("out/ex.json").sample, "ex");
  const MultiqcPaths p = multiqc_paths("out/ex.stats.json");
  EXPECT_EQ(p.sample, "ex");
  EXPECT_EQ(multiqc_paths("out/ex.profile.json").sample, p.sample);
  // Named after the reads unless they are stdin.
  EXPECT_EQ(multiqc_paths("out/stats.json", {"/data/sampleA.fastq.gz"}).sample, "sampleA");
  EXPECT_EQ(multiqc_paths("out/stats.json", {"x_R1.fq.gz", "x_R2.fq.gz"}).sample, "x");
  EXPECT_EQ(multiqc_paths("out/stats.json", {"lane_1.fq", "lane_2.fq"}).sample, "lane");
  EXPECT_EQ(multiqc_paths("out/stats.json", {"-"}).sample, "stats");
  EXPECT_EQ(multiqc_paths("out/stats.json", {"abc.fq", "xyz.fq"}).sample, "stats");
  EXPECT_EQ(p.general_stats, "out/ex.stats_mqc.json");
}

TEST(ReportStats, GatheredPartitionsCarryTheSpectrum) {
  const std::vector<uint64_t> h0 = spectrum30x(0.4), h1 = spectrum30x(0.6);
  std::vector<uint64_t> whole(h0.size());
  for (size_t c = 0; c < whole.size(); ++c) whole[c] = h0[c] + h1[c];
  while (whole.back() == 0) whole.pop_back();  // the rows of JSON end at the last non-zero one
  const json g = gather_count_stats({count_stats(h1, 1, 2), count_stats(h0, 0, 2)}, {"p1.json", "p0.json"});
  EXPECT_EQ(g["command"], "merge-counts");
  EXPECT_EQ(g["partitions"], 2);
  EXPECT_EQ(g["kmers_distinct"].get<uint64_t>(),
            count_stats(h0, 0, 2)["kmers_distinct"].get<uint64_t>() + count_stats(h1, 1, 2)["kmers_distinct"].get<uint64_t>());
  EXPECT_SAME(histogram_from_rows(g["histogram"]["rows"]), whole);
  ASSERT_TRUE(g.contains("spectrum"));
  const SpectrumAnalysis a = analyze_stats_spectrum(g, whole);
  EXPECT_EQ(g["spectrum"], spectrum_json(a));
  EXPECT_TRUE(g["spectrum"]["genome_size"].is_number());
  EXPECT_NO_THROW(check_count_stats(g, "gathered.json"));

  EXPECT_THROW(gather_count_stats({count_stats(h0, 0, 2), count_stats(h0, 0, 2)}, {"a", "b"}), InputError);
  EXPECT_THROW(gather_count_stats({count_stats(h0, 0, 3), count_stats(h1, 1, 3)}, {"a", "b"}), InputError);
  json other_k = count_stats(h1, 1, 2);
  other_k["k"] = 21;
  EXPECT_THROW(gather_count_stats({count_stats(h0, 0, 2), other_k}, {"a", "b"}), InputError);
  EXPECT_THROW(gather_count_stats({count_stats(h0, 0, 2), json{{"tool", "kmerbloom"}, {"command", "filter"}}}, {"a", "b"}),
               InputError);
}

}  // namespace
}  // namespace kmerbloom
