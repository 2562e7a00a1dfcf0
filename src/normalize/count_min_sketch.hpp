// CountMinSketch: approximate k-mer abundances for digital normalization, in
// 8-bit saturating counters (kMaxCount = 255), cache-blocked so that a key
// costs one cache miss: 64-byte blocks of kRows = 4 rows of 16 counters. add()
// is a conservative update; the sketch never under-counts. Layout, update rule
// and error model: docs/normaliser-sketch.md.
//
// Thread safety: none inside. const members may run concurrently with each
// other; add() needs exclusive access. Memory: owned, zero-initialised, 2 MiB
// aligned with transparent huge pages requested from 2 MiB up.
#pragma once

#include <cstdint>
#include <memory>

#include "common/huge_pages.hpp"

namespace kmerbloom {

class CountMinSketch {
 public:
  static constexpr unsigned kRows = 4;
  static constexpr unsigned kRowWidth = 16;
  static constexpr unsigned kBlockBytes = kRows * kRowWidth;  // 64: one cache line
  static constexpr unsigned kMaxCount = 255;
  static constexpr unsigned kCounterBits = 8;
  static constexpr double kKeysPerBlock = 6.0;  // design load
  static constexpr uint64_t kMaxBlocks = uint64_t{1} << 34;  // 1 TiB

  // A zeroed sketch of `blocks` 64-byte blocks. Throws std::invalid_argument
  // if blocks is 0 or above kMaxBlocks, std::bad_alloc if memory is short.
  explicit CountMinSketch(uint64_t blocks);
  CountMinSketch(CountMinSketch&&) noexcept = default;
  CountMinSketch& operator=(CountMinSketch&&) noexcept = default;
  CountMinSketch(const CountMinSketch&) = delete;
  CountMinSketch& operator=(const CountMinSketch&) = delete;
  ~CountMinSketch() = default;

  // Blocks that hold `keys` distinct keys at the design load (at least 1).
  static uint64_t blocks_for_keys(uint64_t keys) noexcept;
  // The model collision rate P (docs/normaliser-sketch.md) with `keys` keys in `blocks` blocks.
  static double expected_collision_rate(uint64_t keys, uint64_t blocks) noexcept;

  // Estimated count of the key: min of its 4 counters, in [0, 255].
  [[nodiscard]] unsigned estimate(uint64_t h) const noexcept {
    const uint8_t* c = block(h);
    unsigned m = c[slot(h, 0)];
    for (unsigned r = 1; r < kRows; ++r) m = c[r * kRowWidth + slot(h, r)] < m ? c[r * kRowWidth + slot(h, r)] : m;
    return m;
  }
  // Counts one more occurrence (conservative update); returns the new estimate.
  unsigned add(uint64_t h) noexcept {
    uint8_t* c = block(h);
    const unsigned m = estimate(h);
    if (m == kMaxCount) return m;
    for (unsigned r = 0; r < kRows; ++r) {
      uint8_t& x = c[r * kRowWidth + slot(h, r)];
      if (x == m) x = static_cast<uint8_t>(m + 1);
    }
    return m + 1;
  }
  // Hints the CPU to load the key's block.
  void prefetch(uint64_t h) const noexcept { __builtin_prefetch(block(h), 1, 3); }

  [[nodiscard]] uint64_t blocks() const noexcept { return blocks_; }
  [[nodiscard]] uint64_t bytes() const noexcept { return blocks_ * kBlockBytes; }
  [[nodiscard]] uint64_t counters() const noexcept { return blocks_ * kBlockBytes; }

  // Statistics; each scans the whole sketch (O(bytes)).
  struct Fill {
    uint64_t nonzero = 0;      // counters above 0
    uint64_t saturated = 0;    // counters at kMaxCount
    double collision_rate = 0; // chance an absent key reads non-zero (docs/normaliser-sketch.md)
    double keys = 0;           // distinct keys estimated from the empty counters
  };
  // keys: per row, a counter stays 0 after n keys with probability
  // (1 - 1/(16 b))^n, so n* = ln(zero fraction) / ln(1 - 1/(16 b)), averaged
  // over the 4 rows; +infinity when a row is full.
  [[nodiscard]] Fill fill() const noexcept;

 private:
  static unsigned slot(uint64_t h, unsigned row) noexcept { return static_cast<unsigned>(h >> (4 * row)) & 15u; }
  [[nodiscard]] uint8_t* block(uint64_t h) const noexcept {
    __extension__ typedef unsigned __int128 wide;
    return counters_.get() + static_cast<uint64_t>((static_cast<wide>(h) * blocks_) >> 64) * kBlockBytes;
  }

  std::unique_ptr<uint8_t[], detail::TableFree> counters_;
  uint64_t blocks_ = 0;
};

}  // namespace kmerbloom
