// The count summary (report/count_summary.hpp): the keys of a count's
// statistics that report, MultiQC and merge-counts --stats read back. The
// table of docs/statistics.md is the keys the code writes; a count's
// statistics missing any one of them, or holding it with another type, is
// refused by every reader, naming the key; the summary survives a write and
// a read field by field.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "profile/hetmers_stats.hpp"
#include "profile/set_stats.hpp"
#include "report/count_summary.hpp"
#include "report/run_stats.hpp"
#include "report/spectrum.hpp"
#include "report/stats.hpp"

namespace kmerbloom {
namespace {

using json = nlohmann::json;

json count_stats_of_a_run(unsigned partition = 0, unsigned partitions = 1) {
  CountOptions o;
  o.k = 25;
  o.histo_max = 8;
  o.partition = partition;
  o.partitions = partitions;
  CountResult r;
  r.input = {.reads = 7, .bases = 700, .bases_skipped = 3, .kmers = 500};
  r.histogram = {0, 40, 10, 5, 0, 0, 0, 0, 0, 1};
  r.distinct = 56;
  r.singletons = 40;
  r.solid = 16;
  r.max_count = 12;
  RunInfo run;
  run.command = "count";
  return count_stats_json(run, o, r, analyze_spectrum(r.histogram, {}), {}, {});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CountSummary, TheDocumentedKeysAreTheWrittenKeys) {
  std::ifstream in(std::string(KMERBLOOM_DOCS) + "/statistics.md");
  ASSERT_TRUE(in) << "docs/statistics.md";
  std::vector<std::string> documented;
  const json written = count_stats_of_a_run();
  for (std::string line; std::getline(in, line);) {  // rows "| `KEY` | TYPE | what |"
    if (line.rfind("| `", 0) != 0) continue;
    const size_t end = line.find('`', 3);
    const std::string key = line.substr(3, end - 3);
    const std::string rest = line.substr(end + 1);
    const std::string type = rest.rfind(" | unsigned |", 0) == 0 ? "unsigned" : rest.rfind(" | boolean |", 0) == 0 ? "boolean" : "";
    if (type.empty()) continue;
    documented.push_back(key);
    ASSERT_TRUE(written.contains(key)) << key << " is documented but not written";
    EXPECT_EQ(type == "boolean", written[key].is_boolean()) << key << "'s type";
  }
  std::vector<std::string> keys(count_summary_keys().begin(), count_summary_keys().end());
  EXPECT_EQ(documented, keys) << "docs/statistics.md's table and report/count_summary.cpp's keys, in order";
}

TEST(CountSummary, WrittenAndReadFieldByField) {
  const CountSummary s{.k = 3, .canonical = false, .reads = 5, .bases = 7, .bases_skipped = 11, .kmers_total = 13,
                       .kmers_distinct = 17, .kmers_solid = 19, .kmers_singleton = 23,
                       .kmers_singleton_estimated = true, .max_count = 29};
  json j = json::object();
  put_count_summary(j, s);
  EXPECT_EQ(j.size(), count_summary_keys().size());
  const CountSummary t = get_count_summary(json::parse(j.dump()), "s.json");
  EXPECT_EQ(t.k, 3u);
  EXPECT_FALSE(t.canonical);
  EXPECT_EQ(t.reads, 5u);
  EXPECT_EQ(t.bases, 7u);
  EXPECT_EQ(t.bases_skipped, 11u);
  EXPECT_EQ(t.kmers_total, 13u);
  EXPECT_EQ(t.kmers_distinct, 17u);
  EXPECT_EQ(t.kmers_solid, 19u);
  EXPECT_EQ(t.kmers_singleton, 23u);
  EXPECT_TRUE(t.kmers_singleton_estimated);
  EXPECT_EQ(t.max_count, 29u);
  const json c = count_stats_of_a_run();
  const CountSummary u = get_count_summary(c, "c.json");
  EXPECT_EQ(u.kmers_distinct, 56u);
  EXPECT_EQ(u.kmers_total, 500u);
  EXPECT_EQ(u.bases_skipped, 3u);
}

TEST(CountSummary, AMissingOrRetypedKeyFailsLoudlyInEveryReader) {
  for (const std::string_view key : count_summary_keys()) {
    const std::string k(key);
    json missing = count_stats_of_a_run(1, 2);
    missing.erase(k);
    EXPECT_NE(error_of([&] { check_count_stats(missing, "s.json"); }).find("s.json: statistics without " + k), std::string::npos)
        << k;
    EXPECT_NE(error_of([&] { gather_count_stats({count_stats_of_a_run(0, 2), missing}, {"p0.json", "p1.json"}); })
                  .find("p1.json: statistics without " + k),
              std::string::npos)
        << k;
    json renamed = count_stats_of_a_run();
    renamed[k + "_renamed"] = renamed[k];
    renamed.erase(k);
    EXPECT_NE(error_of([&] { check_count_stats(renamed, "r.json"); }), "") << k;
    json retyped = count_stats_of_a_run();
    retyped[k] = "many";
    EXPECT_NE(error_of([&] { check_count_stats(retyped, "t.json"); }).find("t.json: " + k + " is \"many\", not"),
              std::string::npos)
        << k;
  }
  json hand_made = {{"reads", 5}};  // no tool, no command: a report of what it holds
  EXPECT_EQ(error_of([&] { check_count_stats(hand_made, "h.json"); }), "");
}

// The MultiQC rows of sets and hetmers read back their own statistics: a key
// renamed in the writer throws rather than leaving the column out.
TEST(CountSummary, TheMultiqcRowsOfSetsAndHetmersNeedTheirKeys) {
  SetOpResult sr;
  sr.k = 21;
  sr.inputs = {{"a.tsv", 10, 10}};
  sr.kmers_out = 4;
  const json sets = set_stats_json({}, {}, sr, "o.tsv", 0);
  EXPECT_EQ(set_multiqc_general_stats("s", sets)["data"]["s"]["kmers_out"], 4);
  for (const char* key : {"kmers_in", "kmers_out", "operation"}) {
    json renamed = sets;
    renamed.erase(key);
    EXPECT_THROW(set_multiqc_general_stats("s", renamed), json::out_of_range) << key;
  }
  SmudgePeak peak;
  peak.found = true;
  peak.ploidy = 2;
  const json het = hetmer_stats_json({}, {}, {}, {}, peak);
  EXPECT_EQ(hetmer_multiqc_json("s", het)["data"]["s"]["ploidy"], 2);
  for (const char* key : {"unique_pairs", "lower", "upper", "smudge_peak"}) {
    json renamed = het;
    renamed.erase(key);
    EXPECT_THROW(hetmer_multiqc_json("s", renamed), json::out_of_range) << key;
  }
}

}  // namespace
}  // namespace kmerbloom
