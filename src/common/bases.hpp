// The 2-bit code of nucleotides, shared by the k-mer extractor and the file
// formats that pack bases (KFF, the bin files): A=0 C=1 G=2 T=3.
#pragma once

#include <array>
#include <cstdint>
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

inline constexpr char kBaseChar[4] = {'A', 'C', 'G', 'T'};

// Number of bytes of seq that are not ACGTU (either case).
inline uint64_t count_non_acgt(std::string_view seq) {
  uint64_t n = 0;
  for (const char ch : seq) n += kBaseCode[static_cast<uint8_t>(ch)] > 3;
  return n;
}

}  // namespace kmerbloom
