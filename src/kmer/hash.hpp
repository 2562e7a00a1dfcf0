// Hashing of k-mer words. Kept apart from the filters: a filter takes a 64-bit
// hash and never sees a k-mer.
#pragma once

#include <cstdint>

#include "kmer/words.hpp"

namespace kmerbloom {

__extension__ typedef unsigned __int128 u128;

// The 64-bit finalizer of MurmurHash3: invertible, so distinct keys never
// collide, and every output bit depends on every input bit.
constexpr uint64_t mix64(uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Name written into files so that a reader can refuse hashes it does not know.
inline constexpr const char* kKmerHashName = "murmur3-fmix64";

constexpr uint64_t hash_kmer(uint64_t kmer, uint64_t seed = 0) noexcept {
  return mix64(kmer ^ (seed * 0x9e3779b97f4a7c15ULL));
}

constexpr uint64_t hash_kmer(u128 kmer, uint64_t seed = 0) noexcept {
  const auto lo = static_cast<uint64_t>(kmer);
  const auto hi = static_cast<uint64_t>(kmer >> 64);
  return mix64(lo ^ mix64(hi ^ (seed * 0x9e3779b97f4a7c15ULL)));
}

// The same chain over N words, from the top one down: a Words<2> hashes as
// the u128 of the same value.
template <unsigned N>
constexpr uint64_t hash_kmer(const Words<N>& kmer, uint64_t seed = 0) noexcept {
  uint64_t h = mix64(kmer.w[N - 1] ^ (seed * 0x9e3779b97f4a7c15ULL));
  for (unsigned i = N - 1; i-- > 0;) h = mix64(kmer.w[i] ^ h);
  return h;
}

}  // namespace kmerbloom
