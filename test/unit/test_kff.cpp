// Tests of the KFF reader and writer: the bytes the writer lays down against
// the specification, round trips for k from 1 to 255, the specification's own
// examples, files with unsorted sections merged in order, and forged or
// truncated files refused with an error naming the file and the place.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../fuzz/kff_harness.hpp"
#include "common/error.hpp"
#include "formats/kff.hpp"
#include "formats/output.hpp"
#include "strings.hpp"

namespace kmerbloom {
namespace {

namespace fs = std::filesystem;
using Records = std::vector<std::pair<std::string, uint64_t>>;

class Kff : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb-kff-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string put(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
  static std::string get(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  fs::path dir_;
};

// ---------------------------------------------------------------- oracles

// Big-endian integer of `width` bytes.
std::string be(uint64_t v, unsigned width) {
  std::string s;
  for (unsigned i = width; i-- > 0;) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

// Bases packed 2 bits each, right-aligned in whole bytes, with codes for A, C, G, T.
std::string pack(const std::string& bases, const char* codes = "\x00\x01\x02\x03") {
  const size_t bytes = (bases.size() + 3) / 4;
  std::string out(bytes, '\0');
  size_t bit = 2 * (4 * bytes - bases.size());
  for (const char c : bases) {
    const size_t code = static_cast<unsigned char>(codes[std::string("ACGT").find(c)]);
    out[bit / 8] = static_cast<char>(out[bit / 8] | code << (6 - bit % 8));
    bit += 2;
  }
  return out;
}

std::string header(uint8_t encoding = 0x1b, uint8_t unique = 1, uint8_t canonical = 1, const std::string& free = "") {
  return std::string("KFF\x01\x00", 5) + static_cast<char>(encoding) + static_cast<char>(unique) +
         static_cast<char>(canonical) + be(free.size(), 4) + free;
}

std::string vars(const std::vector<std::pair<std::string, uint64_t>>& v) {
  std::string s = "v" + be(v.size(), 8);
  for (const auto& [name, value] : v) s += name + std::string(1, '\0') + be(value, 8);
  return s;
}

// An 'r' section of one k-mer per block (max = 1).
std::string raw_section(const Records& r, unsigned data_size, const char* codes = "\x00\x01\x02\x03") {
  std::string s = "r";
  s += be(r.size(), 8);
  for (const auto& [kmer, count] : r) {
    s += pack(kmer, codes);
    s += be(count, data_size);
  }
  return s;
}

Records read_all(const std::string& p) {
  KffReader r(p);
  Records out;
  std::string_view km;
  uint64_t c;
  while (r.next(km, c)) out.emplace_back(std::string(km), c);
  return out;
}

Records read_sorted(const std::string& p, size_t buffer = 1 << 16) {
  KffSortedReader r(p, buffer);
  Records out;
  std::string_view km;
  uint64_t c;
  while (r.next(km, c)) out.emplace_back(std::string(km), c);
  return out;
}

std::string random_kmer(std::mt19937_64& rng, unsigned k) {
  std::string s(k, 'A');
  for (char& c : s) c = "ACGT"[rng() % 4];
  return s;
}

// Sorted unique k-mers with counts of every width from 1 to 4 bytes (KMC's counters).
Records random_records(unsigned k, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<std::string, uint64_t> m;
  for (size_t i = 0; i < n * 4 && m.size() < n; ++i) {
    const unsigned bytes = 1 + static_cast<unsigned>(rng() % 4);
    m[random_kmer(rng, k)] = 1 + rng() % ((uint64_t{1} << (8 * bytes)) - 1);
  }
  return {m.begin(), m.end()};
}

std::string write_kff(const std::string& p, const Records& r, KffWriterOptions o, uint64_t* capped = nullptr) {
  OutputFile out(p, false);
  KffWriter w(out, o);
  for (const auto& [kmer, count] : r) w.add(kmer, count);
  w.finish();
  out.commit();
  if (capped) *capped = w.capped();
  return p;
}

// Throws InputError whose message starts with the path and holds `words`.
void expect_error(const std::string& p, const std::string& words) {
  try {
    (void)read_all(p);
    ADD_FAILURE() << "no error, expected: " << words;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(p + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(words), std::string::npos) << msg;
  }
}

// ---------------------------------------------------------------- writer

TEST_F(Kff, WriterLaysDownTheSpecifiedBytes) {
  const Records r = {{"ACGTA", 7}, {"TTTTT", 300}};
  KffWriterOptions o{.k = 5, .canonical = false, .min_count = 2, .max_count = 1000};
  const std::string got = get(write_kff(path("a.kff"), r, o));
  // Header, then the scope and the section: counts up to 300 take 2 bytes.
  std::string want = header(0x1b, 1, 0);
  const size_t v_at = want.size();
  want += vars({{"k", 5}, {"max", 1}, {"data_size", 2}, {"ordered", 1}});
  const size_t r_at = want.size();
  // ACGTA is 00 01 10 11 00: 0x00 0x6c right-aligned in 2 bytes.
  EXPECT_EQ(pack("ACGTA"), std::string("\x00\x6c", 2));
  want += raw_section(r, 2);
  const size_t i_at = want.size(), i_end = i_at + 1 + 8 + 3 * 9 + 8;
  const std::string footer = vars({{"first_index", i_at}, {"min_count", 2}, {"max_count", 1000}, {"counter_size", 2},
                                   {"footer_size", 1 + 8 + 20 + 18 + 18 + 21 + 20}});
  want += "i" + be(3, 8) + "v" + be(v_at - i_end, 8) + "r" + be(r_at - i_end, 8) + "v" + be(0, 8) + be(0, 8);
  want += footer + "KFF";
  EXPECT_EQ(footer.size(), 1u + 8 + 20 + 18 + 18 + 21 + 20);
  EXPECT_EQ(got, want);
}

// Counts take one width in every section (kmc_tools' sorted dump reads them
// all with the first one's): that of max_count, at most 4 bytes; a count
// above 2^32 - 1 is written as 2^32 - 1 and counted as capped, never in a
// wider field that KMC's readers would misread.
TEST_F(Kff, CountsTakeOneWidthInEverySection) {
  const Records r = {{"AAAA", 1}, {"AAAC", 255}, {"AAAG", 256}, {"AAAT", 70000},
                     {"AACA", 2}, {"AACC", 9},   {"AACG", 9},   {"AACT", 10}};
  const auto scope = [](uint64_t width) { return vars({{"k", 4}, {"max", 1}, {"data_size", width}, {"ordered", 1}}); };
  std::string got = get(write_kff(path("w.kff"), r, {.k = 4, .section_kmers = 2}));
  std::string want = header();
  want += scope(4);
  for (size_t i = 0; i < r.size(); i += 2) want += raw_section({r[i], r[i + 1]}, 4);
  EXPECT_EQ(got.substr(0, want.size()), want) << "the default max_count: KMC's 32-bit counters";
  EXPECT_EQ(read_all(path("w.kff")), r);

  const Records small = {r[0], r[1], r[4], r[5]};
  got = get(write_kff(path("s.kff"), small, {.k = 4, .max_count = 255, .section_kmers = 2}));
  want = header();
  want += scope(1);
  want += raw_section({small[0], small[1]}, 1);
  want += raw_section({small[2], small[3]}, 1);
  EXPECT_EQ(got.substr(0, want.size()), want) << "max_count 255: one byte";

  const Records wide = {r[0], r[1], r[2], {"AAAT", uint64_t{1} << 40}, {"AACA", uint64_t{1} << 32}, r[5]};
  Records held = wide;
  held[3].second = held[4].second = UINT32_MAX;
  uint64_t capped = 0;
  got = get(write_kff(path("x.kff"), wide, {.k = 4, .section_kmers = 2}, &capped));
  want = header();
  want += scope(4);
  for (size_t i = 0; i < held.size(); i += 2) want += raw_section({held[i], held[i + 1]}, 4);
  EXPECT_EQ(got.substr(0, want.size()), want) << "sums above 2^32 - 1 held as 2^32 - 1 in the same 4 bytes";
  EXPECT_EQ(read_all(path("x.kff")), held);
  EXPECT_EQ(capped, 2u);
}

TEST_F(Kff, RoundTripForEveryWidthOfK) {
  for (const unsigned k : {1u, 2u, 3u, 4u, 5u, 31u, 32u, 33u, 63u, 64u, 127u, 128u, 255u}) {
    const Records r = random_records(k, 300, k);
    for (const uint64_t section : {uint64_t{1}, uint64_t{7}, uint64_t{1} << 17}) {
      const std::string p = write_kff(path("k.kff"), r, {.k = k, .section_kmers = section});
      EXPECT_SAME(read_all(p), r) << "k = " << k << ", sections of " << section;
      EXPECT_EQ(read_sorted(p), r) << "k = " << k << ", sections of " << section;
    }
  }
}

// Packs sorted records as PackedKmers hands them out (letter by letter).
std::vector<uint8_t> pack_records(const Records& r, unsigned k) {
  const unsigned bytes = (k + 3) / 4;
  std::vector<uint8_t> out(r.size() * bytes, 0);
  for (size_t j = 0; j < r.size(); ++j)
    for (unsigned i = 0; i < k; ++i) {
      const unsigned bit = 2 * (k - 1 - i);
      out[j * bytes + bytes - 1 - bit / 8] |= static_cast<uint8_t>(kBaseCode[static_cast<uint8_t>(r[j].first[i])] << (bit % 8));
    }
  return out;
}

// The same records in chunks of `chunk` k-mers through add(PackedKmers).
std::string write_kff_packed(const std::string& p, const Records& r, KffWriterOptions o, size_t chunk,
                             uint64_t largest = UINT64_MAX) {
  const std::vector<uint8_t> packed = pack_records(r, o.k);
  std::vector<uint32_t> counts;
  for (const auto& rec : r) counts.push_back(static_cast<uint32_t>(rec.second));
  OutputFile out(p, false);
  KffWriter w(out, o);
  if (largest != UINT64_MAX) w.expect_largest_count(largest);
  const size_t bytes = (o.k + 3) / 4;
  for (size_t i = 0; i < r.size(); i += chunk) {
    const size_t n = std::min(chunk, r.size() - i);
    w.add(PackedKmers{o.k, packed.data() + i * bytes, counts.data() + i, n});
  }
  w.finish();
  out.commit();
  return p;
}

// Chunks of packed k-mers lay down the bytes that the same k-mers as
// letters do, whatever the chunks' and the sections' sizes.
TEST_F(Kff, PackedChunksWriteTheSameBytesAsLetters) {
  for (const unsigned k : {1u, 3u, 4u, 5u, 21u, 31u, 32u, 33u, 127u, 255u}) {
    Records r = random_records(k, 200, k + 100);
    for (auto& rec : r) rec.second = 1 + rec.second % UINT32_MAX;  // PackedKmers' counts are 32-bit
    for (const uint64_t section : {uint64_t{1}, uint64_t{7}, uint64_t{1} << 17})
      for (const size_t chunk : {size_t{1}, size_t{5}, size_t{1000}}) {
        const std::string want = get(write_kff(path("t.kff"), r, {.k = k, .section_kmers = section}));
        EXPECT_EQ(get(write_kff_packed(path("p.kff"), r, {.k = k, .section_kmers = section}, chunk)), want)
            << "k = " << k << ", sections of " << section << ", chunks of " << chunk;
      }
  }
}

// A known largest count narrows every section's counts to its bytes (the
// footer's counter_size says so), never wider than max_count's.
TEST_F(Kff, TheLargestCountSetsTheWidth) {
  const Records r = {{"AAAA", 1}, {"AAAC", 255}, {"AAAG", 256}, {"AAAT", 300}, {"AACA", 2}};
  const auto scope = [](uint64_t width) { return vars({{"k", 4}, {"max", 1}, {"data_size", width}, {"ordered", 1}}); };
  for (const auto& [largest, width] : std::vector<std::pair<uint64_t, unsigned>>{{300, 2}, {70000, 3}, {UINT64_MAX, 4}}) {
    const std::string got = get(write_kff_packed(path("l.kff"), r, {.k = 4, .section_kmers = 2}, 3, largest));
    std::string want = header();
    want += scope(width);
    for (size_t i = 0; i < r.size(); i += 2) want += raw_section(Records(r.begin() + i, r.begin() + std::min(i + 2, r.size())), width);
    EXPECT_EQ(got.substr(0, want.size()), want) << "largest " << largest;
    EXPECT_NE(got.find(vars({{"counter_size", width}}).substr(1 + 8)), std::string::npos) << "largest " << largest;
    EXPECT_EQ(read_all(path("l.kff")), r);
  }
  // Below max_count's width only: max_count 255 keeps one byte even if told more.
  const Records small = {{"AAAA", 1}, {"AAAC", 255}};
  const std::string got = get(write_kff_packed(path("m.kff"), small, {.k = 4, .max_count = 255}, 2, 70000));
  std::string want = header();
  want += scope(1);
  EXPECT_EQ(got.substr(0, want.size()), want);
  // A count above the bound (but within 32 bits) still goes out whole: its section widens.
  const Records over = {{"AAAA", 1}, {"AAAC", 70000}};
  EXPECT_EQ(read_all(write_kff_packed(path("o.kff"), over, {.k = 4}, 2, 255)), over);
}

// In place: the same records as chunks written at their offsets, in a
// shuffled order from three threads at once, lay down the bytes that add()
// does, whatever the sections' and chunks' sizes.
TEST_F(Kff, ChunksWrittenInPlaceMakeTheSameFile) {
  for (const unsigned k : {1u, 4u, 5u, 31u, 33u, 255u}) {
    Records r = random_records(k, 200, k + 300);
    uint64_t largest = 0;
    for (auto& rec : r) largest = std::max(largest, rec.second = 1 + rec.second % UINT32_MAX);
    const std::vector<uint8_t> packed = pack_records(r, k);
    std::vector<uint32_t> counts;
    for (const auto& rec : r) counts.push_back(static_cast<uint32_t>(rec.second));
    const size_t bytes = (k + 3) / 4;
    for (const uint64_t section : {uint64_t{1}, uint64_t{7}, uint64_t{1} << 17})
      for (const size_t chunk : {size_t{1}, size_t{5}, size_t{64}, size_t{1000}}) {
        const KffWriterOptions o{.k = k, .section_kmers = section};
        const std::string want = get(write_kff_packed(path("seq.kff"), r, o, chunk, largest));
        OutputFile out(path("at.kff"), false);
        KffWriter w(out, o);
        w.expect_largest_count(largest);
        ASSERT_TRUE(w.begin_in_place(r.size()));
        std::vector<size_t> firsts;
        for (size_t i = 0; i < r.size(); i += chunk) firsts.push_back(i);
        std::shuffle(firsts.begin(), firsts.end(), std::mt19937_64(k * 1000 + chunk));
        std::vector<std::thread> threads;
        for (size_t t = 0; t < 3; ++t)
          threads.emplace_back([&, t] {
            std::string scratch;
            for (size_t j = t; j < firsts.size(); j += 3) {
              const size_t i = firsts[j], n = std::min(chunk, r.size() - i);
              w.write_at(i, PackedKmers{k, packed.data() + i * bytes, counts.data() + i, n}, scratch);
            }
          });
        for (auto& th : threads) th.join();
        w.finish();
        out.commit();
        EXPECT_EQ(get(path("at.kff")), want) << "k = " << k << ", sections of " << section << ", chunks of " << chunk;
      }
  }
}

// In place only where it can be, and checked as add() is.
TEST_F(Kff, InPlaceIsRefusedOrCheckedWhereItCannotBe) {
  const Records r = {{"ACG", 2}, {"CCA", 3}, {"GGT", 300}};
  const std::vector<uint8_t> packed = pack_records(r, 3);
  const uint32_t counts[] = {2, 3, 300};
  {
    OutputFile gz(path("x.kff.gz"));  // compressed: no offsets
    KffWriter w(gz, {.k = 3});
    EXPECT_FALSE(w.begin_in_place(3));
    w.add(PackedKmers{3, packed.data(), counts, 3});  // still written in order
  }
  OutputFile out(path("x.kff"), false);
  KffWriter w(out, {.k = 3});
  w.expect_largest_count(255);
  EXPECT_FALSE(w.begin_in_place(0));  // no k-mers: the ordinary empty file
  ASSERT_TRUE(w.begin_in_place(3));
  std::string scratch;
  EXPECT_THROW(w.write_at(2, PackedKmers{3, packed.data() + 2, counts + 2, 1}, scratch), std::invalid_argument);  // 300 > 255
  EXPECT_THROW(w.write_at(2, PackedKmers{3, packed.data() + 1, counts + 1, 2}, scratch), std::logic_error);  // past the 3
  const uint8_t swapped[] = {packed[1], packed[0]};
  EXPECT_THROW(w.write_at(0, PackedKmers{3, swapped, counts, 2}, scratch), std::invalid_argument);  // unsorted
  EXPECT_THROW(w.add(PackedKmers{3, packed.data(), counts, 1}), std::logic_error);
  EXPECT_THROW(w.add("ACG", 2), std::logic_error);
}

TEST_F(Kff, PackedChunksAreChecked) {
  const Records r = {{"ACG", 2}, {"CCA", 3}};
  const std::vector<uint8_t> packed = pack_records(r, 3);
  const uint32_t counts[] = {2, 3}, zero[] = {0};
  OutputFile out(path("bad.kff"), false);
  KffWriter w(out, {.k = 3});
  w.add(PackedKmers{3, packed.data(), counts, 1});
  EXPECT_THROW(w.add(PackedKmers{3, packed.data(), counts, 1}), std::invalid_argument);  // repeated, across chunks
  EXPECT_THROW(w.add(PackedKmers{4, packed.data() + 1, counts + 1, 1}), std::invalid_argument);  // another k
  EXPECT_THROW(w.add(PackedKmers{3, packed.data() + 1, zero, 1}), std::invalid_argument);  // count 0
  const uint8_t high[] = {0xc0};  // bits above a 3-mer's first base
  EXPECT_THROW(w.add(PackedKmers{3, high, counts, 1}), std::invalid_argument);
  EXPECT_THROW(w.expect_largest_count(10), std::logic_error);  // after the first k-mer
  w.add(PackedKmers{3, packed.data() + 1, counts + 1, 1});
  EXPECT_EQ(w.kmers(), 2u);
}

TEST_F(Kff, EmptySetIsAValidFile) {
  const std::string p = write_kff(path("e.kff"), {}, {.k = 21});
  EXPECT_TRUE(read_all(p).empty());
  EXPECT_TRUE(read_sorted(p).empty());
  EXPECT_TRUE(is_kff_file(p));
}

TEST_F(Kff, WriterRefusesUnsortedOrBadKmers) {
  OutputFile out(path("bad.kff"), false);
  KffWriter w(out, {.k = 3});
  w.add("ACG", 2);
  EXPECT_THROW(w.add("ACG", 2), std::invalid_argument);  // repeated
  EXPECT_THROW(w.add("AAA", 2), std::invalid_argument);  // before
  EXPECT_THROW(w.add("ACGT", 2), std::invalid_argument);
  EXPECT_THROW(w.add("CNA", 2), std::invalid_argument);
  EXPECT_THROW(w.add("cca", 2), std::invalid_argument);
  EXPECT_THROW(w.add("CCA", 0), std::invalid_argument);
  w.add("CCA", 1);
}

// ---------------------------------------------------------------- reader

// The raw section example of the specification: k = 10, max = 255,
// data_size = 1, encoding 0x2d (A=0, C=2, G=3, T=1).
TEST_F(Kff, ReadsTheSpecificationsRawExample) {
  const std::string seqs = "r" + be(3, 8) + "\x03" + "\x24\x09\xc5" + "\x20\x2f\x01" + "\x01" +
                           std::string("\x00\x27\x1b", 3) + "\x0c" + "\x02" + "\x24\x09\xc5" + "\x01\x2f";
  EXPECT_EQ(pack("ACTAAACTGATT", "\x00\x02\x03\x01"), "\x24\x09\xc5");
  const std::string p =
      put("spec.kff", header(0x2d, 0, 0) + vars({{"k", 10}, {"max", 255}, {"data_size", 1}}) + seqs + "KFF");
  const Records want = {{"ACTAAACTGA", 32}, {"CTAAACTGAT", 47}, {"TAAACTGATT", 1},
                        {"AAACTGATCG", 12}, {"CTAAACTGAT", 1},  {"TAAACTGATT", 47}};
  EXPECT_EQ(read_all(p), want);
  EXPECT_THROW((void)read_sorted(p), InputError);  // not in k-mer order: cannot be merged
}

// The minimizer example (m = 8, minimizer AAACTGAT), with the minimizer
// position on ceil(log2(k + max - 1)) = 9 bits, 2 bytes, as the KFF
// reference implementation sizes it.
TEST_F(Kff, ReadsMinimizerSections) {
  const char* enc = "\x00\x02\x03\x01";
  const std::string m = "m" + pack("AAACTGAT", enc) + be(3, 8) + "\x03" + be(3, 2) + pack("ACTT", enc) +
                        "\x20\x2f\x01" + "\x01" + be(0, 2) + pack("CG", enc) + "\x0c" + "\x02" + be(2, 2) +
                        pack("CTT", enc) + "\x01\x2f";
  const std::string p =
      put("m.kff", header(0x2d, 0, 0) + vars({{"k", 10}, {"m", 8}, {"max", 255}, {"data_size", 1}}) + m + "KFF");
  const Records want = {{"ACTAAACTGA", 32}, {"CTAAACTGAT", 47}, {"TAAACTGATT", 1},
                        {"AAACTGATCG", 12}, {"CTAAACTGAT", 1},  {"TAAACTGATT", 47}};
  EXPECT_EQ(read_all(p), want);
}

// Every encoding KFF allows (the 24 orders of A, C, G, T on 2 bits), not
// only KMC's: the k-mers read back as written, by both readers.
TEST_F(Kff, ReadsEveryEncoding) {
  const Records r = random_records(13, 200, 9);
  std::string codes("\x00\x01\x02\x03", 4);
  int encodings = 0;
  do {
    const auto enc = static_cast<uint8_t>(codes[0] << 6 | codes[1] << 4 | codes[2] << 2 | codes[3]);
    const std::string p = put("enc.kff", header(enc) + vars({{"k", 13}, {"max", 1}, {"data_size", 8}}) +
                                             raw_section(r, 8, codes.data()) + "KFF");
    EXPECT_SAME(read_all(p), r) << "encoding " << int{enc};
    EXPECT_SAME(read_sorted(p), r) << "encoding " << int{enc};
    ++encodings;
  } while (std::next_permutation(codes.begin(), codes.end()));
  EXPECT_EQ(encodings, 24);
}

TEST_F(Kff, NoDataMeansCountOne) {
  const std::string p = put("d0.kff", header() + vars({{"k", 3}, {"max", 1}, {"data_size", 0}}) + "r" + be(2, 8) +
                                          pack("ACG") + pack("TTT") + "KFF");
  EXPECT_EQ(read_all(p), (Records{{"ACG", 1}, {"TTT", 1}}));
}

TEST_F(Kff, SortedReaderMergesSectionsOfAPlainFile) {
  // Two ordered sections, interleaved as KMC's bins are.
  const std::string scope = vars({{"k", 3}, {"max", 1}, {"data_size", 1}, {"ordered", 1}});
  const std::string body = header() + scope + raw_section({{"AAC", 1}, {"GGG", 2}, {"TTA", 3}}, 1) +
                           raw_section({{"AAA", 4}, {"CCC", 5}, {"GGG", 6}}, 1) + "KFF";
  const std::string p = put("two.kff", body);
  const Records want = {{"AAA", 4}, {"AAC", 1}, {"CCC", 5}, {"GGG", 2}, {"GGG", 6}, {"TTA", 3}};
  EXPECT_EQ(read_sorted(p), want);
  EXPECT_EQ(read_sorted(p, 1), want);  // smallest buffers
  // The same bytes as gzip: a stream cannot be merged, the disorder is an error.
  const std::string gz = path("two.kff.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, body.data(), static_cast<unsigned>(body.size()));
  gzclose(f);
  EXPECT_EQ(read_all(gz).size(), 6u);
  EXPECT_TRUE(is_kff_file(gz));
  try {
    (void)read_sorted(gz);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("out of order (AAA after TTA)"), std::string::npos) << e.what();
  }
  // A section out of order in itself is an error on a plain file too.
  const std::string bad = put("bad.kff", header() + scope + raw_section({{"CCC", 1}, {"AAA", 2}}, 1) + "KFF");
  EXPECT_THROW((void)read_sorted(bad), InputError);
}

// What next_packed_batch gives, in letters, a batch of at most `most` at a time.
Records read_packed(const std::string& p, size_t most) {
  KffSortedReader r(p, 1 << 16);
  Records out;
  PackedBatch b;
  while (r.next_packed_batch(b, most)) {
    EXPECT_LE(b.n, most);
    std::string t(b.k, 'A');
    for (size_t i = 0; i < b.n; ++i) {
      decode_packed_kmer(reinterpret_cast<const uint8_t*>(b.kmer(i).data()), b.k, t.data());
      out.emplace_back(t, b.counts[i]);
    }
  }
  return out;
}

// Packed batches hold the sorted reader's k-mers and counts, whichever way
// the file is read: sections in order (front to back, the records' own
// bytes), interleaved (merged), another encoding or minimizer sections
// (letters packed), pad bits a writer left set, a gzip stream.
TEST_F(Kff, PackedBatchesAreTheSortedReadersKmers) {
  const Records r = random_records(29, 3000, 4);
  const std::string in_order = write_kff(path("order.kff"), r, {.k = 29, .min_count = 1, .section_kmers = 700});
  const std::string scope = vars({{"k", 3}, {"max", 1}, {"data_size", 1}});
  const std::string two = put("two.kff", header() + scope + raw_section({{"AAC", 1}, {"GGG", 2}, {"TTA", 3}}, 1) +
                                             raw_section({{"AAA", 4}, {"CCC", 5}, {"GGT", 6}}, 1) + "KFF");
  std::string padded = raw_section({{"AAC", 1}, {"CAT", 2}}, 1);
  padded[9] = static_cast<char>(padded[9] | 0xc0);  // AAC's byte, its two pad bits set
  const std::string pad = put("pad.kff", header() + scope + padded + "KFF");
  const std::string other = put("enc.kff", header(0x2d) + vars({{"k", 13}, {"max", 1}, {"data_size", 8}}) +
                                               raw_section(random_records(13, 50, 2), 8, "\x00\x02\x03\x01") + "KFF");
  const char* enc = "\x00\x02\x03\x01";
  const std::string m = put("m.kff", header(0x2d, 0, 0) + vars({{"k", 10}, {"m", 8}, {"max", 255}, {"data_size", 1}}) +
                                         "m" + pack("AAACTGAT", enc) + be(1, 8) + "\x01" + be(0, 2) + pack("CG", enc) +
                                         "\x0c" + "KFF");
  const std::string gz = path("order.kff.gz");
  {
    const std::string body = get(in_order);
    gzFile f = gzopen(gz.c_str(), "wb");
    gzwrite(f, body.data(), static_cast<unsigned>(body.size()));
    gzclose(f);
  }
  for (const std::string& p : {in_order, two, pad, other, m, gz})
    for (const size_t most : {size_t{1}, size_t{2}, size_t{1000}, size_t{1} << 15})
      EXPECT_SAME(read_packed(p, most), read_sorted(p)) << p << ", batches of " << most;
  EXPECT_EQ(read_packed(pad, 10), (Records{{"AAC", 1}, {"CAT", 2}}));
  {  // the pad bits cleared, so that bytes compare as letters and writers take them
    KffSortedReader padded_reader(pad, 1 << 16);
    PackedBatch b;
    ASSERT_TRUE(padded_reader.next_packed_batch(b, 10));
    EXPECT_EQ(std::string(b.kmer(0)), pack("AAC"));
  }
  EXPECT_EQ(read_packed(two, 10).front(), (std::pair<std::string, uint64_t>{"AAA", 4}));
  // A reader is read one way.
  KffSortedReader once(in_order, 1 << 16);
  PackedBatch b;
  ASSERT_TRUE(once.next_packed_batch(b, 10));
  std::string_view kmer;
  uint64_t count = 0;
  EXPECT_THROW(once.next(kmer, count), std::logic_error);
}

TEST_F(Kff, IsKffFileLooksAtTheContent) {
  EXPECT_FALSE(is_kff_file(put("t.tsv", "ACGT\t3\n")));
  EXPECT_FALSE(is_kff_file(put("short", "KF")));
  EXPECT_FALSE(is_kff_file("-"));
  EXPECT_THROW((void)is_kff_file(path("missing")), InputError);
}

// ---------------------------------------------------------------- forged files

TEST_F(Kff, ForgedFilesAreCleanErrors) {
  const std::string scope = vars({{"k", 3}, {"max", 1}, {"data_size", 1}});
  const std::string r = raw_section({{"ACG", 1}}, 1);
  const auto file = [&](const std::string& name, const std::string& bytes) { return put(name, bytes); };
  expect_error(file("magic", "KFG" + header().substr(3) + scope + r + "KFF"), "not a KFF file");
  expect_error(file("version", "KFF\x02" + header().substr(4) + scope + r + "KFF"), "KFF version 2.0");
  expect_error(file("enc", header(0x1a) + scope + r + "KFF"), "encoding 0x1a");
  expect_error(file("unique", header(0x1b, 2) + scope + r + "KFF"), "'unique' flag 2");
  expect_error(file("nok", header() + vars({{"max", 1}, {"data_size", 1}}) + r + "KFF"), "variable 'k' is not declared");
  expect_error(file("nomax", header() + vars({{"k", 3}, {"data_size", 1}}) + r + "KFF"), "variable 'max'");
  expect_error(file("bigk", header() + vars({{"k", 5000}, {"max", 1}, {"data_size", 1}}) + r + "KFF"), "k = 5000");
  expect_error(file("k0", header() + vars({{"k", 0}, {"max", 1}, {"data_size", 1}}) + r + "KFF"), "k = 0");
  expect_error(file("ds", header() + vars({{"k", 3}, {"max", 1}, {"data_size", 9}}) + r + "KFF"), "data_size = 9");
  expect_error(file("type", header() + scope + "x" + r + "KFF"), "unknown section type 0x78");
  expect_error(file("after", header() + scope + r + "KFF!"), "bytes after the final 'KFF' signature");
  expect_error(file("nosig", header() + scope + r), "without the final 'KFF' signature");
  expect_error(file("m>k", header() + vars({{"k", 3}, {"m", 4}, {"max", 1}, {"data_size", 1}}) + "m" + pack("ACGT") +
                               be(0, 8) + "KFF"),
               "m = 4 with k = 3");
  expect_error(file("n>max", header() + vars({{"k", 3}, {"max", 2}, {"data_size", 1}}) + "r" + be(1, 8) + "\x03" +
                                 pack("ACGTA") + "\x01\x01\x01KFF"),
               "block of 3 k-mers (1 to max = 2)");
  expect_error(file("n0", header() + vars({{"k", 3}, {"max", 2}, {"data_size", 1}}) + "r" + be(1, 8) + std::string("\x00KFF", 4)),
               "block of 0 k-mers");
  expect_error(file("mpos", header() + vars({{"k", 3}, {"m", 2}, {"max", 1}, {"data_size", 1}}) + "m" + pack("AC") +
                                be(1, 8) + "\x05" + pack("G") + "\x01KFF"),
               "minimizer at 5 in a block of 3 bases");
  expect_error(file("name", header() + "v" + be(1, 8) + std::string(300, 'k') + be(1, 8) + "KFF"),
               "variable name longer than 255 bytes");
  // An index entry that points between sections.
  const std::string body = header() + scope + r;
  const size_t end = body.size() + 1 + 8 + 9 + 8;
  expect_error(file("index", body + "i" + be(1, 8) + "r" + be(static_cast<uint64_t>(-(static_cast<int64_t>(end) - 3)), 8) +
                                 be(0, 8) + "KFF"),
               "the index points to a section 'r' at byte 3");
}

TEST_F(Kff, EveryTruncationIsAnErrorNamingTheFile) {
  const std::string whole = get(write_kff(path("w.kff"), random_records(7, 40, 9), {.k = 7, .section_kmers = 16}));
  for (size_t n = 0; n < whole.size(); ++n) {
    const std::string p = put("cut.kff", whole.substr(0, n));
    EXPECT_THROW((void)read_all(p), InputError) << n << " bytes";
    EXPECT_THROW((void)read_sorted(p), InputError) << n << " bytes";
  }
}

TEST_F(Kff, ErrorsNameThePlace) {
  const std::string scope = vars({{"k", 3}, {"max", 1}, {"data_size", 1}});
  const std::string head = header() + scope;
  const std::string p = put("p.kff", head + "r" + be(2, 8) + pack("ACG") + "\x01");
  try {
    (void)read_all(p);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string want = p + ": byte " + std::to_string(head.size() + 9 + 2) + " (section 'r' at byte " +
                             std::to_string(head.size()) + "): file ends inside a block's sequence (truncated)";
    EXPECT_EQ(e.what(), want);
  }
}

// ---------------------------------------------------------------- fuzz target

const fs::path kFuzzDir = fs::path(KMERBLOOM_TEST_DATA).parent_path() / "fuzz";

// Every seed and every saved crash input of fuzz_kff through its harness.
TEST(KffFuzz, ReplaysSeedsAndSavedInputs) {
  size_t n = 0;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path d = kFuzzDir / kind / "fuzz_kff";
    if (!fs::is_directory(d)) continue;
    for (const auto& e : fs::directory_iterator(d)) {
      std::ifstream in(e.path(), std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), {}};
      EXPECT_NO_THROW(fuzz::kff_one(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())) << e.path();
      ++n;
    }
  }
  EXPECT_GE(n, 8u) << "seeds missing under " << kFuzzDir;
}

// Every byte of the small seeds changed, and every cut: the harness's
// oracles hold (clean errors, readings that agree).
TEST(KffFuzz, SmallSeedsMutatedByteByByte) {
  for (const char* name : {"spec-raw.kff", "spec-minimizer.kff", "two-sections-indexed.kff", "kb-k31.kff", "kmc-k3.kff"}) {
    std::ifstream in(kFuzzDir / "corpus" / "fuzz_kff" / name, std::ios::binary);
    const std::string seed{std::istreambuf_iterator<char>(in), {}};
    ASSERT_FALSE(seed.empty()) << name;
    for (size_t i = 0; i < seed.size(); ++i)
      for (const int x : {0x01, 0x80, 0xff}) {
        std::string b = seed;
        b[i] = static_cast<char>(b[i] ^ x);
        EXPECT_NO_THROW(fuzz::kff_one(reinterpret_cast<const uint8_t*>(b.data()), b.size())) << name << " byte " << i;
        EXPECT_NO_THROW(fuzz::kff_one(reinterpret_cast<const uint8_t*>(b.data()), i)) << name << " cut " << i;
      }
  }
}

}  // namespace
}  // namespace kmerbloom
