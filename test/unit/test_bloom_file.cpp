// Tests of the filter file format: round trip, compression choice, and the
// loader's refusal of damaged or forged files (each with a clear message).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bloom/bloom_file.hpp"
#include "formats/output.hpp"
#include "kmer/hash.hpp"
#include "strings.hpp"

namespace kmerbloom {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;

// CRC-32 (IEEE, as zlib's crc32), written here as an independent oracle.
uint32_t crc32_oracle(const unsigned char* p, size_t n) {
  uint32_t c = 0xFFFFFFFFU;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int b = 0; b < 8; ++b) c = (c >> 1) ^ (0xEDB88320U & (0U - (c & 1U)));
  }
  return c ^ 0xFFFFFFFFU;
}

Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
uint32_t u32_at(const Bytes& b, size_t off) {
  return static_cast<uint32_t>(b[off]) | static_cast<uint32_t>(b[off + 1]) << 8 |
         static_cast<uint32_t>(b[off + 2]) << 16 | static_cast<uint32_t>(b[off + 3]) << 24;
}
void set_u32(Bytes& b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + static_cast<size_t>(i)] = static_cast<unsigned char>(v >> (8 * i));
}
void fix_crc(Bytes& b) { set_u32(b, b.size() - 4, crc32_oracle(b.data(), b.size() - 4)); }

nlohmann::json header_of(const Bytes& b) {
  const uint32_t len = u32_at(b, 12);
  return nlohmann::json::parse(std::string(b.begin() + 16, b.begin() + 16 + len));
}
// Replaces the JSON header and recomputes the CRC: a forged but consistent file.
Bytes with_header(const Bytes& b, const nlohmann::json& h) {
  const uint32_t old_len = u32_at(b, 12);
  const std::string text = h.dump();
  Bytes out(16 + text.size() + (b.size() - 16 - old_len));
  std::copy(b.begin(), b.begin() + 16, out.begin());
  set_u32(out, 12, static_cast<uint32_t>(text.size()));
  std::copy(text.begin(), text.end(), out.begin() + 16);
  std::copy(b.begin() + 16 + old_len, b.end(), out.begin() + 16 + static_cast<long>(text.size()));
  fix_crc(out);
  return out;
}

class BloomFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kmerbloom_test_bloom_file_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A chain of 4 layers: 3 full (about half the bits set: stored raw) and a
  // young, sparse newest one (stored compressed).
  static ScalableBloom make_chain() {
    ScalableBloomParams p;
    p.initial_capacity = 20'000;
    p.fpr = 0.01;
    ScalableBloom f(p);
    for (uint64_t i = 0; i < 141'000; ++i) f.insert(mix64(i));
    return f;
  }
  static FilterMeta make_meta() {
    return {31, true, kKmerHashName, 42, 2, R"({"tool":"test","note":"ünïcode"})"};
  }
  // Loads `bytes` written to a file and returns the error message ("" if none).
  std::string load_error(const Bytes& bytes, const LoadLimits& limits = {}) {
    const fs::path p = dir_ / "damaged.kmb";
    write_bytes(p, bytes);
    try {
      (void)load_filter(p.string(), limits);
    } catch (const FilterFileError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(p.string()), std::string::npos) << "message does not name the path: " << msg;
      return msg;
    }
    return "";
  }

  fs::path dir_;
};

void expect_same(const ScalableBloom& a, const ScalableBloom& b) {
  ASSERT_EQ(a.layers(), b.layers());
  for (size_t i = 0; i < a.layers(); ++i) {
    const auto wa = a.layer(i).words();
    const auto wb = b.layer(i).words();
    ASSERT_EQ(a.layer(i).hashes(), b.layer(i).hashes());
    ASSERT_TRUE(std::equal(wa.begin(), wa.end(), wb.begin(), wb.end())) << "layer " << i;
    const BloomLayerInfo ia = a.layer_info(i, false), ib = b.layer_info(i, false);
    EXPECT_EQ(ia.capacity, ib.capacity);
    EXPECT_EQ(ia.target_fpr, ib.target_fpr);
    EXPECT_EQ(ia.keys, ib.keys);
  }
  EXPECT_EQ(a.params().initial_capacity, b.params().initial_capacity);
  EXPECT_EQ(a.params().fpr, b.params().fpr);
  EXPECT_EQ(a.params().growth, b.params().growth);
  EXPECT_EQ(a.params().tightening, b.params().tightening);
  EXPECT_EQ(a.params().linear_growth, b.params().linear_growth);
}

