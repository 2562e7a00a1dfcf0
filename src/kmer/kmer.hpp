// K-mer encoding and rolling extraction.
//
// Bases are packed 2 bits each, A=0 C=1 G=2 T=3, first base in the most
// significant position, so comparing packed words compares k-mers
// lexicographically on A < C < G < T. The reverse complement of base b is
// 3 - b, so the canonical k-mer min(forward, reverse complement) is a plain
// integer minimum.
//
// Four word types: uint64_t for k <= 31 (the fast path), the 128-bit u128 for
// 32 <= k <= 63, Words<4> (256 bits) for 64 <= k <= 127 and Words<8> (512
// bits) for 128 <= k <= 255. A word holds at most 32 * words - 1 bases, so its
// top two bits stay zero: the all-ones word is never a k-mer, and hash tables
// use it as the empty marker. The word type is chosen once per run (see
// dispatch_kmer_width), never per k-mer; memory per key grows with it.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/bases.hpp"
#include "common/format.hpp"
#include "kmer/hash.hpp"

namespace kmerbloom {

inline constexpr unsigned kMaxK = 255;
inline constexpr unsigned kMaxSmallK = 31;

// Parameters of one run's k-mers, for word type W.
template <class W>
struct KmerShape {
  unsigned k;
  bool canonical;
  W mask;        // low 2k bits set
  unsigned top;  // bit position of the first base: 2(k-1)

  KmerShape(unsigned k_, bool canonical_) : k(k_), canonical(canonical_), top(2 * (k_ - 1)) {
    if (k_ == 0 || k_ > 4 * sizeof(W) - 1) throw std::invalid_argument("k out of range for word type");
    mask = (W(1) << (2 * k_)) - 1;
  }
};

template <class W>
W reverse_complement(W x, unsigned k) {
  if constexpr (std::is_same_v<W, uint64_t>) {
    // A 64-bit word at once: its bytes reversed, then the four 2-bit bases
    // within each byte, complemented, and the k bases brought down.
    if (k == 0) return 0;
    uint64_t r = __builtin_bswap64(x);
    r = ((r >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((r & 0x0F0F0F0F0F0F0F0FULL) << 4);
    r = ((r >> 2) & 0x3333333333333333ULL) | ((r & 0x3333333333333333ULL) << 2);
    r = ~r >> (64 - 2 * k);
    return k == 32 ? r : r & ((uint64_t{1} << (2 * k)) - 1);
  }
  W r = 0;
  for (unsigned i = 0; i < k; ++i) {
    r = (r << 2) | (3 - (x & 3));
    x >>= 2;
  }
  return r;
}

// Packs exactly k bases of s; throws std::invalid_argument on a non-ACGT base.
template <class W>
W encode_kmer(std::string_view s) {
  W x = 0;
  for (char c : s) {
    const uint8_t b = kBaseCode[static_cast<uint8_t>(c)];
    if (b > 3) throw std::invalid_argument("not a base: '" + printable(std::string_view(&c, 1)) + "'");
    x = (x << 2) | b;
  }
  return x;
}

template <class W>
std::string decode_kmer(W x, unsigned k) {
  std::string s(k, 'A');
  for (unsigned i = k; i-- > 0;) {
    s[i] = kBaseChar[static_cast<unsigned>(x & 3)];
    x >>= 2;
  }
  return s;
}

// Writes the k bases of x to out[0..k).
template <class W>
void decode_kmer_to(W x, unsigned k, char* out) {
  for (unsigned i = k; i-- > 0;) {
    out[i] = kBaseChar[static_cast<unsigned>(x & 3)];
    x >>= 2;
  }
}

// Writes x as a packed k-mer of `bytes` = ceil(k / 4) bytes (PackedKmers:
// big-endian, right-aligned), as KFF stores it.
template <class W>
void pack_kmer_to(W x, unsigned bytes, uint8_t* out) {
  if constexpr (std::is_same_v<W, uint64_t>) {
    const uint64_t be = __builtin_bswap64(x);
    std::memcpy(out, reinterpret_cast<const uint8_t*>(&be) + 8 - bytes, bytes);
  } else {
    for (unsigned i = bytes; i-- > 0;) {
      out[i] = static_cast<uint8_t>(static_cast<unsigned>(x & 255));
      x >>= 8;
    }
  }
}

// rc when canonical and rc < fw, else fw. For one- and two-word k-mers by a
// mask, not a branch: which strand is smaller is a coin toss a k-mer, and
// GCC compiled `canonical && rc < fw ? rc : fw` in the counting pass's
// decode loop to a compare and jump.
template <class W>
inline W pick_strand(W fw, W rc, bool canonical) {
  if constexpr (std::is_same_v<W, uint64_t> || std::is_same_v<W, u128>) {
    const W take = W(0) - W(canonical & (rc < fw));
    return fw ^ ((fw ^ rc) & take);
  } else {
    return canonical && rc < fw ? rc : fw;
  }
}

// Calls f(kmer) for every k-mer of seq, in order, canonical if shape says so.
// Any byte that is not ACGTU (either case) ends the current window; the next
// k-mer starts k bases after it. Both strands roll together: O(1) per base.
template <class W, class F>
inline void for_each_kmer(std::string_view seq, const KmerShape<W>& shape, F&& f) {
  W fw = 0, rc = 0;
  unsigned len = 0;
  const W mask = shape.mask;
  const unsigned top = shape.top, k = shape.k;
  for (const char ch : seq) {
    const uint8_t b = kBaseCode[static_cast<uint8_t>(ch)];
    if (b > 3) [[unlikely]] {
      len = 0;
      continue;
    }
    fw = ((fw << 2) | b) & mask;
    rc = (rc >> 2) | (W(3 - b) << top);
    if (++len >= k) {
      len = k;
      f(pick_strand(fw, rc, shape.canonical));
    }
  }
}

// Number of k-mers for_each_kmer yields on seq.
inline uint64_t count_kmers(std::string_view seq, unsigned k) {
  uint64_t n = 0, run = 0;
  for (const char ch : seq) {
    if (kBaseCode[static_cast<uint8_t>(ch)] > 3) {
      run = 0;
    } else if (++run >= k) {
      ++n;
    }
  }
  return n;
}

// Calls f.template operator()<W>() with W the word type for k: the one place
// where the run picks its k-mer width.
template <class F>
decltype(auto) dispatch_kmer_width(unsigned k, F&& f) {
  if (k == 0 || k > kMaxK) throw std::invalid_argument("k must be between 1 and " + std::to_string(kMaxK));
  if (k <= kMaxSmallK) return f.template operator()<uint64_t>();
  if (k <= 63) return f.template operator()<u128>();
  if (k <= 127) return f.template operator()<Words<4>>();
  return f.template operator()<Words<8>>();
}

}  // namespace kmerbloom
