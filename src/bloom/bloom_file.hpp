// Saving and loading a ScalableBloom with its metadata: the .kbf file (magic
// "KMBLOOM\0", version, JSON header, each layer raw or zlib, CRC-32), laid out
// in docs/bloom-file.md with when a layer is compressed.
//
// Loading treats the file as untrusted: sizes are checked against the file
// length, the deflate expansion limit and LoadLimits::max_bytes before any
// allocation. Thread safety: the functions are reentrant; the filter being
// saved must not be modified during save_filter().
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "bloom/bloom.hpp"
#include "common/error.hpp"

namespace kmerbloom {

inline constexpr char kBloomFileMagic[8] = {'K', 'M', 'B', 'L', 'O', 'O', 'M', '\0'};
inline constexpr uint32_t kBloomFileVersion = 1;

// What the filter's keys are. Stored verbatim; not interpreted by the filter.
struct FilterMeta {
  uint32_t k = 0;                 // k-mer length
  bool canonical = true;          // keys are canonical k-mers
  std::string hash_name;          // e.g. kKmerHashName
  uint64_t seed = 0;              // hash seed
  uint64_t min_count = 0;         // count threshold the filter was built for
  std::string extra_json;         // free-form, stored as a JSON string
  bool operator==(const FilterMeta&) const = default;
};

struct LoadLimits {
  // Largest total filter size (sum of layer bytes) the loader will allocate;
  // 0 means the machine's physical memory (a forged zlib layer could otherwise
  // ask for up to 1032 times the file size and be killed for it).
  uint64_t max_bytes = 0;
};

struct LoadedFilter {
  FilterMeta meta;
  ScalableBloom filter;
};

// Writes `filter` and `meta` to `path` through OutputFile (output.hpp): atomic
// for regular files, in place for FIFOs and devices, "-" for stdout, the
// temporary file removed on error or signal; never gzip-compressed by name.
// Throws OutputError on any I/O error.
void save_filter(const std::string& path, const ScalableBloom& filter, const FilterMeta& meta);

// Reads a file written by save_filter(); "-" is standard input (a pipe or
// FIFO is read whole into memory). Throws FilterFileError naming the
// path for: bad magic, another format version, truncation, checksum mismatch,
// malformed header, sizes over the limits, corrupt compressed data.
LoadedFilter load_filter(const std::string& path, const LoadLimits& limits = {});

}  // namespace kmerbloom
