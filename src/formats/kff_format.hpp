// Byte-level helpers shared by the KFF reader and writer. Private to the library.
#pragma once

#include <cstdint>
#include <string>

namespace kmerbloom::kff {

inline constexpr char kSignature[3] = {'K', 'F', 'F'};  // the first and the last 3 bytes of a file
inline constexpr uint8_t kVersionMajor = 1, kVersionMinor = 0;  // what the writer writes, the newest the reader takes

// Bytes of n bases packed 2 bits each.
constexpr uint64_t packed_bytes(uint64_t bases) { return (bases + 3) / 4; }

// Fewest bytes that hold v (0 for 0).
constexpr unsigned bytes_for(uint64_t v) {
  unsigned n = 0;
  for (; v; v >>= 8) ++n;
  return n;
}

// Bytes of a field of ceil(log2(v)) bits, as the KFF reference implementation
// sizes a block's k-mer count (from max) and minimizer position (from k + max - 1).
constexpr unsigned lg_field_bytes(uint64_t v) {
  unsigned bits = 0;
  while (bits < 64 && (uint64_t{1} << bits) < v) ++bits;
  return (bits + 7) / 8;
}

inline void append_be(std::string& s, uint64_t v, unsigned width) {
  for (unsigned i = width; i-- > 0;) s.push_back(static_cast<char>(i < 8 ? v >> (8 * i) : 0));
}

inline uint64_t load_be(const uint8_t* p, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) v = v << 8 | p[i];
  return v;
}

}  // namespace kmerbloom::kff
