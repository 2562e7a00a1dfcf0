// A small exact count table for one partition, used by one thread.
//
// Open addressing, linear probing from the top bits of hash_kmer(key), keys
// and 32-bit counts in parallel arrays, capacity a power of two, at most 70%
// full (it doubles past that). The all-ones word is the empty marker: no
// k-mer (at most 32 bases a 64-bit word, less one) has its top two bits set.
// Sized for one partition it stays near the core (L2, or L3 for the densest
// partitions, whose slots the gate prefetches) and needs no atomics. Counts
// saturate at 2^32 - 1.
//
// A sketch of the keys goes with it: a byte a slot, each key three bits of
// one 64-bit word (a Bloom filter blocked to a register; at the table's
// 35-70% load some 11-23 bits a key). may_hold() is false only for a key the
// table lacks, and true for an absent one at the rate of
// sketch_false_positive_rate(): a look-up that will mostly miss asks the
// sketch (one word, in L2) before the table (a line past it). On HiFi-like
// reads the exact mode settles 332 M turned-away first sightings, 87% of
// them in no table.
//
// Thread safety: none; one table per thread, reset() between partitions
// reuses its memory.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "kmer/hash.hpp"

namespace kmerbloom {

template <class W>
class PartitionTable {
 public:
  static constexpr uint64_t kNone = ~uint64_t{0};
  static constexpr double kMaxLoad = 0.7;

  explicit PartitionTable(uint64_t expected_keys = 0) { reset(expected_keys); }

  // Empties the table, sized for expected_keys.
  void reset(uint64_t expected_keys) {
    const uint64_t want = std::bit_ceil(std::max<uint64_t>(64, static_cast<uint64_t>(static_cast<double>(expected_keys) / kMaxLoad) + 1));
    if (keys_.capacity() > 2 * want) {  // a table grown for one partition is not kept for all
      std::vector<W>().swap(keys_);
      std::vector<uint32_t>().swap(counts_);
    }
    keys_.assign(want, kEmpty);
    counts_.assign(want, 0);
    set_capacity(want);
    size_ = 0;
  }

  // False if no key has this hash; true for every key of the table.
  bool may_hold(uint64_t hash) const {
    const uint64_t bits = sketch_bits(hash);
    return (sketch_[sketch_word(hash)] & bits) == bits;
  }

  // Slot of key, or kNone.
  uint64_t find(W key, uint64_t hash) const {
    for (uint64_t i = hash >> shift_;; i = (i + 1) & mask_) {
      if (keys_[i] == key) return i;
      if (keys_[i] == kEmpty) return kNone;
    }
  }

  // Slot of key, inserted with count 0 if absent.
  uint64_t insert(W key, uint64_t hash) {
    if (size_ + 1 > limit_) grow();
    uint64_t i = hash >> shift_;
    for (;; i = (i + 1) & mask_) {
      if (keys_[i] == key) return i;
      if (keys_[i] == kEmpty) break;
    }
    keys_[i] = key;
    sketch_[sketch_word(hash)] |= sketch_bits(hash);
    ++size_;
    return i;
  }

  // Starts loading the home slot of a key with this hash (and its count).
  void prefetch(uint64_t hash) const {
    __builtin_prefetch(keys_.data() + (hash >> shift_));
    __builtin_prefetch(counts_.data() + (hash >> shift_));
  }

  void add_count(uint64_t slot, uint32_t n = 1) {
    uint32_t& c = counts_[slot];
    c = c > std::numeric_limits<uint32_t>::max() - n ? std::numeric_limits<uint32_t>::max() : c + n;
  }
  uint32_t count_at(uint64_t slot) const { return counts_[slot]; }
  void zero_counts() { std::fill(counts_.begin(), counts_.end(), 0); }

