// Tests of the writers of formats/count_writer.hpp and the histogram writer:
// a few k-mers through each, read back with the readers of count_file.hpp
// and kff.hpp, and the text bytes against strings written here.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "formats/count_file.hpp"
#include "formats/count_writer.hpp"
#include "formats/histogram_file.hpp"
#include "formats/kff.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

using Records = std::vector<std::pair<std::string, uint64_t>>;

const Records kRecords{{"AACGT", 1}, {"ACGTA", 2}, {"CCCCC", 300}, {"GATTA", 70000}, {"TTTTG", 12345678901}};

class Writers : public TempDirTest {
 protected:
  std::string write_records(const std::string& format, const std::string& name, uint64_t* capped = nullptr) const {
    const auto out = open_count_writer(format, path(name), {.k = 5, .canonical = false, .min_count = 1});
    for (const auto& [kmer, count] : kRecords) out->add(kmer, count);
    out->finish();
    if (capped) *capped = out->counts_capped();
    return path(name);
  }
  static std::string bytes(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static Records read_back(const std::string& p) {
    const auto in = open_count_file(p);
    Records r;
    KmerCount c;
    while (in->next(c)) r.emplace_back(std::string(c.kmer), c.count);
    return r;
  }
};

TEST_F(Writers, TsvIsKmerTabCount) {
  const std::string p = write_records("tsv", "k.tsv");
  EXPECT_EQ(bytes(p), "AACGT\t1\nACGTA\t2\nCCCCC\t300\nGATTA\t70000\nTTTTG\t12345678901\n");
  EXPECT_EQ(read_back(p), kRecords);
}

TEST_F(Writers, FastaIsCountLineThenKmer) {
  const std::string p = write_records("fasta", "k.fa");
  EXPECT_EQ(bytes(p), ">1\nAACGT\n>2\nACGTA\n>300\nCCCCC\n>70000\nGATTA\n>12345678901\nTTTTG\n");
  EXPECT_EQ(read_back(p), kRecords);
}

// KFF holds counts in KMC's 32 bits: 12345678901 is written as 2^32 - 1,
// and the writer says one count was capped.
TEST_F(Writers, KffReadsBackWithItsHeader) {
  uint64_t capped = 0;
  const std::string p = write_records("kff", "k.kff", &capped);
  Records held = kRecords;
  held.back().second = UINT32_MAX;
  EXPECT_EQ(read_back(p), held);
  EXPECT_EQ(capped, 1u);
  KffReader in(p);
  Records r;
  std::string_view kmer;
  uint64_t count = 0;
  while (in.next(kmer, count)) r.emplace_back(std::string(kmer), count);
  EXPECT_EQ(r, held);
  EXPECT_EQ(in.k(), 5u);
  EXPECT_FALSE(in.header().canonical);
}

// Each format writes the same bytes from packed chunks as from letters.
TEST_F(Writers, PackedChunksWriteWhatLettersWrite) {
  for (const std::string format : {"tsv", "fasta", "kff"}) {
    const std::string letters = bytes(write_records(format, "l." + format));
    std::vector<uint8_t> packed(kRecords.size() * 2, 0);  // 5-mers: 2 bytes each
    std::vector<uint32_t> counts;
    for (size_t j = 0; j < kRecords.size(); ++j) {
      for (unsigned i = 0; i < 5; ++i) {
        const unsigned bit = 2 * (4 - i);
        packed[2 * j + 1 - bit / 8] |= static_cast<uint8_t>(kBaseCode[static_cast<uint8_t>(kRecords[j].first[i])] << (bit % 8));
      }
      counts.push_back(static_cast<uint32_t>(std::min<uint64_t>(kRecords[j].second, UINT32_MAX)));
    }
    Records want = kRecords;
    want.back().second = UINT32_MAX;  // PackedKmers' counts are 32-bit
    const auto out = open_count_writer(format, path("p." + format), {.k = 5, .canonical = false, .min_count = 1});
    out->add(PackedKmers{5, packed.data(), counts.data(), 2});
    out->add(PackedKmers{5, packed.data() + 4, counts.data() + 2, kRecords.size() - 2});
    out->finish();
    EXPECT_EQ(read_back(path("p." + format)), want) << format;
    if (format != "kff") {  // the text formats byte for byte, but for the last count
      const std::string p = bytes(path("p." + format));
      EXPECT_EQ(p.substr(0, p.find("4294967295")), letters.substr(0, letters.find("12345678901"))) << format;
      // Formatted apart (as the merge's threads do), then written in order: the same bytes.
      const auto apart = open_count_writer(format, path("f." + format), {.k = 5});
      ASSERT_TRUE(apart->formats_apart());
      std::string first, rest;
      apart->format(PackedKmers{5, packed.data() + 4, counts.data() + 2, kRecords.size() - 2}, rest);
      apart->format(PackedKmers{5, packed.data(), counts.data(), 2}, first);
      apart->write_formatted(first);
      apart->write_formatted(rest);
      apart->finish();
      EXPECT_EQ(bytes(path("f." + format)), p) << format;
    } else {
      EXPECT_FALSE(out->formats_apart());
    }
  }
}

TEST_F(Writers, UnfinishedLeavesNoFile) {
  {
    const auto out = open_count_writer("tsv", path("gone.tsv"));
    out->add("ACGT", 3);
  }
  {
    HistogramWriter h(path("gone.histo"));
    h.add(1, 2);
  }
  EXPECT_FALSE(std::filesystem::exists(path("gone.tsv")));
  EXPECT_FALSE(std::filesystem::exists(path("gone.histo")));
}

TEST_F(Writers, UnknownFormatIsRefused) {
  EXPECT_THROW(open_count_writer("csv", path("x.csv")), std::invalid_argument);
}

TEST_F(Writers, HistogramIsCountSpaceFrequency) {
  write_histogram(path("dense.histo"), {0, 5, 0, 7});
  EXPECT_EQ(bytes(path("dense.histo")), "1 5\n2 0\n3 7\n");
  EXPECT_EQ(read_histogram_file(path("dense.histo")), (std::vector<uint64_t>{0, 5, 0, 7}));

  HistogramWriter h(path("rows.histo"));
  h.add(2, 9);
  h.add(40, 1);
  h.finish();
  EXPECT_EQ(bytes(path("rows.histo")), "2 9\n40 1\n");
  const HistogramFile f = read_histogram(path("rows.histo"));
  EXPECT_EQ(f.last_row, 40u);
  EXPECT_EQ(f.frequency[2], 9u);
  EXPECT_FALSE(f.dense);
}

}  // namespace
}  // namespace kmerbloom