TEST_F(BloomFile, RoundTripKeepsBitsAnswersAndMeta) {
  const ScalableBloom f = make_chain();
  ASSERT_EQ(f.layers(), 4U);
  const fs::path p = dir_ / "f.kmb";
  save_filter(p.string(), f, make_meta());
  LoadedFilter g = load_filter(p.string());
  EXPECT_EQ(g.meta, make_meta());
  expect_same(f, g.filter);
  for (uint64_t i = 0; i < 200'000; ++i) ASSERT_EQ(f.contains(mix64(i)), g.filter.contains(mix64(i))) << i;
  for (uint64_t i = 0; i < 141'000; ++i) ASSERT_TRUE(g.filter.contains(mix64(i)));
  // The loaded chain keeps growing like the original.
  for (uint64_t i = 141'000; i < 200'000; ++i) g.filter.insert(mix64(i));
  EXPECT_EQ(g.filter.layers(), 4U);
  // No temporary file is left next to it; a second save replaces the file.
  save_filter(p.string(), g.filter, make_meta());
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir_)) entries += e.path().filename() == "f.kmb" ? 1 : 100;
  EXPECT_EQ(entries, 1U);
  expect_same(load_filter(p.string()).filter, g.filter);
}

TEST_F(BloomFile, CompressesOnlyWhenItPays) {
  const ScalableBloom f = make_chain();
  const fs::path p = dir_ / "f.kmb";
  save_filter(p.string(), f, make_meta());
  const Bytes b = read_bytes(p);
  const nlohmann::json h = header_of(b);
  ASSERT_EQ(h.at("layers").size(), 4U);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(h["layers"][i]["encoding"], "raw") << i;  // ~45% full
  EXPECT_EQ(h["layers"][3]["encoding"], "zlib");  // 1,000 of 160,000 keys
  EXPECT_LT(h["layers"][3]["stored_bytes"].get<uint64_t>(), f.layer(3).bytes() / 5);
  EXPECT_EQ(h["k"], 31);
  EXPECT_EQ(h["hash"]["name"], kKmerHashName);
  EXPECT_EQ(h["chain"]["tightening"], 0.85);

  // A nearly full layer compresses too; a half-full one does not.
  ScalableBloomParams prm;
  std::vector<ScalableBloom::RestoredLayer> layers;
  BlockedBloom full(1000, 6), half(1000, 6);
  uint64_t x = 1;
  for (uint64_t& w : full.words()) w = ~uint64_t{0} ^ (uint64_t{1} << ((x = mix64(x)) & 63));
  for (uint64_t& w : half.words()) w = x = mix64(x);
  layers.push_back({std::move(full), 10, 0.001, 10});
  layers.push_back({std::move(half), 10, 0.001, 10});
  save_filter(p.string(), ScalableBloom::from_layers(prm, std::move(layers)), {});
  const nlohmann::json h2 = header_of(read_bytes(p));
  EXPECT_EQ(h2["layers"][0]["encoding"], "zlib");
  EXPECT_EQ(h2["layers"][1]["encoding"], "raw");
  const LoadedFilter g = load_filter(p.string());
  EXPECT_EQ(g.filter.layer(0).bits_set(), 1000U * 512 - 8000);
}

TEST_F(BloomFile, CorruptedByteIsAChecksumError) {
  const fs::path p = dir_ / "f.kmb";
  save_filter(p.string(), make_chain(), make_meta());
  const Bytes good = read_bytes(p);
  const nlohmann::json h = header_of(good);
  const size_t payload = 16 + u32_at(good, 12);
  const size_t zlib_start = good.size() - 4 - h["layers"][3]["stored_bytes"].get<size_t>();
  const std::string text(good.begin() + 16, good.begin() + static_cast<long>(payload));
  const size_t fpr_digit = 16 + text.find("\"fpr\":0.01") + 9;  // a digit of the chain's fpr
  const std::vector<size_t> offsets = {fpr_digit, payload + 5, payload + 70'000, zlib_start + 3,
                                       zlib_start + 40, good.size() - 10, good.size() - 2};
  for (size_t off : offsets) {
    Bytes bad = good;
    bad[off] ^= 0x10;
    const std::string msg = load_error(bad);
    EXPECT_NE(msg.find("checksum mismatch"), std::string::npos) << "offset " << off << ": " << msg;
  }
  EXPECT_EQ(load_error(good), "");
}

TEST_F(BloomFile, TruncatedFileIsRefused) {
  const fs::path p = dir_ / "f.kmb";
  save_filter(p.string(), make_chain(), make_meta());
  const Bytes good = read_bytes(p);
  for (size_t len : {size_t{0}, size_t{7}, size_t{8}, size_t{15}, size_t{19}, size_t{200}, good.size() / 2,
                     good.size() - 4, good.size() - 1}) {
    const std::string msg = load_error(Bytes(good.begin(), good.begin() + static_cast<long>(len)));
    const bool ok = msg.find("truncated") != std::string::npos || (len < 8 && msg.find("magic") != std::string::npos);
    EXPECT_TRUE(ok) << "length " << len << ": " << msg;
  }
}

