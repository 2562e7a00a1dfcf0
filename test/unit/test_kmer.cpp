// K-mer encoding and rolling extraction against a string oracle.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kmer/kmer.hpp"

using namespace kmerbloom;

namespace {

std::string revcomp_string(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return r;
}

// Normalises case and U, then lists the k-mers of every ACGT run.
std::vector<std::string> oracle_kmers(const std::string& seq, unsigned k, bool canonical) {
  std::vector<std::string> out;
  std::string run;
  auto flush = [&] {
    for (size_t i = 0; i + k <= run.size(); ++i) {
      std::string km = run.substr(i, k);
      if (canonical) km = std::min(km, revcomp_string(km));
      out.push_back(km);
    }
    run.clear();
  };
  for (char c : seq) {
    char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (u == 'U') u = 'T';
    if (u == 'A' || u == 'C' || u == 'G' || u == 'T') {
      run += u;
    } else {
      flush();
    }
  }
  flush();
  return out;
}

template <class W>
std::vector<std::string> extracted(const std::string& seq, unsigned k, bool canonical) {
  std::vector<std::string> out;
  for_each_kmer(seq, KmerShape<W>(k, canonical), [&](W km) { out.push_back(decode_kmer(km, k)); });
  return out;
}

std::string random_seq(std::mt19937_64& rng, size_t n, bool noisy) {
  static const char kAlphabet[] = "ACGTACGTACGTacgtNnUuRY-";
  std::string s(n, 'A');
  for (auto& c : s) c = noisy ? kAlphabet[rng() % (sizeof kAlphabet - 1)] : "ACGT"[rng() % 4];
  return s;
}

}  // namespace

TEST(Kmer, EncodeDecodeRoundTrip) {
  EXPECT_EQ(encode_kmer<uint64_t>("ACGT"), 0b00011011u);
  EXPECT_EQ(decode_kmer<uint64_t>(0b00011011u, 4), "ACGT");
  EXPECT_EQ(encode_kmer<uint64_t>("acgu"), encode_kmer<uint64_t>("ACGT"));
  EXPECT_THROW(encode_kmer<uint64_t>("ACNT"), std::invalid_argument);
  const std::string long63(63, 'T');
  EXPECT_EQ(decode_kmer(encode_kmer<u128>(long63), 63), long63);
}

// pack_kmer_to lays a k-mer down as KFF does (right-aligned, big-endian,
// 2 bits a base, checked here against a packing done letter by letter), and
// decode_packed_kmer reads it back, for every word width.
TEST(Kmer, PackedKmersRoundTripForEveryWord) {
  std::mt19937_64 rng(5);
  for (const unsigned k : {1u, 2u, 3u, 4u, 5u, 31u, 32u, 33u, 63u, 64u, 65u, 127u, 128u, 255u}) {
    dispatch_kmer_width(k, [&]<class W>() {
      const unsigned bytes = (k + 3) / 4;
      for (int rep = 0; rep < 20; ++rep) {
        std::string s(k, 'A');
        for (char& c : s) c = "ACGT"[rng() % 4];
        std::vector<uint8_t> want(bytes, 0);
        for (unsigned i = 0; i < k; ++i) {  // base i from the right end: bits 2 * (k - 1 - i)
          const unsigned bit = 2 * (k - 1 - i), code = kBaseCode[static_cast<uint8_t>(s[i])];
          want[bytes - 1 - bit / 8] |= static_cast<uint8_t>(code << (bit % 8));
        }
        std::vector<uint8_t> got(bytes, 0xff);
        pack_kmer_to(encode_kmer<W>(s), bytes, got.data());
        EXPECT_EQ(got, want) << "k = " << k << " " << s;
        std::string back(k, 'N');
        decode_packed_kmer(got.data(), k, back.data());
        EXPECT_EQ(back, s) << "k = " << k;
      }
    });
  }
}

TEST(Kmer, ReverseComplementProperties) {
  std::mt19937_64 rng(7);
  for (unsigned k : {1u, 2u, 15u, 16u, 31u}) {
    for (int i = 0; i < 200; ++i) {
      const std::string s = random_seq(rng, k, false);
      const auto x = encode_kmer<uint64_t>(s);
      EXPECT_EQ(decode_kmer(reverse_complement(x, k), k), revcomp_string(s));
      EXPECT_EQ(reverse_complement(reverse_complement(x, k), k), x);
    }
  }
  for (unsigned k : {32u, 33u, 63u}) {
    const std::string s = random_seq(rng, k, false);
    EXPECT_EQ(decode_kmer(reverse_complement(encode_kmer<u128>(s), k), k), revcomp_string(s));
  }
  for (unsigned k : {64u, 65u, 127u}) {
    const std::string s = random_seq(rng, k, false);
    EXPECT_EQ(decode_kmer(reverse_complement(encode_kmer<Words<4>>(s), k), k), revcomp_string(s)) << k;
  }
  for (unsigned k : {128u, 129u, 200u, 255u}) {
    const std::string s = random_seq(rng, k, false);
    EXPECT_EQ(decode_kmer(reverse_complement(encode_kmer<Words<8>>(s), k), k), revcomp_string(s)) << k;
  }
}

