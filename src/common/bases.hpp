// The 2-bit code of nucleotides, shared by the k-mer extractor and the file
// formats that pack bases (KFF, the bin files): A=0 C=1 G=2 T=3.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

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

// Packed k-mers (PackedKmers' layout) end to end with their counts, as the
// readers of sorted count files hand them on: up to capacity() at a time,
// n of them filled, each `bytes` long.
struct PackedBatch {
  unsigned k = 0, bytes = 0;
  size_t n = 0;
  std::vector<char> kmers;       // capacity() * bytes
  std::vector<uint64_t> counts;  // capacity()

  // Emptied, for k-mers of k bases, room for `capacity` of them.
  void reset(unsigned k_bases, size_t capacity) {
    k = k_bases;
    bytes = (k_bases + 3) / 4;
    n = 0;
    if (counts.size() < capacity) counts.resize(capacity);
    if (kmers.size() < counts.size() * bytes) kmers.resize(counts.size() * bytes);
  }
  size_t capacity() const { return counts.size(); }  // reset keeps kmers at least capacity() * bytes
  char* kmer_at(size_t i) { return kmers.data() + i * bytes; }
  std::string_view kmer(size_t i) const { return {kmers.data() + i * bytes, bytes}; }
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

// The letters of one packed k-mer, as a string (for messages, and the rare
// k-mer written in letters).
inline std::string packed_kmer_letters(const void* packed, unsigned k) {
  std::string letters(k, 'A');
  decode_packed_kmer(static_cast<const uint8_t*>(packed), k, letters.data());
  return letters;
}

// The reverse of decode_packed_kmer: packs k = text.size() letters of upper-case
// A, C, G, T (not checked: the caller's) into ceil(k / 4) bytes at out.
inline void pack_kmer_text(std::string_view text, uint8_t* out) {
  const size_t k = text.size(), bytes = (k + 3) / 4;
  size_t i = 0, held = 4 * bytes - k;  // the first byte's pad bases, zero
  for (size_t b = 0; b < bytes; ++b, held = 0) {
    unsigned byte = 0;
    for (; held < 4; ++held) byte = byte << 2 | base_codes(static_cast<unsigned char>(text[i++]));
    out[b] = static_cast<uint8_t>(byte);
  }
}

namespace detail {
// n bytes, sizeof(W) <= n <= 2 sizeof(W), as two words that may overlap.
template <class W>
inline void copy_two_words(char* to, const char* from, size_t n) {
  W a, b;
  std::memcpy(&a, from, sizeof a);
  std::memcpy(&b, from + n - sizeof b, sizeof b);
  std::memcpy(to, &a, sizeof a);
  std::memcpy(to + n - sizeof b, &b, sizeof b);
}
}  // namespace detail

// Copies the n bytes of a k-mer (packed or in letters) inline up to 16
// bytes (k <= 64 packed), where memcpy of a length known only at run time is
// a call.
inline void copy_kmer_bytes(char* to, const char* from, size_t n) {
  if (n > 16) {
    std::memcpy(to, from, n);
  } else if (n >= 8) {
    detail::copy_two_words<uint64_t>(to, from, n);
  } else if (n >= 4) {
    detail::copy_two_words<uint32_t>(to, from, n);
  } else {
    for (size_t i = 0; i < n; ++i) to[i] = from[i];
  }
}
// `to` made a copy of `from`, its storage kept.
inline void assign_kmer_bytes(std::string& to, std::string_view from) {
  if (to.size() != from.size()) to.resize(from.size());
  copy_kmer_bytes(to.data(), from.data(), from.size());
}

// Orders two k-mers of n bytes each, packed (or in letters) as
// std::string_view would (bytes unsigned, first byte first), inline: eight
// bytes at a time, where memcmp is a call.
inline int compare_kmer_bytes(const char* a, const char* b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
  }
  for (; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]) ? -1 : 1;
  return 0;
}
// The same for views of one length (a shorter view is before a longer one).
inline int compare_kmer_bytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return compare_kmer_bytes(a.data(), b.data(), a.size());
}

}  // namespace kmerbloom
