// Reliability tests of the library: every fuzz seed and every input the
// fuzzers ever found crashing (test/fuzz/regressions/<target>/) replayed
// through the fuzz harness in the normal build, and forged filter files that
// must be refused without a large allocation (peak resident set measured).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../fuzz/fuzz_harness.hpp"
#include "bloom/bloom_file.hpp"

namespace kmerbloom {
namespace {

namespace fs = std::filesystem;

const fs::path kFuzzDir = fs::path(KMERBLOOM_TEST_DATA).parent_path() / "fuzz";

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

using Harness = void (*)(const uint8_t*, size_t);

// Runs every file of corpus/<target> and regressions/<target> through the
// harness; a library error is expected, anything else fails the test.
void replay(const std::string& target, Harness harness) {
  size_t n = 0;
  for (const char* kind : {"corpus", "regressions"}) {
    for (const fs::path& p : files_in(kFuzzDir / kind / target)) {
      SCOPED_TRACE(p.string());
      const std::string bytes = read_file(p);
      try {
        harness(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      } catch (const std::exception& e) {
        ADD_FAILURE() << p << ": " << e.what();
      }
      ++n;
    }
  }
  EXPECT_GT(n, 0U) << "no seed or regression input found under " << kFuzzDir;
}

TEST(FuzzRegressions, SequenceReader) { replay("fuzz_reader", fuzz::reader_one); }
TEST(FuzzRegressions, FilterFileLoader) { replay("fuzz_filter_file", fuzz::filter_file_one); }

// The oracle itself must not cry wolf: every prefix of a small valid file
// (most of them malformed) passes the harness.
TEST(FuzzRegressions, HarnessAcceptsEveryPrefixOfAValidFile) {
  const std::string fq = "@r1\nACGT\n+\nIIII\n@r2\n\n+\n\n>x\n";
  for (size_t cut = 0; cut <= fq.size(); ++cut)
    EXPECT_NO_THROW(fuzz::reader_one(reinterpret_cast<const uint8_t*>(fq.data()), cut)) << cut;
}

// ------------------------------------------------------------- forged filters

uint32_t get_u32(const std::string& b, size_t off) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(b[off + i])) << (8 * i);
  return v;
}
void put_u32(std::string& b, size_t off, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) b[off + i] = static_cast<char>(v >> (8 * i));
}

class ForgedFilter : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "kmerbloom_forged_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    // A valid one-layer filter to forge from.
    ScalableBloomParams p;
    p.initial_capacity = 1000;
    ScalableBloom f(p);
    for (uint64_t i = 0; i < 500; ++i) f.insert(mix64(i));
    save_filter((dir_ / "good.kbf").string(), f, {31, true, kKmerHashName, 0, 2, ""});
    good_ = read_file(dir_ / "good.kbf");
    const uint32_t len = get_u32(good_, 12);
    header_ = nlohmann::json::parse(good_.substr(16, len));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes magic, version, `h`, then `payload` bytes (zeros, left sparse:
  // a file of a gigabyte costs no disk) and a CRC that is right if `good_crc`.
  fs::path forge(const nlohmann::json& h, uint64_t payload, bool good_crc) {
    const std::string text = h.dump();
    std::string prefix = good_.substr(0, 16) + text;
    put_u32(prefix, 12, static_cast<uint32_t>(text.size()));
    uLong crc = crc32_z(0, reinterpret_cast<const Bytef*>(prefix.data()), prefix.size());
    if (good_crc) {
      const std::vector<Bytef> zeros(1 << 20, 0);
      for (uint64_t left = payload; left > 0;) {
        const auto n = static_cast<size_t>(std::min<uint64_t>(left, zeros.size()));
        crc = crc32_z(crc, zeros.data(), n);
        left -= n;
      }
    } else {
      crc ^= 0xdeadbeef;
    }
    const fs::path p = dir_ / "forged.kbf";
    {
      std::ofstream out(p, std::ios::binary | std::ios::trunc);
      out.write(prefix.data(), static_cast<std::streamsize>(prefix.size()));
    }
    fs::resize_file(p, prefix.size() + payload);
    std::string trailer(4, '\0');
    put_u32(trailer, 0, static_cast<uint32_t>(crc));
    std::ofstream out(p, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(prefix.size() + payload));
    out.write(trailer.data(), 4);
    return p;
  }

  // Loads p, expecting a FilterFileError that contains `what`; returns the
  // growth of the peak resident set during the call, in bytes.
  uint64_t refused(const fs::path& p, const std::string& what, const LoadLimits& limits = {}) {
    const uint64_t before = peak_rss();
    const auto t0 = std::chrono::steady_clock::now();
    try {
      (void)load_filter(p.string(), limits);
      ADD_FAILURE() << p << " loaded; expected an error containing '" << what << "'";
    } catch (const FilterFileError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(p.string() + ": ", 0), 0U) << e.what();
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(secs, 30.0) << "refusing " << p << " took " << secs << " s";
    return peak_rss() - std::min(before, peak_rss());
  }

  // Peak resident set of the process (VmHWM); reset first so that each call
  // measures its own peak where the kernel allows it.
  static uint64_t peak_rss() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return static_cast<uint64_t>(ru.ru_maxrss) * 1024;
  }
  static void reset_peak_rss() {
    const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    if (::write(fd, "5", 1) != 1) {
    }
    ::close(fd);
  }

  fs::path dir_;
  std::string good_;
  nlohmann::json header_;
};

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kTerabyteBlocks = BlockedBloom::kMaxBlocks;  // 2^34 blocks = 1 TiB

// 1 TiB / 1032 = 1.07 GB of "compressed" bytes (a sparse file): passes the
// deflate ratio check, stopped by the default limit (the physical memory).
TEST_F(ForgedFilter, TerabyteZlibLayerInASparseGigabyteIsRefusedByTheLimit) {
  const uint64_t stored = kTerabyteBlocks * 64 / 1032 + 1;
  nlohmann::json h = header_;
  h["layers"][0]["blocks"] = kTerabyteBlocks;
  h["layers"][0]["encoding"] = "zlib";
  h["layers"][0]["stored_bytes"] = stored;
  reset_peak_rss();
  EXPECT_LT(refused(forge(h, stored, true), "load limit"), 64 * kMiB);
}

// A corrupted file (wrong checksum) whose header asks for a layer 1032 times
// its size: the loader finds the corruption before it allocates (and zeroes)
// the layer, which would otherwise let a 20 MB file take 20 GB.
TEST_F(ForgedFilter, CorruptFileIsRefusedBeforeTheLayerIsAllocated) {
  const uint64_t layer_bytes = 512 * kMiB;
  const uint64_t stored = layer_bytes / 1032 + 1;
  nlohmann::json h = header_;
  h["layers"][0]["blocks"] = layer_bytes / 64;
  h["layers"][0]["encoding"] = "zlib";
  h["layers"][0]["stored_bytes"] = stored;
  reset_peak_rss();
  EXPECT_LT(refused(forge(h, stored, false), "checksum mismatch"), 64 * kMiB);
}

}  // namespace
}  // namespace kmerbloom
