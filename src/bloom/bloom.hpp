// Bloom filters over 64-bit hashes: a cache-blocked filter and a scalable chain.
//
// The filters take a 64-bit hash that is already well mixed (see kmer/hash.hpp) and
// never see a k-mer. They never print, never exit; bad arguments throw
// std::invalid_argument naming what is wrong.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "bloom/block.hpp"
#include "common/huge_pages.hpp"

namespace kmerbloom {

// ---------------------------------------------------------------------------
// BlockedBloom: one 64-byte block (512 bits, 8 words) per key, so an operation
// costs one cache miss. Layout, hashing and the false-positive model that
// for_capacity() and expected_fpr() compute: docs/scalable-chain.md.
//
// Thread safety: test_and_set(), insert(), contains() and prefetch() may run
// concurrently (lock-free); anything that changes the shape or writes words
// non-atomically (assignment, union_with, intersect_with, clear, mutable
// words()) needs exclusive access; statistics are approximate while inserts run.
// Memory: owned, zeroed, 64-byte aligned (2 MiB with huge pages from 2 MiB up);
// copying deep-copies.
class BlockedBloom {
 public:
  static constexpr unsigned kBlockBits = 512;
  static constexpr unsigned kWordsPerBlock = detail::kBlockWords;
  static constexpr unsigned kBlockBytes = 64;
  static constexpr unsigned kMaxHashes = 32;
  // Largest filter accepted (2^40 bytes = 1 TiB).
  static constexpr uint64_t kMaxBlocks = uint64_t{1} << 34;

  // An empty filter with no blocks: only assignment, bits()/bytes() and
  // destruction are valid on it.
  BlockedBloom() noexcept = default;
  // A zeroed filter of `blocks` 64-byte blocks and `hashes` bits per key.
  // Throws std::invalid_argument if blocks is 0 or > kMaxBlocks, or hashes is
  // not in [1, kMaxHashes].
  BlockedBloom(uint64_t blocks, unsigned hashes);
  // The smallest filter (and its k) whose expected FPR after n keys is <= p
  // (model: docs/scalable-chain.md). n = 0 is sized as n = 1. Throws
  // std::invalid_argument if p is not in (0, 1) or the filter would exceed
  // kMaxBlocks.
  static BlockedBloom for_capacity(uint64_t n, double p);
  // Shape that for_capacity(n, p) would allocate, without allocating.
  struct Shape {
    uint64_t blocks = 0;
    unsigned hashes = 0;
  };
  static Shape shape_for_capacity(uint64_t n, double p);
  // The model FPR after n keys in a filter of this shape (docs/scalable-chain.md).
  static double expected_fpr(uint64_t n, uint64_t blocks, unsigned hashes);

  BlockedBloom(const BlockedBloom& other);
  BlockedBloom& operator=(const BlockedBloom& other);
  BlockedBloom(BlockedBloom&& other) noexcept;
  BlockedBloom& operator=(BlockedBloom&& other) noexcept;
  ~BlockedBloom() = default;

  // Sets the key's bits; returns true if every one was already set (the key
  // was probably present), false if this call set at least one new bit.
  bool test_and_set(uint64_t h) noexcept;
  // The same for a filter only the calling thread touches: plain loads and
  // stores instead of atomic read-modify-writes (a locked instruction a
  // word, some 20 cycles, for every new key).
  bool test_and_set_exclusive(uint64_t h) noexcept {
    return detail::block_test_and_set<true>(words_.get() + block_of(h) * kWordsPerBlock, h, hashes_);
  }
  void insert(uint64_t h) noexcept { (void)test_and_set(h); }
  // True if every bit of the key is set: no false negatives, false positives
  // at the rate estimated_fpr().
  [[nodiscard]] bool contains(uint64_t h) const noexcept;
  // Hints the CPU to load the key's block (no effect on contents).
  void prefetch(uint64_t h) const noexcept {
    __builtin_prefetch(words_.get() + block_of(h) * kWordsPerBlock, 1, 3);
  }

