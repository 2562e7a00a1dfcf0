// The bin files' checksum (count/bin_file.hpp) taken in pieces, as write_bins
// feeds it a bin's fragments, equals the checksum of the whole; and a bit
// changed in any bin, or in the index, is refused naming the file and the bin.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "count/bin_file.hpp"
#include "count/bins.hpp"
#include "common/error.hpp"
#include "strings.hpp"
#include "temp_dir.hpp"

namespace kmerbloom::detail {
namespace {

TEST(BinChecksum, PiecesOfAnySizeGiveTheChecksumOfTheWhole) {
  std::mt19937_64 rng(7);
  for (uint64_t size : {0u, 1u, 7u, 8u, 9u, 63u, 64u, 1000u, 4099u}) {
    std::vector<uint8_t> data(size);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    const uint64_t whole = bin_checksum(data.data(), size);
    for (int trial = 0; trial < 50; ++trial) {
      BinChecksum c(size);
      uint64_t at = 0;
      while (at < size) {
        const uint64_t n = std::min<uint64_t>(size - at, rng() % 20);
        c.add(data.data() + at, n);
        at += n;
      }
      ASSERT_EQ(c.finish(), whole) << "size " << size << ", trial " << trial;
    }
    if (size > 0) {
      data[size / 2] ^= 1;
      EXPECT_NE(bin_checksum(data.data(), size), whole) << "one bit changed, size " << size;
    }
  }
}

class BinDamage : public TempDirTest {
 protected:
  // Flips bit 0 of the byte at `at` of the file.
  void flip(const std::string& file, uint64_t at) const {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    const char c = static_cast<char>(f.get() ^ 1);
    f.seekp(static_cast<std::streamoff>(at));
    f.put(c);
  }
};

// A bit of a base, not of a length byte: the records still add up to the
// index's k-mers, so only the bin's checksum can tell.
TEST_F(BinDamage, AChangedBaseInAnyBinIsRefusedNamingTheBin) {
  std::mt19937_64 rng(3);
  std::string fa;
  for (int i = 0; i < 300; ++i) {
    fa += ">r" + std::to_string(i) + "\n";
    for (int j = 0; j < 100; ++j) fa += "ACGT"[rng() % 4];
    fa += "\n";
  }
  BinOptions o;
  o.inputs = {write("reads.fa", fa)};
  o.output = path("reads.kbin");
  o.k = 21;
  o.bins = 8;
  write_bins(o);
  std::vector<BinIndexEntry> bins;
  {
    const BinFile f(o.output);
    for (uint32_t b = 0; b < o.bins; ++b) bins.push_back(f.bin(b));
  }
  for (uint32_t b = 0; b < o.bins; ++b) {
    ASSERT_GT(bins[b].bytes, 8u) << "bin " << b;
    const uint64_t base = bins[b].offset + 1 + (b % 3);  // the first record's bases, after its length byte
    flip(o.output, base);
    const BinFile f(o.output);
    LoadedPartition part;
    EXPECT_EQ(kbtest::error_of<InputError>([&] { f.append_bin(b, 0, part); }),
              o.output + ": bin " + std::to_string(b) + ": checksum mismatch (the file is damaged)");
    flip(o.output, base);
  }
  // The index: a bit of bin 5's checksum there.
  const uint64_t index = bins.back().offset + bins.back().bytes;
  flip(o.output, index + 5 * sizeof(BinIndexEntry) + offsetof(BinIndexEntry, checksum));
  EXPECT_EQ(kbtest::error_of<InputError>([&] { BinFile f(o.output); }),
            o.output + ": damaged: index checksum mismatch");
}

}  // namespace
}  // namespace kmerbloom::detail
