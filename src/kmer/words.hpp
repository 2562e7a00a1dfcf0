// Words<N>: an unsigned integer of N 64-bit words, the k-mer word type for
// k > 63 (Words<4> up to k = 127, Words<8> up to k = 255).
//
// It behaves as the built-in unsigned integers do where the k-mer code uses
// them (shifts, bitwise operators, subtraction, ordering, an explicit
// conversion to the low word), so the templates written for uint64_t and
// u128 take it unchanged. Word 0 is the least significant, so that on a
// little-endian machine its bytes are laid out as a u128's are; the hash
// tables store keys as arrays of 64-bit words and rely on that.
#pragma once

#include <bit>
#include <compare>
#include <concepts>
#include <cstdint>

namespace kmerbloom {

static_assert(std::endian::native == std::endian::little, "k-mer words assume a little-endian machine");

template <unsigned N>
struct Words {
  static_assert(N >= 2);
  uint64_t w[N];

  constexpr Words() : w{} {}
  template <std::integral T>
  constexpr Words(T x) : w{} {  // NOLINT: converts as integers do
    w[0] = static_cast<uint64_t>(x);
  }
  template <std::integral T>
  constexpr explicit operator T() const {
    return static_cast<T>(w[0]);
  }

  friend constexpr Words operator<<(const Words& a, unsigned s) {
    Words r;
    const unsigned q = s / 64, b = s % 64;
    for (unsigned i = N; i-- > q;) {
      uint64_t v = a.w[i - q] << b;
      if (b != 0 && i > q) v |= a.w[i - q - 1] >> (64 - b);
      r.w[i] = v;
    }
    return r;
  }
  friend constexpr Words operator>>(const Words& a, unsigned s) {
    Words r;
    const unsigned q = s / 64, b = s % 64;
    for (unsigned i = 0; i + q < N; ++i) {
      uint64_t v = a.w[i + q] >> b;
      if (b != 0 && i + q + 1 < N) v |= a.w[i + q + 1] << (64 - b);
      r.w[i] = v;
    }
    return r;
  }
  friend constexpr Words operator|(Words a, const Words& b) { return a |= b; }
  friend constexpr Words operator&(Words a, const Words& b) { return a &= b; }
  friend constexpr Words operator^(Words a, const Words& b) {
    for (unsigned i = 0; i < N; ++i) a.w[i] ^= b.w[i];
    return a;
  }
  friend constexpr Words operator~(Words a) {
    for (unsigned i = 0; i < N; ++i) a.w[i] = ~a.w[i];
    return a;
  }
  friend constexpr Words operator-(Words a, const Words& b) {
    uint64_t borrow = 0;
    for (unsigned i = 0; i < N; ++i) {
      const uint64_t x = a.w[i], y = b.w[i];
      a.w[i] = x - y - borrow;
      borrow = (x < y || (x == y && borrow)) ? 1 : 0;
    }
    return a;
  }
  constexpr Words& operator|=(const Words& b) {
    for (unsigned i = 0; i < N; ++i) w[i] |= b.w[i];
    return *this;
  }
  constexpr Words& operator&=(const Words& b) {
    for (unsigned i = 0; i < N; ++i) w[i] &= b.w[i];
    return *this;
  }
  constexpr Words& operator<<=(unsigned s) { return *this = *this << s; }
  constexpr Words& operator>>=(unsigned s) { return *this = *this >> s; }

  friend constexpr bool operator==(const Words&, const Words&) = default;
  friend constexpr std::strong_ordering operator<=>(const Words& a, const Words& b) {
    for (unsigned i = N; i-- > 0;)
      if (a.w[i] != b.w[i]) return a.w[i] < b.w[i] ? std::strong_ordering::less : std::strong_ordering::greater;
    return std::strong_ordering::equal;
  }
};

// Bits needed to write x (0 for 0), for any k-mer word type.
template <class W>
constexpr unsigned word_bit_width(const W& x) {
  if constexpr (sizeof(W) == 8) {
    return static_cast<unsigned>(std::bit_width(static_cast<uint64_t>(x)));
  } else {
    for (unsigned i = sizeof(W) / 8; i-- > 0;) {
      const auto word = static_cast<uint64_t>(x >> (64 * i));
      if (word != 0) return 64 * i + static_cast<unsigned>(std::bit_width(word));
    }
    return 0;
  }
}

}  // namespace kmerbloom
