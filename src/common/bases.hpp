// The 2-bit code of nucleotides, shared by the k-mer extractor and the file
// formats that pack bases (KFF, the bin files): A=0 C=1 G=2 T=3.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace kmerbloom {

// 0-3 for ACGT (either case; U/u read as T), 4 for every other byte.
inline constexpr std::array<uint8_t, 256> kBaseCode = [] {
  std::array<uint8_t, 256> t{};
  t.fill(4);
  t['A'] = t['a'] = 0;
  t['C'] = t['c'] = 1;
  t['G'] = t['g'] = 2;
  t['T'] = t['t'] = t['U'] = t['u'] = 3;
  return t;
}();

// The 2-bit code of base letters A, C, G, T, U in either case, without a
// table, four letters at once (one a byte; a single letter zero-extended
// works too): bits 1-2 of the letter, with G and T told apart by bit 2
// (A 0, C 1, G 2, T and U 3, as kBaseCode). Only for bytes known to be
// such letters.
constexpr uint32_t base_codes(uint32_t letters) { return ((letters >> 1) & 0x03030303u) ^ ((letters >> 2) & 0x01010101u); }

// The same for eight letters at once (one a byte, little-endian).
constexpr uint64_t base_codes8(uint64_t letters) {
  return ((letters >> 1) & 0x0303030303030303ULL) ^ ((letters >> 2) & 0x0101010101010101ULL);
}

inline constexpr char kBaseChar[4] = {'A', 'C', 'G', 'T'};

// Whether a k-mer of upper-case A, C, G, T is canonical: at most its reverse
// complement, in text order (the order of the 2-bit code).
inline bool is_canonical_text(std::string_view kmer) {
  for (size_t i = 0, j = kmer.size(); i < kmer.size(); ++i) {
    const char rc = kBaseChar[3 - kBaseCode[static_cast<uint8_t>(kmer[--j])]];
    if (kmer[i] != rc) return kmer[i] < rc;
  }
  return true;
}

// Number of bytes of seq that are not ACGTU (either case). Sixteen bytes at
// a time in the compiler's vector types (SSE2 on x86-64, NEON on ARM): a
// byte counts as a base when, upper-cased, it equals one of the five
// letters (no other byte folds onto them), and a lane's counter takes at
// most 255 steps before it is summed. A kBaseCode lookup a byte took 8
// instructions a base of the counter's input.
inline uint64_t count_non_acgt(std::string_view seq) {
  using Bytes = uint8_t __attribute__((vector_size(16)));
  const char* s = seq.data();
  const size_t n = seq.size();
  size_t i = 0;
  uint64_t bases = 0;
  while (n - i >= 16) {
    Bytes in_lane{};
    const size_t stop = i + std::min<size_t>((n - i) / 16, 255) * 16;
    for (; i < stop; i += 16) {
      Bytes v;
      std::memcpy(&v, s + i, 16);
      const Bytes u = v & 0xdf;
      in_lane -= (u == 'A') | (u == 'C') | (u == 'G') | (u == 'T') | (u == 'U');  // true is all ones: -1
    }
    for (unsigned lane = 0; lane < 16; ++lane) bases += in_lane[lane];
  }
  uint64_t other = i - bases;
  for (; i < n; ++i) other += kBaseCode[static_cast<uint8_t>(s[i])] > 3;
  return other;
}

// K-mers packed as KFF and the bin files store them: ceil(k / 4) bytes each,
// 2 bits a base, right-aligned (the first byte holds the first
// (k - 1) % 4 + 1 bases), first base in the high bits; `counts` beside.
struct PackedKmers {
  unsigned k = 0;
  const uint8_t* packed = nullptr;
  const uint32_t* counts = nullptr;
  size_t n = 0;
};

// The four letters of every byte of packed bases.
inline constexpr std::array<std::array<char, 4>, 256> kByteBases = [] {
  std::array<std::array<char, 4>, 256> t{};
  for (unsigned b = 0; b < 256; ++b)
    for (unsigned i = 0; i < 4; ++i) t[b][i] = kBaseChar[(b >> (6 - 2 * i)) & 3];
  return t;
}();

// Writes the k bases of one packed k-mer (ceil(k / 4) bytes) to out[0..k).
inline void decode_packed_kmer(const uint8_t* packed, unsigned k, char* out) {
  const unsigned bytes = (k + 3) / 4, lead = 4 * bytes - k;  // pad bases of the first byte
  const std::array<char, 4>& first = kByteBases[packed[0]];
  std::memcpy(out, first.data() + lead, 4 - lead);
  out += 4 - lead;
  for (unsigned i = 1; i < bytes; ++i, out += 4) std::memcpy(out, kByteBases[packed[i]].data(), 4);
}

}  // namespace kmerbloom
