// Differential test: count_kmers against a naive counter built from strings
// and a hash map, on generated reads with N, lower case, U and short reads.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "count/counter.hpp"
#include "strings.hpp"

using namespace kmerbloom;
using kbtest::revcomp;
namespace fs = std::filesystem;

namespace {

// The oracle: upper-case, U -> T, split at anything else, count substrings.
std::map<std::string, uint64_t> naive_count(const std::vector<std::string>& reads, unsigned k, bool canonical) {
  std::unordered_map<std::string, uint64_t> h;
  for (const auto& read : reads) {
    std::string run;
    auto flush = [&] {
      for (size_t i = 0; i + k <= run.size(); ++i) {
        std::string km = run.substr(i, k);
        ++h[canonical ? std::min(km, revcomp(km)) : km];
      }
      run.clear();
    };
    for (char c : read) {
      char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (u == 'U') u = 'T';
      if (u == 'A' || u == 'C' || u == 'G' || u == 'T') run += u; else flush();
    }
    flush();
  }
  return {h.begin(), h.end()};
}

// Reads sampled from a small random genome (so k-mers repeat), with errors,
// N runs, lower case, U, and some reads shorter than k.
std::vector<std::string> make_reads(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::string genome(3000, 'A');
  for (auto& c : genome) c = "ACGT"[rng() % 4];
  std::vector<std::string> reads;
  for (size_t i = 0; i < n; ++i) {
    const size_t len = rng() % 8 == 0 ? rng() % 20 : 60 + rng() % 90;
    const size_t start = rng() % (genome.size() - len);
    std::string r = genome.substr(start, len);
    if (rng() % 2) r = revcomp(r);
    for (auto& c : r) {
      const auto x = rng() % 1000;
      if (x < 5) c = "ACGT"[rng() % 4];
      else if (x < 8) c = 'N';
      else if (x < 30) c = static_cast<char>(std::tolower(c));
      else if (x < 32 && c == 'T') c = 'U';
    }
    reads.push_back(r);
  }
  return reads;
}

fs::path write_fastq(const std::vector<std::string>& reads, const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / name;
  std::ofstream out(p);
  for (size_t i = 0; i < reads.size(); ++i)
    out << "@r" << i << "\n" << reads[i] << "\n+\n" << std::string(reads[i].size(), 'I') << "\n";
  return p;
}

struct Got {
  std::map<std::string, uint64_t> kmers;
  CountResult result;
};

Got run_count(const fs::path& input, unsigned k, bool canonical, uint32_t min_count, unsigned threads) {
  CountOptions o;
  o.inputs = {input.string()};
  o.k = k;
  o.canonical = canonical;
  o.min_count = min_count;
  o.threads = threads;
  o.histo_max = 50;
  o.batch_bases = 1000;  // many small batches, so threads interleave
  Got g;
  std::string last;
  g.result = count_kmers(o, [&](std::string_view km, uint64_t c) {
    EXPECT_LT(last, std::string(km)) << "output not sorted";
    last = km;
    g.kmers.emplace(std::string(km), c);
  });
  return g;
}

}  // namespace

class CountDiff : public ::testing::TestWithParam<unsigned> {};

TEST_P(CountDiff, MatchesNaiveCounter) {
  const unsigned k = GetParam();
  const auto reads = make_reads(1000 + k, 400);
  const auto input = write_fastq(reads, "diff_k" + std::to_string(k) + ".fq");
  for (bool canonical : {true, false}) {
    const auto truth = naive_count(reads, k, canonical);
    for (unsigned threads : {1u, 3u}) {
      for (uint32_t min_count : {1u, 2u}) {
        const Got got = run_count(input, k, canonical, min_count, threads);
        std::map<std::string, uint64_t> want;
        for (const auto& [km, c] : truth)
          if (c >= min_count) want.emplace(km, c);
        EXPECT_SAME(got.kmers, want) << "k=" << k << " canonical=" << canonical << " threads=" << threads;
        EXPECT_EQ(got.result.distinct, truth.size());
        uint64_t total = 0, singletons = 0;
        for (const auto& [km, c] : truth) {
          total += c;
          singletons += c == 1;
        }
        EXPECT_EQ(got.result.input.kmers, total);
        EXPECT_EQ(got.result.singletons, singletons);
        std::vector<uint64_t> hist(52, 0);
        for (const auto& [km, c] : truth) ++hist[std::min<uint64_t>(c, 51)];
        EXPECT_SAME(got.result.histogram, hist);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(K, CountDiff, ::testing::Values(1u, 2u, 15u, 16u, 31u, 32u, 33u, 63u));