  [[nodiscard]] uint64_t blocks() const noexcept { return blocks_; }
  [[nodiscard]] uint64_t bits() const noexcept { return blocks_ * kBlockBits; }
  [[nodiscard]] uint64_t bytes() const noexcept { return blocks_ * kBlockBytes; }
  [[nodiscard]] unsigned hashes() const noexcept { return hashes_; }
  // Number of set bits (popcount over the whole filter: O(bytes)).
  [[nodiscard]] uint64_t bits_set() const noexcept;
  // Distinct keys inserted, estimated from the set bits X (Swamidass & Baldi
  // adapted to blocks): one key leaves a given bit unset with probability
  // 1 - (1 - (1 - 1/512)^k) / blocks, so
  //   n* = ln(1 - X/m) / ln(1 - (1 - (1 - 1/512)^k) / blocks).
  // The classic -(m/k) ln(1 - X/m) ignores repeated positions inside a block
  // and reads about (k-1)/1024 low (0.9% at k = 10); see test_bloom.cpp.
  // Returns +infinity for a saturated filter. O(bytes).
  [[nodiscard]] double estimated_keys() const noexcept;
  // FPR of the filter as it is now: the mean over blocks of (set bits/512)^k,
  // the exact probability that a random absent key hits. O(bytes).
  [[nodiscard]] double estimated_fpr() const noexcept;

  // Bitwise OR / AND with a filter of the same shape. Throws
  // std::invalid_argument naming the differing parameter (blocks or hashes).
  void union_with(const BlockedBloom& other);
  void intersect_with(const BlockedBloom& other);
  void clear() noexcept;

  // Raw words for serialization: blocks()*8 words, block b = words [8b, 8b+8),
  // bit i of a block = bit (i % 64) of word (i / 64). Host byte order.
  [[nodiscard]] std::span<const uint64_t> words() const noexcept {
    return {words_.get(), static_cast<size_t>(blocks_ * kWordsPerBlock)};
  }
  [[nodiscard]] std::span<uint64_t> words() noexcept {
    return {words_.get(), static_cast<size_t>(blocks_ * kWordsPerBlock)};
  }

 private:
  [[nodiscard]] uint64_t block_of(uint64_t h) const noexcept {
    __extension__ typedef unsigned __int128 wide;
    return static_cast<uint64_t>((static_cast<wide>(h) * blocks_) >> 64);
  }
  void check_same_shape(const BlockedBloom& other, const char* op) const;

  std::unique_ptr<uint64_t[], detail::TableFree> words_;
  uint64_t blocks_ = 0;
  unsigned hashes_ = 0;
};

// ---------------------------------------------------------------------------
// ScalableBloom (Almeida, Baquero, Preguica & Hutchison 2007): a chain of
// BlockedBloom layers that grows when the newest layer reaches its capacity,
// keeping the compound false-positive rate below `fpr` for any number of keys.
struct ScalableBloomParams {
  // Keys the first layer holds at its target rate; >= 1.
  uint64_t initial_capacity = uint64_t{1} << 20;
  // Target compound false-positive rate P, in (0, 1).
  double fpr = 0.01;
  // s: layer capacity ratio; 2 or 4 (any value in [1.25, 16] is accepted).
  double growth = 2.0;
  // r: layer i has target P0 * r^i with P0 = P * (1 - r); in (0, 1).
  double tightening = 0.85;
  // When > 0: layer 0 takes this share of P, and layers i >= 1 split the
  // rest as P * (1 - first_share) * (1 - r) * r^(i-1). For a first layer
  // sized from a good estimate, which normally stays alone. In [0, 1).
  double first_share = 0;
  // Layer i >= 1 holds initial * s * i keys instead of initial * s^i.
  bool linear_growth = false;
  // Throws std::invalid_argument naming the first bad field.
  void validate() const;
  // Capacity and target rate of layer i under these parameters.
  [[nodiscard]] uint64_t layer_capacity(size_t i) const;
  [[nodiscard]] double layer_fpr(size_t i) const;
};

// Per-layer statistics (bits_set and estimated_fpr scan the layer: O(bytes)).
struct BloomLayerInfo {
  uint64_t capacity = 0;      // keys the layer was sized for
  double target_fpr = 0;      // P0 * r^i
  uint64_t bits = 0;          // filter size in bits
  unsigned hashes = 0;        // bits set per key
  uint64_t keys = 0;          // keys counted as newly inserted into this layer
  uint64_t bits_set = 0;      // popcount
  double estimated_fpr = 0;   // from the current fill
};

// ScalableBloom: a chain of BlockedBloom layers, each larger and tighter, so
// the compound false-positive rate stays under the target whatever the number
// of keys. Growth, memory cost and sizing advice: docs/scalable-chain.md.
//
// Thread safety: test_and_set(), insert(), contains() and prefetch() may run
// concurrently; the hot path is lock-free and adding a layer takes a mutex. A
// key is never lost (lookups check every layer); per-layer key counts may
// overcount slightly under races. Statistics are approximate while inserts
// run; moving needs exclusive access.
class ScalableBloom {
 public:
  static constexpr size_t kMaxLayers = 64;

