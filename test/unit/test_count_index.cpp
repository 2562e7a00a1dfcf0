// The index of a sorted count file (lookup/count_index.hpp) against a map:
// random sets at k on either side of the 32-base word edges, TSV and KFF (in
// sections of a few hundred k-mers), canonical and as read. Every k-mer of the
// set is found with its count (in a canonical set from either strand), absent
// k-mers give 0, one by one and in batches (of letters, and packed for k <= 32); a stale or damaged index and files
// the index cannot take are refused with their reason.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>

#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "formats/count_writer.hpp"
#include "lookup/count_index.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

template <class T>
T get_le(const std::string& s, size_t at) {
  T v;
  std::memcpy(&v, s.data() + at, sizeof v);
  return v;
}

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return r;
}

std::string random_kmer(std::mt19937_64& rng, unsigned k) {
  std::string s(k, 'A');
  for (char& c : s) c = "ACGT"[rng() % 4];
  return s;
}

class CountIndexTest : public TempDirTest {
 protected:
  using Set = std::map<std::string, uint64_t>;
  Set random_set(std::mt19937_64& rng, unsigned k, size_t n, bool canonical) {
    Set s;
    for (size_t i = 0; i < n; ++i) {
      std::string x = random_kmer(rng, k);
      if (canonical) x = std::min(x, revcomp(x));
      s[x] = 1 + rng() % (i % 7 == 0 ? 70000 : 30);
    }
    return s;
  }
  std::string write_set(const Set& s, const std::string& name, const std::string& format, unsigned k, bool canonical) {
    const std::string p = path(name);
    auto w = open_count_writer(format, p, {.k = k, .canonical = canonical, .min_count = 1, .section_kmers = 300});
    for (const auto& [kmer, count] : s) w->add(kmer, count);
    w->finish();
    return p;
  }
  static void expect_answers(const CountIndex& idx, const Set& s, bool canonical, std::mt19937_64& rng, unsigned k,
                             const std::string& what) {
    std::vector<std::string> asked;
    std::vector<uint64_t> want;
    for (const auto& [kmer, count] : s) {
      asked.push_back(kmer);
      want.push_back(count);
      if (canonical) {
        asked.push_back(revcomp(kmer));
        want.push_back(count);
      }
    }
    for (int i = 0; i < 300; ++i) {  // random k-mers, most of them absent
      std::string x = random_kmer(rng, k);
      const std::string c = canonical ? std::min(x, revcomp(x)) : x;
      const auto it = s.find(c);
      asked.push_back(x);
      want.push_back(it == s.end() ? 0 : it->second);
    }
    for (size_t i = 0; i < asked.size(); ++i) ASSERT_EQ(idx.count(asked[i]), want[i]) << what << " " << asked[i];
    std::vector<std::string_view> views(asked.begin(), asked.end());
    EXPECT_EQ(idx.counts(views), want) << what << " in one batch";
    EXPECT_EQ(idx.counts(views, 3), want) << what << " in one batch, 3 threads";
    if (k <= 32) {  // the same k-mers packed, 2 bits a base, the first base highest
      std::vector<uint64_t> packed;
      for (const std::string& x : asked) {
        uint64_t v = 0;
        for (const char c : x) v = v << 2 | static_cast<uint64_t>(std::strchr("ACGT", c) - "ACGT");
        packed.push_back(v);
      }
      EXPECT_EQ(idx.counts_packed(packed.data(), packed.size()), want) << what << " packed";
      EXPECT_EQ(idx.counts_packed(packed.data(), packed.size(), 3), want) << what << " packed, 3 threads";
      if (k < 32) {
        const uint64_t wide = uint64_t{1} << (2 * k);
        EXPECT_THROW(idx.counts_packed(&wide, 1), std::invalid_argument) << "a word of k + 1 bases";
      }
    } else {
      EXPECT_THROW(idx.counts_packed(nullptr, 0), std::invalid_argument) << "packed k-mers are for k <= 32";
    }
    std::string lower = asked[0];
    for (char& ch : lower) ch = static_cast<char>(ch - 'A' + 'a');
    EXPECT_EQ(idx.count(lower), want[0]) << "lower case";
  }
};