  // f(slot, key, count) for every slot in order, the empty ones too
  // (is_empty(key), count 0): a walk that branched on them would
  // mispredict at the table's 35-70% load.
  template <class F>
  void for_each_slot(F&& f) const {
    for (uint64_t i = 0; i < keys_.size(); ++i) f(i, keys_[i], counts_[i]);
  }
  static bool is_empty(const W& key) { return key == kEmpty; }

  uint64_t size() const { return size_; }
  uint64_t capacity() const { return keys_.size(); }
  uint64_t bytes() const { return keys_.size() * kSlotBytes; }
  // Bytes allocated (reset() keeps the largest table's memory).
  uint64_t held_bytes() const {
    return keys_.capacity() * sizeof(W) + counts_.capacity() * sizeof(uint32_t) + sketch_.capacity() * sizeof(uint64_t);
  }
  // A slot's bytes: its key, count and share of the sketch.
  static constexpr uint64_t kSlotBytes = sizeof(W) + sizeof(uint32_t) + 1;

  // The chance that may_hold() is true for a key the table lacks, at
  // `keys` keys in a table of `slots` slots: the words hold Poisson(l)
  // keys, l = keys / (slots / 8), and a word of j keys has each bit set with
  // chance 1 - (63/64)^(3j).
  static double sketch_false_positive_rate(uint64_t keys, uint64_t slots) {
    const double l = static_cast<double>(keys) / static_cast<double>(std::max<uint64_t>(kMinSketchWords, slots / 8));
    double p = std::exp(-l), rate = 0;  // p: Poisson(j; l)
    for (unsigned j = 0; j < 1000 && (j <= l || p > 1e-12); ++j) {
      rate += p * std::pow(1 - std::pow(63.0 / 64.0, 3.0 * j), 3.0);
      p *= l / (j + 1);
    }
    return rate;
  }

 private:
  static constexpr W kEmpty = ~W{0};
  static constexpr uint64_t kMinSketchWords = 8;

  // The slot comes from the hash's top bits; the sketch's word from bits 18
  // up and its three bits from bits 0-17.
  uint64_t sketch_word(uint64_t hash) const { return (hash >> 18) & sketch_mask_; }
  static uint64_t sketch_bits(uint64_t hash) {
    return uint64_t{1} << (hash & 63) | uint64_t{1} << ((hash >> 6) & 63) | uint64_t{1} << ((hash >> 12) & 63);
  }

  // The capacity, and an empty sketch for it.
  void set_capacity(uint64_t slots) {
    mask_ = slots - 1;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(slots));
    limit_ = static_cast<uint64_t>(static_cast<double>(slots) * kMaxLoad);
    const uint64_t words = std::max<uint64_t>(kMinSketchWords, slots / 8);
    if (sketch_.capacity() > 2 * words) std::vector<uint64_t>().swap(sketch_);
    sketch_.assign(words, 0);
    sketch_mask_ = words - 1;
  }

  // Hash of a stored key: the table keeps no hashes.
  void grow() {
    std::vector<W> keys(keys_.size() * 2, kEmpty);
    std::vector<uint32_t> counts(keys.size(), 0);
    std::swap(keys, keys_);
    std::swap(counts, counts_);
    set_capacity(keys_.size());
    for (uint64_t j = 0; j < keys.size(); ++j) {
      if (keys[j] == kEmpty) continue;
      const uint64_t h = hash_kmer(keys[j]);
      uint64_t i = h >> shift_;
      while (keys_[i] != kEmpty) i = (i + 1) & mask_;
      keys_[i] = keys[j];
      counts_[i] = counts[j];
      sketch_[sketch_word(h)] |= sketch_bits(h);
    }
  }

  std::vector<W> keys_;
  std::vector<uint32_t> counts_;
  std::vector<uint64_t> sketch_;  // a byte a slot (may_hold)
  uint64_t mask_ = 0, limit_ = 0, size_ = 0, sketch_mask_ = 0;
  unsigned shift_ = 64;
};

}  // namespace kmerbloom
