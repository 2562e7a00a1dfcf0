// The read set (seqio/pipeline.hpp) a command hands to the count it runs
// inside: build --min-count 2 and filter --drop-weak spool where --tmp-dir says.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kbf/kbf.hpp"
#include "normalize/read_filter.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

class ReadSetTest : public TempDirTest {
 protected:
  // Two copies of a few reads, so that their k-mers are solid.
  std::string reads() const {
    std::string fa;
    const char* seqs[] = {"ACGTTGCAAGGCTTACCGATGCATCGGATCCATGACGTTAGC", "TTGACCAGTGCAAGTCCGTAGGCATTACGGATCAGTCCATGA"};
    for (int copy = 0; copy < 2; ++copy)
      for (int i = 0; i < 2; ++i) fa += ">r" + std::to_string(copy * 2 + i) + "\n" + seqs[i] + "\n";
    return write("reads.fa", fa);
  }
  // The count's plan line names its temporary directory.
  bool logged_tmp_dir(const std::vector<std::string>& log, const std::string& tmp) const {
    for (const std::string& line : log)
      if (line.rfind("plan: ", 0) == 0 && line.find(tmp) != std::string::npos) return true;
    return false;
  }
};

TEST_F(ReadSetTest, BuildCountsWithItsReadSet) {
  BuildOptions o;
  o.inputs = {reads()};
  o.k = 15;
  o.min_count = 2;
  o.tmp_dir = dir_;
  std::vector<std::string> log;
  FilterHooks hooks;
  hooks.log = [&](const std::string& s) { log.push_back(s); };
  const BuildResult r = build_filter(o, hooks);
  EXPECT_EQ(r.stats.input.reads, 4u);
  EXPECT_TRUE(logged_tmp_dir(log, o.tmp_dir));
}

TEST_F(ReadSetTest, FilterFirstPassCountsWithItsReadSet) {
  ReadFilterOptions o;
  o.inputs = {reads()};
  o.k = 15;
  o.weak = WeakMode::drop;
  o.normalize = false;
  o.tmp_dir = dir_;
  std::vector<std::string> log;
  ReadFilterHooks hooks;
  hooks.log = [&](const std::string& s) { log.push_back(s); };
  filter_reads(o, [](unsigned, std::string_view) {}, hooks);
  EXPECT_TRUE(logged_tmp_dir(log, o.tmp_dir));
}

}  // namespace
}  // namespace kmerbloom
