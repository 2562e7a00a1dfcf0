// Words<N>, the wide k-mer word, against the compiler's own 128-bit integer:
// Words<2> must compute exactly what u128 computes, operator for operator,
// and hash as it does (so the tables treat both alike).
#include <gtest/gtest.h>

#include <random>

#include "kmer/hash.hpp"
#include "kmer/words.hpp"

namespace kmerbloom {
namespace {

u128 to_u128(const Words<2>& x) { return (static_cast<u128>(x.w[1]) << 64) | x.w[0]; }
Words<2> from_u128(u128 x) {
  Words<2> r;
  r.w[0] = static_cast<uint64_t>(x);
  r.w[1] = static_cast<uint64_t>(x >> 64);
  return r;
}

// Random values with runs of zero and one bits, so that carries and borrows
// cross word boundaries.
u128 random_u128(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return (static_cast<u128>(rng()) << 64) | rng();
    case 1: return static_cast<u128>(rng() % 4);
    case 2: return ~static_cast<u128>(0) - rng() % 4;
    default: return static_cast<u128>(rng()) << 64;
  }
}

TEST(Words, TwoWordsComputeAsU128) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    const u128 a = random_u128(rng), b = random_u128(rng);
    const unsigned s = static_cast<unsigned>(rng() % 128);
    const Words<2> x = from_u128(a), y = from_u128(b);
    ASSERT_EQ(to_u128(x << s), a << s) << s;
    ASSERT_EQ(to_u128(x >> s), a >> s) << s;
    ASSERT_EQ(to_u128(x | y), a | b);
    ASSERT_EQ(to_u128(x & y), a & b);
    ASSERT_EQ(to_u128(x ^ y), a ^ b);
    ASSERT_EQ(to_u128(~x), ~a);
    ASSERT_EQ(to_u128(x - y), a - b);
    ASSERT_EQ(x < y, a < b);
    ASSERT_EQ(x == y, a == b);
    ASSERT_EQ(x == x, true);
    ASSERT_EQ(static_cast<uint64_t>(x), static_cast<uint64_t>(a));
    ASSERT_EQ(word_bit_width(x), word_bit_width(a));
    ASSERT_EQ(hash_kmer(x, 5), hash_kmer(a, 5));
  }
}

TEST(Words, ShiftsAcrossEightWords) {
  std::mt19937_64 rng(4);
  for (int i = 0; i < 2000; ++i) {
    Words<8> x;
    for (auto& w : x.w) w = rng();
    const unsigned s = static_cast<unsigned>(rng() % 512);
    // Bit j of x << s is bit j - s of x; bit j of x >> s is bit j + s.
    const auto bit = [](const Words<8>& v, unsigned j) { return (v.w[j / 64] >> (j % 64)) & 1; };
    const Words<8> l = x << s, r = x >> s;
    for (unsigned j = 0; j < 512; ++j) {
      ASSERT_EQ(bit(l, j), j >= s ? bit(x, j - s) : 0) << s << " " << j;
      ASSERT_EQ(bit(r, j), j + s < 512 ? bit(x, j + s) : 0) << s << " " << j;
    }
  }
}

TEST(Words, MaskOfTwoKBitsAndOrdering) {
  for (unsigned k : {64u, 100u, 127u}) {
    const Words<4> mask = (Words<4>(1) << (2 * k)) - 1;
    EXPECT_EQ(word_bit_width(mask), 2 * k);
    EXPECT_TRUE(mask == (~Words<4>(0) >> (256 - 2 * k)));
  }
  Words<8> lo, hi;
  lo.w[0] = ~uint64_t{0};
  hi.w[7] = 1;
  EXPECT_LT(lo, hi);
  EXPECT_GT(hi, lo);
  EXPECT_EQ(word_bit_width(hi), 449u);
  EXPECT_NE(hash_kmer(lo), hash_kmer(hi));
}

}  // namespace
}  // namespace kmerbloom
