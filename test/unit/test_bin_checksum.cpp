// The bin files' checksum (count/bin_file.hpp) taken in pieces, as write_bins
// feeds it a bin's fragments, equals the checksum of the whole.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "count/bin_file.hpp"

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

}  // namespace
}  // namespace kmerbloom::detail