TEST_F(CountIndexTest, EveryKmerAtTheWordEdgesAsTheMapSays) {
  std::mt19937_64 rng(47);
  for (const unsigned k : {1u, 2u, 15u, 31u, 32u, 33u, 63u, 64u, 65u, 127u, 128u, 255u}) {
    for (const bool canonical : {true, false}) {
      const Set s = random_set(rng, k, k < 4 ? 20 : 3000, canonical);
      for (const char* format : {"tsv", "kff"}) {
        std::string what = format;
        what.append(" k=").append(std::to_string(k)).append(canonical ? " canonical" : " as read");
        std::string name = "s";
        name.append(std::to_string(k)).append(format).append(canonical ? "c" : "r");
        const std::string p = write_set(s, name, format, k, canonical);
        CountIndexOptions o;
        if (!canonical) o.canonical = false;  // an as-read TSV may happen to hold canonical k-mers only
        const CountIndexSummary built = build_count_index(p, default_index_path(p), o);
        EXPECT_EQ(built.kmers, s.size()) << what;
        EXPECT_EQ(built.k, k) << what;
        EXPECT_EQ(built.canonical, canonical) << what;
        EXPECT_LT(double(built.index_bytes), 0.01 * double(built.file_bytes) + 200) << what << ": under 1% of the file";
        const CountIndex idx(p);
        EXPECT_EQ(idx.canonical(), canonical);
        expect_answers(idx, s, canonical, rng, k, what);
      }
    }
  }
}

TEST_F(CountIndexTest, ACanonicalTsvIsToldByItsKmers) {
  std::mt19937_64 rng(3);
  const std::string p = write_set(random_set(rng, 21, 500, true), "c.tsv", "tsv", 21, true);
  EXPECT_TRUE(build_count_index(p, p + ".kbi").canonical);
  const std::string q = write("r.tsv", "AAAAAAAAAAAAAAAAAAAAA\t3\nTTTTTTTTTTTTTTTTTTTTT\t4\n");
  EXPECT_FALSE(build_count_index(q, q + ".kbi").canonical);
  const CountIndex idx(q);
  EXPECT_EQ(idx.count("TTTTTTTTTTTTTTTTTTTTT"), 4u) << "as read: no reverse complement taken";
}

