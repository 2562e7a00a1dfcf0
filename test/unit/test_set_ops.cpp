// The merge core of `kmerbloom sets` (profile/set_ops.hpp) against a naive
// model: every input read into a std::map, the operation applied k-mer by
// k-mer as its definition says. Random sets (fixed seeds) of 1 to 4 inputs,
// every operation and count mode, input and result ranges, one thread and
// several.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "profile/set_ops.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

using Set = std::map<std::string, uint64_t>;

// Small k over 4 letters, so that random sets share many k-mers.
Set random_set(std::mt19937_64& rng, unsigned k, size_t n) {
  Set s;
  for (size_t i = 0; i < n; ++i) {
    std::string kmer;
    for (unsigned j = 0; j < k; ++j) kmer += "ACGT"[rng() % 4];
    s[kmer] = 1 + rng() % (rng() % 4 == 0 ? 1000 : 9);
  }
  return s;
}

std::string tsv(const Set& s) {
  std::string t;
  for (const auto& [kmer, count] : s) t += kmer + "\t" + std::to_string(count) + "\n";
  return t;
}

// The definition, k-mer by k-mer.
Set model(std::vector<Set> in, const SetOpOptions& o) {
  for (auto& s : in) std::erase_if(s, [&](const auto& e) { return e.second < o.input_min || e.second > o.input_max; });
  std::set<std::string> all;
  for (const auto& s : in)
    for (const auto& e : s) all.insert(e.first);
  Set out;
  for (const auto& kmer : all) {
    std::vector<uint64_t> c;  // counts of the inputs holding it, in input order
    std::vector<bool> has;
    for (const auto& s : in) {
      const auto it = s.find(kmer);
      has.push_back(it != s.end());
      if (it != s.end()) c.push_back(it->second);
    }
    const bool in_all = c.size() == in.size();
    uint64_t v = 0, rest = 0;
    bool keep = false;
    switch (o.op) {
      case KmerSetOp::union_:
      case KmerSetOp::intersect:
        keep = o.op == KmerSetOp::union_ || in_all;
        switch (o.mode()) {
          case CountMode::sum: for (auto x : c) v += x; break;
          case CountMode::min: v = *std::min_element(c.begin(), c.end()); break;
          case CountMode::max: v = *std::max_element(c.begin(), c.end()); break;
          case CountMode::first: v = c.front(); break;
          case CountMode::last: v = c.back(); break;
          case CountMode::automatic: break;
        }
        break;
      case KmerSetOp::diff:
        keep = has[0] && c.size() == 1;
        v = keep ? c[0] : 0;
        break;
      case KmerSetOp::subtract:
        if (!has[0]) break;
        for (size_t i = 1; i < c.size(); ++i) rest += c[i];
        keep = c[0] > rest;
        v = keep ? c[0] - rest : 0;
        break;
    }
    if (keep && v >= o.min_count && v <= o.max_count) out[kmer] = o.presence ? 1 : v;
  }
  return out;
}

class SetOpsTest : public TempDirTest {
 protected:
  Set run(const std::vector<std::string>& paths, const SetOpOptions& o, SetOpResult* result = nullptr) {
    SetOperation op(paths, o);
    Set got;
    std::string last;
    const SetOpResult r = op.run([&](std::string_view kmer, uint64_t count) {
      EXPECT_LT(last, kmer);  // strictly increasing
      last = kmer;
      got[std::string(kmer)] = count;
    });
    if (result) *result = r;
    return got;
  }
};

