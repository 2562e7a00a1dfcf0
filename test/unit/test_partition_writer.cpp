// The partition writer (count/scatter.hpp) with blocks so small that most
// super-k-mers meet a block boundary: every super-k-mer comes back, in input
// order, and the k-mers read back equal a naive count of the reads; in a
// tagged store, each sweep reads back exactly the records of its tags.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "count/scatter.hpp"
#include "kmer/minimizer.hpp"
#include "strings.hpp"

namespace kmerbloom::detail {
namespace {

std::vector<std::string> random_reads(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::string genome(3000, 'A');
  for (auto& c : genome) c = "ACGT"[rng() % 4];
  std::vector<std::string> reads;
  for (size_t i = 0; i < n; ++i) {
    const size_t len = 40 + rng() % 360;  // some super-k-mers reach the cap of 256 k-mers
    std::string r = genome.substr(rng() % (genome.size() - len), len);
    if (rng() % 4 == 0) r[rng() % len] = 'N';
    reads.push_back(std::move(r));
  }
  return reads;
}

std::string decode(const uint8_t* code, unsigned len) {
  std::string s(len, 'A');
  for (unsigned i = 0; i < len; ++i) s[i] = "ACGT"[code[i >> 2] >> (6 - 2 * (i & 3)) & 3];
  return s;
}

void count_kmers_of(const std::string& s, unsigned k, std::map<std::string, uint64_t>& m) {
  for (size_t i = 0; i + k <= s.size(); ++i) {
    const std::string km = s.substr(i, k);
    if (km.find('N') == std::string::npos) ++m[std::min(km, kbtest::revcomp(km))];
  }
}

class PartitionWriterTagged : public ::testing::TestWithParam<bool> {};

TEST_P(PartitionWriterTagged, SmallBlocksLoseNoSuperKmer) {
  constexpr unsigned k = 21;
  constexpr uint32_t kParts = 5, kBatches = 40;
  const bool tagged = GetParam();
  const auto reads = random_reads(5, 400);
  std::map<std::string, uint64_t> naive;
  for (const auto& r : reads) count_kmers_of(r, k, naive);
  // The largest record, 1 + 1 + (k - 1 + 256 bases) / 4 = 71 bytes, and a
  // fragment header (8) fit in 79: from there to blocks holding several.
  for (const uint32_t block : {79u, 100u, 150u, 1000u}) {
    Spool spool({::testing::TempDir(), uint64_t{1} << 30});
    PartitionStore store(kParts, spool, tagged);
    // Two writers take turns by batch, as worker threads do.
    PartitionWriter w0(store, block, k), w1(store, block, k);
    SuperKmerSplitter split(k, minimizer_length(k), true);
    std::vector<std::vector<std::string>> want(kParts);
    std::vector<std::vector<uint8_t>> tags(kParts);
    for (uint32_t b = 0; b < kBatches; ++b) {
      PartitionWriter& w = b % 2 ? w1 : w0;
      w.begin_batch(b);
      for (size_t i = b; i < reads.size(); i += kBatches) {
        const std::string& seq = reads[i];
        split.split(seq, [&](size_t begin, size_t len, uint64_t minimizer) {
          const MinimizerPlace at = minimizer_place(minimizer, kParts);
          const uint32_t p = at.partition;
          EXPECT_EQ(p, minimizer_partition(minimizer, kParts));
          w.add(p, std::string_view(seq).substr(begin, len), at.tag);
          want[p].push_back(seq.substr(begin, len));
          tags[p].push_back(at.tag);
        });
      }
      w.end_batch();
    }
    w0.finish();
    w1.finish();
    std::map<std::string, uint64_t> got_counts;
    for (uint32_t p = 0; p < kParts; ++p) {
      LoadedPartition part;
      load_partition(store, p, part);
      std::vector<std::string> got;
      for_each_record(part, k, [&](const uint8_t* code, unsigned len) { got.push_back(decode(code, len)); });
      EXPECT_SAME(got, want[p]) << "blocks of " << block << " bytes, partition " << p;
      for (const auto& s : got) count_kmers_of(s, k, got_counts);
      // Three sweeps: a tagged partition gives each the records of its
      // tags, in order; an untagged one gives every sweep all of them.
      for (uint32_t sweep = 0; sweep < 3; ++sweep) {
        std::vector<std::string> in_sweep, want_sweep;
        for_each_record(part, k, [&](const uint8_t* code, unsigned len) { in_sweep.push_back(decode(code, len)); }, 3, sweep);
        for (size_t i = 0; i < want[p].size(); ++i)
          if (!tagged || tag_sweep(tags[p][i], 3) == sweep) want_sweep.push_back(want[p][i]);
        EXPECT_SAME(in_sweep, want_sweep) << "partition " << p << ", sweep " << sweep;
        if (tagged) {
          EXPECT_LT(in_sweep.size(), want[p].size()) << "partition " << p << ", sweep " << sweep;
        }
      }
    }
    EXPECT_SAME(got_counts, naive) << "blocks of " << block << " bytes";
  }
}

INSTANTIATE_TEST_SUITE_P(PartitionWriter, PartitionWriterTagged, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Tagged" : "Untagged"; });

// Tags are uniform over 0..255 and a sweep of S takes about 1/S of them.
TEST(PartitionWriter, TagsSpreadOverTheSweeps) {
  std::vector<uint64_t> per_sweep(7, 0);
  for (uint32_t m = 0; m < 70000; ++m) ++per_sweep[tag_sweep(minimizer_place(minimizer_hash(m), 4096).tag, 7)];
  for (const uint64_t n : per_sweep) EXPECT_NEAR(static_cast<double>(n), 10000.0, 500.0);
}

}  // namespace
}  // namespace kmerbloom::detail
