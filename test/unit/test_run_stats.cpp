// The statistics JSON of every subcommand, built from typed results
// (report/run_stats.hpp): every field comes from its result, the run's costs
// close each file, and a report takes count's statistics and no other's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/machine.hpp"
#include "report/run_stats.hpp"
#include "report/stats.hpp"

namespace kmerbloom {
namespace {

using json = nlohmann::json;

RunInfo run_of(const char* command) {
  return {.command = command, .command_line = std::string("kmerbloom ") + command + " in.fq",
          .inputs = {"in.fq"}, .wall_seconds = 1.5, .cpu_seconds = 2.5, .peak_memory_bytes = 12345};
}

void expect_header_and_costs(const json& j, const char* command) {
  EXPECT_EQ(j["tool"], "kmerbloom");
  EXPECT_EQ(j["version"], KMERBLOOM_VERSION);
  EXPECT_EQ(j["command"], command);
  EXPECT_EQ(j["command_line"], std::string("kmerbloom ") + command + " in.fq");
  EXPECT_EQ(j["wall_seconds"], 1.5);
  EXPECT_EQ(j["cpu_seconds"], 2.5);
  EXPECT_EQ(j["peak_memory_bytes"], 12345);
  EXPECT_EQ(j["cpu"]["features"], cpu_features().names());  // the extensions the hot loops ran on
  EXPECT_EQ(j["cpu"]["source"], cpu_features().source);
}

bool accepted_by_report(const json& j) {
  try {
    check_count_stats(j, "s.json");
    return true;
  } catch (const InputError&) {
    return false;
  }
}

TEST(RunStats, CountFieldsComeFromTheResult) {
  CountOptions o;
  o.k = 25;
  o.histo_max = 4;
  o.min_count = 2;
  CountResult r;
  r.input.reads = 7;
  r.input.bases = 700;
  r.input.bases_skipped = 3;
  r.input.kmers = 500;
  r.histogram = {0, 40, 0, 9, 2, 5};  // rows 1..4 and the overflow row
  r.distinct = 56;
  r.solid = 16;
  r.singletons = 40;
  r.max_count = 31;
  r.pass_seconds = {0.5, 0.25};
  const json j = count_stats_json(run_of("count"), o, r, analyze_spectrum(r.histogram, {}), {"read", "count"},
                                  {"a warning"});
  expect_header_and_costs(j, "count");
  EXPECT_EQ(j["inputs"], json::array({"in.fq"}));
  EXPECT_EQ(j["k"], 25);
  EXPECT_EQ(j["reads"], 7);
  EXPECT_EQ(j["bases_skipped"], 3);
  EXPECT_EQ(j["kmers_total"], 500);
  EXPECT_EQ(j["kmers_solid"], 16);
  EXPECT_EQ(j["options"]["min_count"], 2);
  EXPECT_EQ(j["histogram"]["kmers_above_max_row"], 5);
  EXPECT_EQ(j["histogram"]["overflow_row"], 5);
  EXPECT_EQ(histogram_from_rows(j["histogram"]["rows"]), r.histogram);
  EXPECT_EQ(j["histogram"]["rows"].size(), 4u) << "rows with no k-mers are left out";
  EXPECT_EQ(j["pass_names"], json::array({"read", "count"}));
  EXPECT_EQ(j["warnings"], json::array({"a warning"}));
  EXPECT_FALSE(j.contains("bloom")) << "no gate ran";
  EXPECT_TRUE(accepted_by_report(j));

  r.bloom.used = true;
  BloomReport::Layer layer{};
  layer.capacity = 100;
  layer.bits = 1000;
  layer.bits_set = 250;
  r.bloom.layers.push_back(layer);
  const json g = count_stats_json(run_of("count"), o, r, analyze_spectrum(r.histogram, {}), {"only one name"}, {});
  ASSERT_TRUE(g.contains("bloom"));
  EXPECT_EQ(g["bloom"]["layers"][0]["fill"], 0.25);
  EXPECT_FALSE(g.contains("pass_names")) << "names that do not match the passes are left out";
}

TEST(RunStats, FilterEstimateAndQueryAreNotCountStatistics) {
  ReadFilterOptions fo;
  ReadFilterResult fr;
  fr.in.reads = 10;
  fr.in.bases = 1000;
  fr.out.reads = 4;
  fr.out.bases = 380;
  fr.kept = fr.out;
  const json f = filter_stats_json(run_of("filter"), fo, fr, {"out.fq"});
  expect_header_and_costs(f, "filter");
  EXPECT_EQ(f["share_of_reads_kept"], 0.4);
  EXPECT_EQ(f["outputs"], json::array({"out.fq"}));
  EXPECT_FALSE(f.contains("sketch"));
  EXPECT_FALSE(accepted_by_report(f));

  EstimateOptions eo;
  EstimateResult er;
  er.spectrum.kmers_total = 90;
  er.spectrum.distinct = 30.4;
  er.spectrum.f = {0, 20.6, 9.8};
  er.spectrum.sampled_f = {0, 5, 0};
  er.spectrum.exact = false;
  er.spectrum.sampling_rate = 0.5;
  const json e = estimate_stats_json(run_of("estimate"), eo, er);
  expect_header_and_costs(e, "estimate");
  EXPECT_EQ(e["kmers_distinct"], 30);
  EXPECT_EQ(e["kmers_singleton"], 21);
  EXPECT_EQ(e["kmers_repeated"], 10);
  ASSERT_EQ(e["histogram"].size(), 2u);
  EXPECT_TRUE(e["histogram"][0]["relative_std_error"].is_number());
  EXPECT_TRUE(e["histogram"][1]["relative_std_error"].is_null()) << "no sampled key in row 2: no error bar";
  EXPECT_FALSE(accepted_by_report(e));

  FilterMeta meta;
  meta.k = 21;
  QuerySummary qs;
  qs.reads = 8;
  qs.reads_with_kmers = 4;
  qs.reads_hit = 1;
  const json q = query_summary_json(run_of("query"), "x.kbf", meta, qs, "");
  expect_header_and_costs(q, "query");
  EXPECT_EQ(q["fraction_hit"], 0.25);
  EXPECT_EQ(q["inputs"], json::array({"in.fq"}));
  EXPECT_FALSE(q.contains("kmer_list"));
  RunInfo list_run = run_of("query");
  list_run.inputs.clear();
  const json ql = query_summary_json(list_run, "x.kbf", meta, qs, "kmers.txt");
  EXPECT_EQ(ql["kmer_list"], "kmers.txt");
  EXPECT_FALSE(ql.contains("inputs")) << "a k-mer list is not reads";
  EXPECT_FALSE(accepted_by_report(q));
}

}  // namespace
}  // namespace kmerbloom