TEST_F(CountIndexTest, StaleDamagedAndUnsuitableFilesAreRefused) {
  const auto error_of = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  const std::string p = write("a.tsv", "AAC\t2\nACG\t5\nCCG\t1\n");
  build_count_index(p, p + ".kbi");
  EXPECT_EQ(CountIndex(p).count("ACG"), 5u);
  EXPECT_NE(error_of([&] { CountIndex(p).count("ACGT"); }).find("of 4 bases"), std::string::npos);
  EXPECT_NE(error_of([&] { CountIndex(p).count("ANG"); }).find("a letter other than"), std::string::npos);
  write("a.tsv", "AAC\t2\nACG\t6\nCCG\t1\n");  // same size, another count
  EXPECT_NE(error_of([&] { CountIndex idx(p); }).find("a.tsv.kbi: stale"), std::string::npos);
  write("a.tsv", "AAC\t2\nACG\t5\n");
  EXPECT_NE(error_of([&] { CountIndex idx(p); }).find("bytes then"), std::string::npos);
  build_count_index(p, p + ".kbi");
  std::string idx_bytes;
  {
    std::ifstream in(p + ".kbi", std::ios::binary);
    idx_bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  idx_bytes[60] ^= 1;
  write("a.tsv.kbi", idx_bytes);
  EXPECT_NE(error_of([&] { CountIndex idx(p); }).find("checksum mismatch"), std::string::npos);
  EXPECT_NE(error_of([&] { CountIndex idx(path("none.tsv")); }).find("cannot open"), std::string::npos);
  const std::string bad = write("bad.tsv", "ACG\t1\nAAC\t2\n");
  EXPECT_NE(error_of([&] { build_count_index(bad, bad + ".kbi"); }).find("bad.tsv: line 2: k-mers out of order"),
            std::string::npos);
  const std::string gz = write("g.tsv.gz", std::string("\x1f\x8b\x08\x00", 4));
  EXPECT_NE(error_of([&] { build_count_index(gz, gz + ".kbi"); }).find("gzip"), std::string::npos);
  const std::string empty = write("e.tsv", "");
  build_count_index(empty, empty + ".kbi");
  EXPECT_EQ(CountIndex(empty).count("ACGT"), 0u) << "an empty set holds nothing";
}

// A forged or damaged index, its CRC made right again, is refused at open;
// a k above 255 is refused when the index is made; KFF records whose pad
// bits are set (readers ignore them) are found all the same.
TEST_F(CountIndexTest, ForgedIndexesPadBitsAndLongK) {
  std::mt19937_64 rng(9);
  const Set s = random_set(rng, 31, 3000, true);
  const std::string p = write_set(s, "f.kff", "kff", 31, true);
  const CountIndexSummary built = build_count_index(p, p + ".kbi");
  const auto slurp = [](const std::string& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string good = slurp(p + ".kbi");
  const size_t entries = 56 + built.blocks * 8;  // after the header and the one-word keys
  const auto forged = [&](size_t at, uint8_t value) {
    std::string f = good;
    f[at] = static_cast<char>(value);
    const uint32_t crc = static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(f.data()), f.size() - 4));
    std::memcpy(f.data() + f.size() - 4, &crc, 4);
    write("f.kff.kbi", f);
    try {
      CountIndex idx(p);
      return std::string();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(forged(entries + 12, 1).find("records do not fit k"), std::string::npos) << "record bytes";
  EXPECT_NE(forged(entries + 14, 255).find("records do not fit k"), std::string::npos) << "count bytes";
  EXPECT_NE(forged(13, 1).find("records do not fit k"), std::string::npos) << "a KFF index called TSV";
  EXPECT_NE(forged(55, 0x20).find("does not fit its size"), std::string::npos) << "blocks, 2^61 more";
  write("f.kff.kbi", good);

  // Pad bits set in every record (k = 31: the first byte's top 2 bits).
  std::string kff = slurp(p);
  const CountIndex clean(p);
  for (size_t b = 0; b < built.blocks; ++b) {
    const uint64_t off = get_le<uint64_t>(good, entries + 16 * b), bytes = get_le<uint32_t>(good, entries + 16 * b + 8);
    const unsigned rec = get_le<uint16_t>(good, entries + 16 * b + 12);
    for (uint64_t at = off; at < off + bytes; at += rec) kff[at] = static_cast<char>(kff[at] | 0xc0);
  }
  const std::string q = write("pad.kff", kff);
  build_count_index(q, q + ".kbi");
  const CountIndex padded(q);
  for (const auto& [kmer, count] : s) ASSERT_EQ(padded.count(kmer), count) << kmer;

  const std::string longk = write("k256.tsv", std::string(256, 'A') + "\t3\n");
  try {
    build_count_index(longk, longk + ".kbi");
    ADD_FAILURE() << "k = 256 indexed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("index takes k from 1 to 255"), std::string::npos) << e.what();
  }
  const std::string none = write_set({}, "none.kff", "kff", 31, true);
  build_count_index(none, none + ".kbi");
  EXPECT_THROW(CountIndex(none).count(std::string(31, 'N')), std::invalid_argument) << "letters checked when empty";
}

}  // namespace
}  // namespace kmerbloom
