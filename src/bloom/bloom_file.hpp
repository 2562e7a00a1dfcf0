// Saving and loading a ScalableBloom with its metadata.
//
// File layout (all integers little-endian):
//   offset 0   8 bytes  magic "KMBLOOM\0"
//   offset 8   uint32   format version (kBloomFileVersion)
//   offset 12  uint32   H: length of the JSON header in bytes (<= 1 MiB)
//   offset 16  H bytes  JSON header (UTF-8), every parameter:
//                 {"format":"kmerbloom-filter","k":31,"canonical":true,
//                  "hash":{"name":"murmur3-fmix64","seed":0},"min_count":2,
//                  "extra":"<string>",
//                  "chain":{"fpr":..,"growth":..,"tightening":..,"linear":..,
//                           "initial_capacity":.., "first_share":.. (if > 0)},
//                  "layers":[{"blocks":..,"hashes":..,"capacity":..,
//                             "target_fpr":..,"keys":..,"encoding":"raw"|"zlib",
//                             "stored_bytes":..}, ...]}
//   then       each layer's payload in order, stored_bytes long: the filter
//              words (BlockedBloom::words(), 64-bit little-endian), either raw
//              or as one zlib stream (deflate level 1)
//   last       uint32   CRC-32 (zlib's crc32) of every byte before it
//
// A layer is compressed only when it pays: when the entropy of its fill
// (fraction f of set bits) is at most 0.5 bit per bit (f <= 0.11 or f >= 0.89)
// and the stream is at most 90% of the raw size. Measured with zlib level 1 on
// random bits: f = 0.01 -> 17% of raw, 0.1 -> 58%, 0.2 -> 78% (at 27 MB/s: not
// worth it), 0.5 -> 100%. A Bloom filter at capacity is about half full, so
// full layers are stored raw; a young, sparse newest layer compresses.
//
// Loading treats the file as untrusted: the header length, every layer's
// stored size and decompressed size are checked against the file length, the
// deflate expansion limit (1032:1) and LoadLimits::max_bytes (default: the
// physical memory) before any
// allocation, so a forged header cannot make the loader allocate more than
// those bounds or read out of bounds.
//
// Thread safety: the functions are reentrant; the filter being saved must not
// be modified during save_filter().
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
