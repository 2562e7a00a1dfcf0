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

inline void block_mask(uint64_t h, unsigned hashes, uint64_t* mask) noexcept {
  switch (hashes) {  // the counts the filters are sized with (3% to 0.01%)
    case 4: return block_mask<4>(h, mask);
    case 5: return block_mask<5>(h, mask);
    case 6: return block_mask<6>(h, mask);
    case 7: return block_mask<7>(h, mask);
    case 8: return block_mask<8>(h, mask);
    case 9: return block_mask<9>(h, mask);
    case 10: return block_mask<10>(h, mask);
    default:
      all_positions(h, hashes, [&](unsigned pos) {
        mask[pos >> 6] |= uint64_t{1} << (pos & 63);
        return true;
      });
  }
}

// Sets the key's bits in the block; true if every one was set already.
// Exclusive: plain loads and stores, for a filter only this thread touches.
// The key's 8-word mask first, then the whole block (one cache line) without
// data-dependent branches: at half fill every per-word test is a coin flip,
// and the mispredictions cost more than the loads (measured in L2: 50 -> 15 ns).
template <bool Exclusive>
inline bool block_test_and_set(uint64_t* block, uint64_t h, unsigned hashes) noexcept {
  uint64_t mask[kBlockWords] = {};
  block_mask(h, hashes, mask);
  if constexpr (Exclusive) {  // the whole line in one sweep, no branch (vector code)
    uint64_t missing = 0;
    for (unsigned w = 0; w < kBlockWords; ++w) {
      const uint64_t old = block[w];
      missing |= mask[w] & ~old;
      block[w] = old | mask[w];
    }
    return missing == 0;
  }
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