TEST(Kmer, NumericOrderIsLexicographic) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const std::string a = random_seq(rng, 21, false), b = random_seq(rng, 21, false);
    EXPECT_EQ(a < b, encode_kmer<uint64_t>(a) < encode_kmer<uint64_t>(b));
    const std::string c = random_seq(rng, 255, false), d = c.substr(0, 100) + random_seq(rng, 155, false);
    EXPECT_EQ(c < d, encode_kmer<Words<8>>(c) < encode_kmer<Words<8>>(d));
    EXPECT_EQ(c == d, encode_kmer<Words<8>>(c) == encode_kmer<Words<8>>(d));
  }
}

TEST(Kmer, RollingMatchesOracleForEveryK) {
  std::mt19937_64 rng(42);
  for (unsigned k = 1; k <= kMaxK; ++k) {
    for (bool canonical : {true, false}) {
      for (bool noisy : {false, true}) {
        const std::string seq = random_seq(rng, 300, noisy);
        const auto want = oracle_kmers(seq, k, canonical);
        // Every word type wide enough for k.
        if (k <= kMaxSmallK) {
          EXPECT_EQ(extracted<uint64_t>(seq, k, canonical), want) << "k=" << k;
        }
        if (k <= 63) {
          EXPECT_EQ(extracted<u128>(seq, k, canonical), want) << "k=" << k;
        }
        if (k <= 127) {
          EXPECT_EQ(extracted<Words<4>>(seq, k, canonical), want) << "k=" << k;
        }
        EXPECT_EQ(extracted<Words<8>>(seq, k, canonical), want) << "k=" << k;
      }
    }
  }
}

TEST(Kmer, NonBasesBreakTheWindow) {
  EXPECT_EQ(extracted<uint64_t>("ACGNACG", 3, false), (std::vector<std::string>{"ACG", "ACG"}));
  EXPECT_EQ(extracted<uint64_t>("ACNNNN", 3, false), std::vector<std::string>{});
  EXPECT_EQ(count_kmers("ACGNACGT", 3), 3u);
  EXPECT_EQ(count_non_acgt("ACGNac-u"), 2u);
}

TEST(Kmer, NonBasesAreCountedAsTheCodeTableSaysForEveryByte) {
  std::string all;
  for (unsigned c = 0; c < 256; ++c) all += static_cast<char>(c);
  uint64_t expected = 0;
  for (unsigned c = 0; c < 256; ++c) {
    const bool base = kBaseCode[c] <= 3;
    expected += !base;
    EXPECT_EQ(count_non_acgt(std::string_view(all).substr(c, 1)), base ? 0u : 1u) << "byte " << c;
  }
  EXPECT_EQ(count_non_acgt(all + all), 2 * expected);  // long enough for the vector loop
}

TEST(Kmer, DispatchPicksTheWordOnce) {
  EXPECT_EQ(dispatch_kmer_width(31, []<class W>() { return sizeof(W); }), 8u);
  EXPECT_EQ(dispatch_kmer_width(32, []<class W>() { return sizeof(W); }), 16u);
  EXPECT_EQ(dispatch_kmer_width(63, []<class W>() { return sizeof(W); }), 16u);
  EXPECT_EQ(dispatch_kmer_width(64, []<class W>() { return sizeof(W); }), 32u);
  EXPECT_EQ(dispatch_kmer_width(127, []<class W>() { return sizeof(W); }), 32u);
  EXPECT_EQ(dispatch_kmer_width(128, []<class W>() { return sizeof(W); }), 64u);
  EXPECT_EQ(dispatch_kmer_width(255, []<class W>() { return sizeof(W); }), 64u);
  EXPECT_THROW(dispatch_kmer_width(0, []<class W>() { return 0; }), std::invalid_argument);
  EXPECT_THROW(dispatch_kmer_width(256, []<class W>() { return 0; }), std::invalid_argument);
}
