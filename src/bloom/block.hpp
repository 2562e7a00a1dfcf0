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

// f(position) for the K positions of hash h, the same as all_positions
// gives, with the count known when compiled (no loop control).
// all_positions called with a constant count is not unrolled by g++ 12
// (callgrind: 3% more instructions in all on HiFi-like reads), hence the
// walk written out.
template <unsigned K, class F>
[[gnu::always_inline]] inline void each_position(uint64_t h, F&& f) noexcept {
  uint64_t state = h;
  for (unsigned done = 0; done < K; done += kPositionsPerWord) {
    state += kBloomGolden;
    uint64_t x = mix64(state);
    for (unsigned j = 0; j < std::min(K - done, kPositionsPerWord); ++j) {
      f(static_cast<unsigned>(x & 511U));
      x >>= 9;
    }
  }
}

// f(position) for the `hashes` positions of h: the walk written out for
// the counts the filters are sized with (4 to 10: 3% to 0.01%),
// all_positions for the others. Always inline: g++ had kept it a call of
// its own from the exclusive test-and-set.
template <class F>
[[gnu::always_inline]] inline void each_position(uint64_t h, unsigned hashes, F&& f) noexcept {
  switch (hashes) {
    case 4: return each_position<4>(h, f);
    case 5: return each_position<5>(h, f);
    case 6: return each_position<6>(h, f);
    case 7: return each_position<7>(h, f);
    case 8: return each_position<8>(h, f);
    case 9: return each_position<9>(h, f);
    case 10: return each_position<10>(h, f);
    default:
      all_positions(h, hashes, [&](unsigned pos) {
        f(pos);
        return true;
      });
  }
}

// The key's bits ORed into mask[8].
inline void block_mask(uint64_t h, unsigned hashes, uint64_t* mask) noexcept {
  each_position(h, hashes, [&](unsigned pos) { mask[pos >> 6] |= uint64_t{1} << (pos & 63U); });
}

// Sets the key's bits in the block; true if every one was set already.
// Exclusive, for a filter only this thread touches: each bit tested and set
// in its word with plain loads and stores as its position comes out of the
// hash, no branch (at half fill every per-bit test is a coin flip) and no
// mask (building the 8-word mask and sweeping the line took 12.1 ns a key
// against 8.6: L2-resident blocks, 5 hashes, the loop's own hashing
// included). Shared: the key's 8-word mask first, then the words that miss
// some of its bits ORed in atomically.
template <bool Exclusive>
inline bool block_test_and_set(uint64_t* block, uint64_t h, unsigned hashes) noexcept {
  if constexpr (Exclusive) {
    uint64_t missing = 0;
    each_position(h, hashes, [&](unsigned pos) {
      const uint64_t bit = uint64_t{1} << (pos & 63U), old = block[pos >> 6];
      missing |= bit & ~old;
      block[pos >> 6] = old | bit;
    });
    return missing == 0;
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