TEST_F(BloomFile, WrongVersionAndMagicAreRefused) {
  const fs::path p = dir_ / "f.kmb";
  save_filter(p.string(), make_chain(), make_meta());
  Bytes b = read_bytes(p);
  set_u32(b, 8, kBloomFileVersion + 1);
  fix_crc(b);
  EXPECT_NE(load_error(b).find("version 2"), std::string::npos) << load_error(b);
  b = read_bytes(p);
  b[0] = 'X';
  EXPECT_NE(load_error(b).find("bad magic"), std::string::npos);
  EXPECT_NE(load_error(Bytes(100, 0)).find("bad magic"), std::string::npos);
  EXPECT_THROW((void)load_filter((dir_ / "missing.kmb").string()), FilterFileError);
  EXPECT_THROW(save_filter((dir_ / "no/such/dir/f.kmb").string(), make_chain(), {}), OutputError);
}

// Forged headers with a valid checksum: every size is refused before any
// allocation (a std::bad_alloc or a crash would fail the test).
TEST_F(BloomFile, ForgedSizesAreRefusedWithoutAllocating) {
  const fs::path p = dir_ / "f.kmb";
  save_filter(p.string(), make_chain(), make_meta());
  const Bytes good = read_bytes(p);
  const nlohmann::json h = header_of(good);
  const auto forged = [&](auto edit) {
    nlohmann::json x = h;
    edit(x);
    return load_error(with_header(good, x));
  };
  const auto has = [](const std::string& msg, const char* what) {
    return msg.find(what) != std::string::npos ? ::testing::AssertionSuccess()
                                               : ::testing::AssertionFailure() << msg;
  };
  // 2^40 blocks = 64 TiB: over the per-filter limit.
  EXPECT_TRUE(has(forged([](auto& x) { x["layers"][0]["blocks"] = uint64_t{1} << 40; }), "block count"));
  // 2^33 blocks (512 GiB) claimed by a small zlib stream: beyond deflate's ratio.
  EXPECT_TRUE(has(forged([](auto& x) { x["layers"][3]["blocks"] = uint64_t{1} << 33; }), "cannot inflate"));
  // 2^33 blocks stored raw: the file would have to hold 512 GiB.
  EXPECT_TRUE(has(forged([](auto& x) {
                    x["layers"][0]["blocks"] = uint64_t{1} << 33;
                    x["layers"][0]["stored_bytes"] = uint64_t{1} << 39;
                  }),
                  "truncated"));
  EXPECT_TRUE(has(forged([](auto& x) { x["layers"][0]["hashes"] = 1000; }), "hash count"));
  EXPECT_TRUE(has(forged([](auto& x) { x["layers"][0]["blocks"] = -5; }), "unsigned"));
  EXPECT_TRUE(has(forged([](auto& x) { x["layers"] = nlohmann::json::array(); }), "1 to 64 layers"));
  EXPECT_TRUE(has(forged([](auto& x) { x["chain"]["fpr"] = 7.0; }), "fpr"));
  EXPECT_TRUE(has(forged([](auto& x) { x.erase("k"); }), "bad header"));
  // Header length field of 4 GiB.
  Bytes b = good;
  set_u32(b, 12, 0xFFFFFFF0U);
  fix_crc(b);
  EXPECT_TRUE(has(load_error(b), "header length"));
  // A genuine file over the caller's limit.
  LoadLimits small;
  small.max_bytes = 100'000;
  EXPECT_TRUE(has(load_error(good, small), "load limit"));
}

// PATH exists and is not a regular file (a FIFO): written in place, and the
// same bytes as a regular save; loading from a FIFO works too.
TEST_F(BloomFile, WritesInPlaceToAFifo) {
  const ScalableBloom f = make_chain();
  const fs::path regular = dir_ / "f.kmb";
  const fs::path fifo = dir_ / "pipe";
  save_filter(regular.string(), f, make_meta());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Bytes got;
  std::thread reader([&] { got = read_bytes(fifo); });
  save_filter(fifo.string(), f, make_meta());
  reader.join();
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_SAME(got, read_bytes(regular));
  std::thread writer([&] { write_bytes(fifo, got); });
  const LoadedFilter g = load_filter(fifo.string());
  writer.join();
  expect_same(f, g.filter);
}

}  // namespace
}  // namespace kmerbloom