TEST_F(SetOpsTest, EveryOperationAndModeMatchesTheModel) {
  std::mt19937_64 rng(20261202);
  struct Case {
    KmerSetOp op;
    CountMode mode;
  };
  const Case cases[] = {{KmerSetOp::union_, CountMode::automatic}, {KmerSetOp::union_, CountMode::min},
                        {KmerSetOp::union_, CountMode::max},       {KmerSetOp::intersect, CountMode::automatic},
                        {KmerSetOp::intersect, CountMode::max},    {KmerSetOp::intersect, CountMode::sum},
                        {KmerSetOp::intersect, CountMode::first},  {KmerSetOp::intersect, CountMode::last},
                        {KmerSetOp::diff, CountMode::automatic},   {KmerSetOp::subtract, CountMode::automatic}};
  int nonempty = 0;
  for (int round = 0; round < 12; ++round) {
    const size_t n = 1 + round % 4;
    std::vector<Set> sets;
    std::vector<std::string> paths;
    for (size_t i = 0; i < n; ++i) {
      sets.push_back(random_set(rng, 5, 150 + rng() % 300));
      paths.push_back(write("in" + std::to_string(round) + "_" + std::to_string(i) + ".tsv", tsv(sets.back())));
    }
    for (const Case& c : cases) {
      if (n < 2 && (c.op == KmerSetOp::diff || c.op == KmerSetOp::subtract)) continue;
      for (int filtered = 0; filtered < 2; ++filtered) {
        SetOpOptions o;
        o.op = c.op;
        o.counts = c.mode;
        o.threads = 1 + round % 3;
        o.presence = round % 5 == 4;
        if (filtered) {
          o.input_min = 2;
          o.input_max = 8;
          o.min_count = 3;
          o.max_count = 20;
        }
        SCOPED_TRACE(std::string(set_op_name(c.op)) + " " + count_mode_name(c.mode) + " n=" + std::to_string(n) +
                     " filtered=" + std::to_string(filtered) + " threads=" + std::to_string(o.threads));
        SetOpResult r;
        const Set got = run(paths, o, &r);
        const Set want = model(sets, o);
        EXPECT_EQ(got, want);
        EXPECT_EQ(r.kmers_out, want.size());
        ASSERT_EQ(r.inputs.size(), n);
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(r.inputs[i].kmers, sets[i].size());
        nonempty += !want.empty();
      }
    }
  }
  EXPECT_GT(nonempty, 100);  // the model's results are not trivially empty
}

TEST_F(SetOpsTest, InputsOfDifferentKNameBothFiles) {
  const std::string a = write("a.tsv", "ACGTA\t2\n"), b = write("b.tsv", "ACGT\t2\n");
  for (unsigned t : {1u, 2u, 3u}) {
    SetOpOptions o;
    o.threads = t;
    o.input_min = t == 3 ? 5 : 1;  // b's k-mer is left out by the range: its k still counts
    try {
      SetOperation op({a, b}, o);
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("b.tsv: k-mers of 4 bases, but "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("a.tsv holds 5-mers"), std::string::npos) << e.what();
    }
  }
}

TEST_F(SetOpsTest, AnErrorLateInAThreadedInputReachesTheCaller) {
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    std::string kmer;
    for (int j = 9; j >= 0; --j) kmer += "ACGT"[(i >> (2 * j)) & 3];
    text += kmer + "\t1\n";
  }
  text += "AAAAAAAAAA\t1\n";  // out of order, on line 200001
  const std::string a = write("a.tsv", text);
  SetOpOptions o;
  o.threads = 2;
  SetOperation op({a, a}, o);
  try {
    op.run([](std::string_view, uint64_t) {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 200001: k-mers out of order"), std::string::npos) << e.what();
  }
}

TEST_F(SetOpsTest, ModesAnOperationDoesNotTakeAreRefused) {
  SetOpOptions o;
  o.op = KmerSetOp::union_;
  o.counts = CountMode::first;
  EXPECT_THROW(o.validate(2), std::invalid_argument);
  o.op = KmerSetOp::diff;
  o.counts = CountMode::min;
  EXPECT_THROW(o.validate(2), std::invalid_argument);
  o.counts = CountMode::automatic;
  EXPECT_THROW(o.validate(1), std::invalid_argument);
  EXPECT_NO_THROW(o.validate(2));
  EXPECT_THROW(parse_set_op("xor"), std::invalid_argument);
  EXPECT_EQ(parse_count_mode("last"), CountMode::last);
}

}  // namespace
}  // namespace kmerbloom
