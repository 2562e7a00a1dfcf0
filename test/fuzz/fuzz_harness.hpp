// Bodies of the two libFuzzer targets, header-only so that the same code runs
// under libFuzzer (clang, fuzz_*.cpp) and replays saved inputs in the normal
// test suite (g++, test/unit/test_reliability.cpp).
//
// Any input is accepted. The library may throw its documented error for bad
// data (InputError, FilterFileError) with a one-line message that starts with
// the path; anything else is a bug and escapes: another exception (an
// OracleFailure when the library contradicts itself), a crash or a sanitizer
// report.
//
// Thread safety: none; each entry point reuses static scratch files.
#pragma once

#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloom/bloom_file.hpp"
#include "seqio/reader.hpp"
#include "kmer/hash.hpp"

namespace kmerbloom::fuzz {

class OracleFailure : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] inline void oracle_fail(const std::string& what) { throw OracleFailure("oracle: " + what); }

// An in-memory file (memfd) whose content set() replaces; the library opens
// it by path (/proc/self/fd/N) as it opens any file.
class ScratchFile {
 public:
  explicit ScratchFile(const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~ScratchFile() { ::close(fd_); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  void set(std::string_view bytes) {
    if (::ftruncate(fd_, 0) != 0) throw std::runtime_error("ftruncate failed");
    for (size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      if (n <= 0 && errno != EINTR) throw std::runtime_error("pwrite to memfd failed");
      if (n > 0) done += static_cast<size_t>(n);
    }
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

// Picks variants from the input itself, so that a saved input replays exactly.
inline uint64_t input_hash(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ULL ^ data.size();
  for (const char c : data.substr(0, 64)) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return mix64(h);
}

inline void check_message(const std::string& msg, const std::string& path) {
  if (msg.rfind(path + ": ", 0) != 0 || msg.size() <= path.size() + 2 || msg.find_first_of("\r\n") != std::string::npos)
    oracle_fail("error message is not one line starting with the path: " + msg);
}

// ---------------------------------------------------------------- reader

// Every record of one complete reading (name, sequence and quality joined by
// '\n'), or the error that ended it.
struct Reading {
  std::vector<std::string> records;
  std::string error;
};

inline Reading read_all(const std::string& path, uint64_t target_bases, uint64_t max_records) {
  Reading out;
  try {
    SequenceReader reader(path);
    RecordBatch b;
    while (reader.next_batch(b, target_bases, max_records)) {
      if (b.records.empty() || b.first_record != out.records.size()) oracle_fail("batch skips or repeats records");
      uint64_t bases = 0;
      for (size_t i = 0; i < b.size(); ++i) {
        const auto& r = b.records[i];
        if (r.name_off + r.name_len > b.arena.size() || r.seq_off + r.seq_len > b.arena.size() ||
            r.qual_off + r.qual_len > b.arena.size())
          oracle_fail("record points outside the arena");
        if (b.format == SeqFormat::fastq && r.qual_len != r.seq_len) oracle_fail("quality and sequence lengths differ");
        bases += r.seq_len;
        out.records.push_back(std::string(b.name(i)) + '\n' + std::string(b.seq(i)) + '\n' + std::string(b.qual(i)));
      }
      if (bases != b.bases) oracle_fail("batch.bases is not the sum of the sequence lengths");
    }
  } catch (const InputError& e) {
    check_message(e.what(), path);
    out.error = std::string(e.what()).substr(path.size());
  }
  return out;
}

// `text` as `members` concatenated gzip members (as `cat a.gz b.gz` writes).
inline std::string gzip_members(std::string_view text, unsigned members) {
  std::string out;
  for (unsigned m = 0; m < members; ++m) {
    const size_t from = text.size() * m / members, to = text.size() * (m + 1) / members;
    uLongf len = compressBound(static_cast<uLong>(to - from)) + 32;
    std::string buf(len, '\0');
    z_stream zs{};
    if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2");
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + from));
    zs.avail_in = static_cast<uInt>(to - from);
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = static_cast<uInt>(len);
    const int rc = deflate(&zs, Z_FINISH);
    out.append(buf.data(), len - zs.avail_out);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  }
  return out;
}

// The bytes as a sequence file, in batches of a size picked from the input;
// on 1 input in 4 (not already gzip) also gzip-wrapped in 1 to 3 members and
// read in other batch sizes: both readings must give the same records, or the
// same error.
inline void reader_one(const uint8_t* bytes, size_t size) {
  static ScratchFile plain("kb-fuzz-plain"), wrapped("kb-fuzz-gz");
  const std::string_view data(reinterpret_cast<const char*>(bytes), size);
  const uint64_t h = input_hash(data);
  const auto bases = [](uint64_t x) { return x % 2 ? uint64_t{1} << 22 : 1 + x % 7; };
  const auto records = [](uint64_t x) { return x % 2 ? uint64_t{1} << 20 : 1 + x % 3; };

  plain.set(data);
  const Reading a = read_all(plain.path(), bases(h), records(h >> 4));
  if ((size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) || (h >> 28) % 4 != 0) return;
  wrapped.set(gzip_members(data, 1 + static_cast<unsigned>((h >> 16) % 3)));
  const Reading b = read_all(wrapped.path(), bases(h >> 8), records(h >> 12));
  if (a.error != b.error) oracle_fail("plain and gzip readings fail differently: '" + a.error + "' / '" + b.error + "'");
  if (a.error.empty() && a.records != b.records) oracle_fail("plain and gzip readings give different records");
}

// ---------------------------------------------------------------- filter files

inline constexpr uint64_t kFuzzLoadLimit = uint64_t{4} << 20;  // largest filter the fuzzed loader may allocate

// Loads the bytes as a filter file; one that loads must respect the limit,
// answer queries and come back identical from a save/load round trip.
inline void load_one(ScratchFile& in, const std::string& copy, std::string_view bytes) {
  in.set(bytes);
  LoadLimits limits;
  limits.max_bytes = kFuzzLoadLimit;
  try {
    const LoadedFilter f = load_filter(in.path(), limits);
    if (f.filter.layers() == 0 || f.filter.bytes() > limits.max_bytes) oracle_fail("loaded filter breaks the limit");
    for (uint64_t i = 0; i < 64; ++i) (void)f.filter.contains(mix64(i));
    (void)f.filter.estimated_fpr();
    save_filter(copy, f.filter, f.meta);
    const LoadedFilter g = load_filter(copy, limits);
    if (!(f.meta == g.meta) || f.filter.layers() != g.filter.layers()) oracle_fail("save/load round trip differs");
    for (size_t i = 0; i < f.filter.layers(); ++i) {
      const auto wa = f.filter.layer(i).words(), wb = g.filter.layer(i).words();
      if (!std::equal(wa.begin(), wa.end(), wb.begin(), wb.end())) oracle_fail("save/load round trip changes bits");
    }
  } catch (const FilterFileError& e) {
    check_message(e.what(), in.path());
  }
}

// The bytes as they are, then (if they start with the magic) with the
// trailing CRC-32 made right, so that mutations reach the code behind the
// checksum.
inline void filter_file_one(const uint8_t* bytes, size_t size) {
  static ScratchFile in("kb-fuzz-kbf");
  // save_filter() fsyncs: a copy in memory (/dev/shm) keeps that cheap.
  static const std::string copy =
      ((std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path()) /
       ("kb-fuzz-copy-" + std::to_string(::getpid()) + ".kbf")).string();
  std::string data(reinterpret_cast<const char*>(bytes), size);
  load_one(in, copy, data);
  if (size < 20 || std::memcmp(bytes, kBloomFileMagic, 8) != 0) return;
  const auto crc = static_cast<uint32_t>(crc32_z(0, bytes, size - 4));
  for (size_t i = 0; i < 4; ++i) data[size - 4 + i] = static_cast<char>(crc >> (8 * i));
  if (data != std::string_view(reinterpret_cast<const char*>(bytes), size)) load_one(in, copy, data);
  std::filesystem::remove(copy);
}

}  // namespace kmerbloom::fuzz
