// Reading bin files (the format is in src/count/bins.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "count/scatter.hpp"

namespace kmerbloom::detail {

struct BinHeader {
  char magic[8];
  uint32_t version;
  uint32_t k;
  uint32_t canonical;
  uint32_t minimizer;
  uint32_t bins;
  uint32_t reserved;
  uint64_t reads;
  uint64_t bases;
  uint64_t bases_skipped;
  uint64_t reserved2;
};
static_assert(sizeof(BinHeader) == 64);

struct BinIndexEntry {
  uint64_t offset;
  uint64_t bytes;
  uint64_t kmers;
  uint64_t checksum;
};
static_assert(sizeof(BinIndexEntry) == 32);

struct BinTrailer {
  uint64_t index_offset;
  uint64_t index_checksum;
  char magic[8];
};
static_assert(sizeof(BinTrailer) == 24);

inline constexpr char kBinMagic[8] = {'K', 'M', 'E', 'R', 'B', 'I', 'N', 'S'};
inline constexpr uint32_t kBinVersion = 3;  // 2: minimizers ordered by one multiply; 3: of 32 bits (kmer/minimizer.hpp)

// Checksum of a bin's bytes (and of the index): 64-bit words through mix64,
// seeded with the size. BinChecksum takes the bytes in pieces (a bin's
// fragments as they are written); bin_checksum in one.
class BinChecksum {
 public:
  explicit BinChecksum(uint64_t size);
  void add(const uint8_t* data, uint64_t size);
  uint64_t finish() const;

 private:
  uint64_t h_, at_ = 0;  // at_: bytes taken so far
  uint8_t word_[8] = {};
  unsigned held_ = 0;    // bytes of word_ taken
};
uint64_t bin_checksum(const uint8_t* data, uint64_t size);

// One bin file, open for reading. Its header and index are checked on opening.
class BinFile {
 public:
  // Throws InputError naming the path and what is wrong.
  explicit BinFile(std::string path);
  ~BinFile();
  BinFile(BinFile&& o) noexcept;
  BinFile(const BinFile&) = delete;
  BinFile& operator=(const BinFile&) = delete;
  BinFile& operator=(BinFile&&) = delete;

  const std::string& path() const { return path_; }
  const BinHeader& header() const { return header_; }
  const BinIndexEntry& bin(uint32_t b) const { return index_[b]; }

  // Appends bin b's records to `out` as one fragment numbered `serial`,
  // after checking its checksum and that its records hold index k-mers.
  // Thread-safe (positioned reads).
  void append_bin(uint32_t b, uint64_t serial, LoadedPartition& out) const;

 private:
  [[noreturn]] void fail(const std::string& what) const;
  void read_at(void* out, uint64_t size, uint64_t offset) const;

  std::string path_;
  int fd_ = -1;
  BinHeader header_{};
  std::vector<BinIndexEntry> index_;
};

}  // namespace kmerbloom::detail