  // One layer as saved in a file (see bloom_file.hpp).
  struct RestoredLayer {
    BlockedBloom filter;
    uint64_t capacity = 0;
    double target_fpr = 0;
    uint64_t keys = 0;
  };

  // Creates the first layer. Throws std::invalid_argument on bad params.
  explicit ScalableBloom(const ScalableBloomParams& params);
  // Rebuilds a chain from saved layers (1..kMaxLayers, non-empty filters).
  static ScalableBloom from_layers(const ScalableBloomParams& params,
                                   std::vector<RestoredLayer> layers);

  ScalableBloom(ScalableBloom&& other) noexcept;
  ScalableBloom& operator=(ScalableBloom&& other) noexcept;
  ScalableBloom(const ScalableBloom&) = delete;
  ScalableBloom& operator=(const ScalableBloom&) = delete;
  ~ScalableBloom();

  // True if the key was (probably) present in some layer; otherwise inserts it
  // into the newest layer (adding a layer first if that one is full). Throws
  // only when a new layer cannot be created: std::bad_alloc, or
  // std::invalid_argument past BlockedBloom::kMaxBlocks.
  bool test_and_set(uint64_t h);
  // The same for a chain only the calling thread touches (a partition's gate):
  // no atomic read-modify-write on the words or the layer's key count. Inline
  // while the first layer has room (a gate sized from a good estimate never
  // grows); test_and_set_in_chain otherwise. The whole chain inline (even
  // forced) costs 1% more instructions than this path: g++ keeps it a call.
  bool test_and_set_exclusive(uint64_t h) {
    if (nlayers_.load(std::memory_order_relaxed) == 1) {
      Layer& only = *slots_[0];
      const uint64_t keys = only.count.load(std::memory_order_relaxed);
      if (keys < only.capacity) {
        if (only.filter.test_and_set_exclusive(h)) return true;
        only.count.store(keys + 1, std::memory_order_relaxed);
        return false;
      }
    }
    return test_and_set_exclusive_slow(h);
  }
  void insert(uint64_t h) { (void)test_and_set(h); }
  // Newest layer first (recent keys are likelier to repeat).
  [[nodiscard]] bool contains(uint64_t h) const noexcept;
  // Prefetches the key's block in the newest layer.
  void prefetch(uint64_t h) const noexcept {
    slots_[nlayers_.load(std::memory_order_acquire) - 1]->filter.prefetch(h);
  }

  [[nodiscard]] size_t layers() const noexcept {
    return nlayers_.load(std::memory_order_acquire);
  }
  // Layer i (0 = oldest), i < layers(). The reference stays valid while this
  // object lives.
  [[nodiscard]] const BlockedBloom& layer(size_t i) const;
  // Statistics of layer i; with scan_fill = false, bits_set and estimated_fpr
  // are left 0 and the call is O(1).
  [[nodiscard]] BloomLayerInfo layer_info(size_t i, bool scan_fill = true) const;
  [[nodiscard]] const ScalableBloomParams& params() const noexcept { return params_; }

  // Exact memory of the filters: sum of layer bytes().
  [[nodiscard]] uint64_t bytes() const noexcept;
  // Sum of per-layer key counts (keys that set a new bit).
  [[nodiscard]] uint64_t keys_inserted() const noexcept;
  // Compound rate 1 - prod_i (1 - estimated_fpr_i). O(bytes).
  [[nodiscard]] double estimated_fpr() const noexcept;
  // Sum of the layers' estimated_keys(). O(bytes).
  [[nodiscard]] double estimated_keys() const noexcept;

 private:
  struct Layer {
    Layer(BlockedBloom f, uint64_t cap, double target, uint64_t keys)
        : filter(std::move(f)), capacity(cap), target_fpr(target), count(keys) {}
    BlockedBloom filter;
    uint64_t capacity;
    double target_fpr;
    std::atomic<uint64_t> count;
  };
  ScalableBloom();
  void grow(size_t seen_layers);
  bool test_and_set_exclusive_slow(uint64_t h);
  template <bool Exclusive>
  bool test_and_set_in_chain(uint64_t h);

  ScalableBloomParams params_;
  std::array<std::unique_ptr<Layer>, kMaxLayers> slots_;  // null; no {} (needs Layer complete under clang)
  std::atomic<size_t> nlayers_{0};
  std::mutex grow_mutex_;
};

}  // namespace kmerbloom
