// The bits of a key in a 64-byte Bloom block, and test-and-set of one block:
// inline, for the gates that test a key per k-mer occurrence (a call and its
// register saves cost about as many instructions as the work). Layout and
// the false-positive model: docs/scalable-chain.md.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>

#include "kmer/hash.hpp"

namespace kmerbloom::detail {

inline constexpr uint64_t kBloomGolden = 0x9e3779b97f4a7c15ULL;
inline constexpr unsigned kPositionsPerWord = 7;  // 7 x 9 bits out of 64
inline constexpr unsigned kBlockWords = 8;        // 512 bits

// Calls f(position in [0, 512)) for the k positions of hash h, in order,
// while f returns true; returns whether every call did.
template <class F>
inline bool all_positions(uint64_t h, unsigned k, F&& f) noexcept {
  uint64_t state = h;
  unsigned done = 0;
  while (done < k) {
    state += kBloomGolden;
    uint64_t x = mix64(state);
    const unsigned take = std::min(k - done, kPositionsPerWord);
    for (unsigned j = 0; j < take; ++j) {
      if (!f(static_cast<unsigned>(x & 511U))) return false;
      x >>= 9;
    }
    done += take;
  }
  return true;
}

inline uint64_t load_relaxed(const uint64_t& w) noexcept {
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(w)).load(std::memory_order_relaxed);
}

// The key's bits ORed into mask[8], the same as all_positions gives, with
// the count of bits known when compiled (no loop control). all_positions
// called with a constant count is not unrolled by g++ 12 (callgrind: 3%
// more instructions in all on HiFi-like reads), hence the walk written out.
template <unsigned K>
inline void block_mask(uint64_t h, uint64_t* mask) noexcept {
  uint64_t state = h;
  for (unsigned done = 0; done < K; done += kPositionsPerWord) {
    state += kBloomGolden;
    uint64_t x = mix64(state);
    for (unsigned j = 0; j < std::min(K - done, kPositionsPerWord); ++j) {
      mask[(x & 511U) >> 6] |= uint64_t{1} << (x & 63U);
      x >>= 9;
    }
  }
}

// fixed.template operator()<K>() for the hash counts the filters are sized
// with (4 to 10: 3% to 0.01%), so that the walk over the positions is
// written out; any() for the others.
template <class Fixed, class Any>
[[gnu::always_inline]] inline auto with_hash_count(unsigned hashes, Fixed&& fixed, Any&& any) noexcept {
  switch (hashes) {
    case 4: return fixed.template operator()<4>();
    case 5: return fixed.template operator()<5>();
    case 6: return fixed.template operator()<6>();
    case 7: return fixed.template operator()<7>();
    case 8: return fixed.template operator()<8>();
    case 9: return fixed.template operator()<9>();
    case 10: return fixed.template operator()<10>();
    default: return any();
  }
}

inline void block_mask(uint64_t h, unsigned hashes, uint64_t* mask) noexcept {
  with_hash_count(
      hashes, [&]<unsigned K>() { block_mask<K>(h, mask); },
      [&] {
        all_positions(h, hashes, [&](unsigned pos) {
          mask[pos >> 6] |= uint64_t{1} << (pos & 63);
          return true;
        });
      });
}

// Exclusive test-and-set of K positions: each bit tested and set in its
// word as its position comes out of the hash, no branch (at half fill every
// per-bit test is a coin flip) and no mask: building the 8-word mask and
// sweeping the line took 12.1 ns a key against 8.6 (L2-resident blocks, 5
// hashes, the loop's own hashing included).
template <unsigned K>
inline bool block_test_and_set_exclusive(uint64_t* block, uint64_t h) noexcept {
  uint64_t state = h, missing = 0;
  for (unsigned done = 0; done < K; done += kPositionsPerWord) {
    state += kBloomGolden;
    uint64_t x = mix64(state);
    for (unsigned j = 0; j < std::min(K - done, kPositionsPerWord); ++j) {
      const auto pos = static_cast<unsigned>(x & 511U);
      const uint64_t bit = uint64_t{1} << (pos & 63U), old = block[pos >> 6];
      missing |= bit & ~old;
      block[pos >> 6] = old | bit;
      x >>= 9;
    }
  }
  return missing == 0;
}

// Sets the key's bits in the block; true if every one was set already.
// Exclusive: plain loads and stores, for a filter only this thread touches
// (block_test_and_set_exclusive). Shared: the key's 8-word mask first, then
// the words that miss some of its bits ORed in atomically.
template <bool Exclusive>
inline bool block_test_and_set(uint64_t* block, uint64_t h, unsigned hashes) noexcept {
  if constexpr (Exclusive) {
    return with_hash_count(
        hashes, [&]<unsigned K>() { return block_test_and_set_exclusive<K>(block, h); },
        [&] {
          uint64_t missing = 0;
          all_positions(h, hashes, [&](unsigned pos) {
            const uint64_t bit = uint64_t{1} << (pos & 63U), old = block[pos >> 6];
            missing |= bit & ~old;
            block[pos >> 6] = old | bit;
            return true;
          });
          return missing == 0;
        });
  }
  uint64_t mask[kBlockWords] = {};
  block_mask(h, hashes, mask);
  unsigned todo = 0;  // words that miss some of their bits
  for (unsigned w = 0; w < kBlockWords; ++w)
    todo |= static_cast<unsigned>((mask[w] & ~load_relaxed(block[w])) != 0) << w;
  bool present = true;
  while (todo != 0) {  // usually 0 (a repeat) to 3 words (a new key)
    const auto w = static_cast<unsigned>(std::countr_zero(todo));
    todo &= todo - 1;
    const uint64_t old = std::atomic_ref<uint64_t>(block[w]).fetch_or(mask[w], std::memory_order_relaxed);
    present = present && (old & mask[w]) == mask[w];
  }
  return present;
}

}  // namespace kmerbloom::detail
