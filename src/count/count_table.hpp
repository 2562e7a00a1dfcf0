// Exact k-mer counts in a concurrent open-addressing hash table: keys as 1, 2,
// 4 or 8 64-bit words a slot, probed linearly, and a parallel array of 32-bit
// counts (saturating at 2^32 - 1) that exists only once counts are wanted
// (enable_counts). `kmerbloom filter` keeps its solid k-mers in one;
// `count` uses the per-partition tables of count/partition_table.hpp.
// Layout and growth: docs/partitioned-counting.md.
//
// Thread safety: find, insert and add_count are lock-free. Code that inserts,
// or looks up while another thread may insert, runs inside with_room(n, f),
// which makes room for n new keys (growing exclusively) and keeps the arrays
// in place while f runs. Memory: owned, table_alloc (huge pages).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/huge_pages.hpp"
#include "kmer/hash.hpp"

namespace kmerbloom {

template <class W>
class CountTable {
  static_assert(sizeof(W) % 8 == 0 && std::is_trivially_copyable_v<W>);

 public:
  static constexpr unsigned kWords = sizeof(W) / 8;  // 64-bit words per key
  static constexpr double kMaxLoad = 0.8;
  static constexpr uint64_t kMinSlots = uint64_t{1} << 14;
  static constexpr uint64_t kNone = ~uint64_t{0};  // find(): no such key

  explicit CountTable(uint64_t expected_keys = 0, bool with_counts = true)
      : CountTable(Slots{slots_for(expected_keys)}, with_counts) {}

  // Bytes of a table sized for expected_keys.
  static uint64_t bytes_for(uint64_t expected_keys, bool with_counts = true) {
    return slots_for(expected_keys) * slot_bytes(with_counts);
  }

  // Runs f() with room for max_new keys inserted by f (by this thread)
  // without growth, and the arrays kept in place while f runs. f returns the
  // number of keys it inserted. When the room is not there, f runs alone,
  // after growth if needed, once every other thread has left its with_room.
  template <class F>
  void with_room(uint64_t max_new, F&& f) {
    {
      std::shared_lock lock(grow_mu_);
      const uint64_t reserved = reserved_.fetch_add(max_new, std::memory_order_relaxed) + max_new;
      if (used_.load(std::memory_order_relaxed) + reserved <= limit_) {
        struct Release {
          CountTable* t;
          uint64_t n;
          uint64_t inserted = 0;
          ~Release() {
            t->used_.fetch_add(inserted, std::memory_order_relaxed);
            t->reserved_.fetch_sub(n, std::memory_order_relaxed);
          }
        } release{this, max_new};
        release.inserted = f();
        return;
      }
      reserved_.fetch_sub(max_new, std::memory_order_relaxed);
    }
    // Alone in the table (every other with_room has returned): grow if
    // needed and run f here, so that other threads' reservations cannot keep
    // this one waiting.
    std::unique_lock lock(grow_mu_);
    while (used_.load(std::memory_order_relaxed) + max_new > limit_) grow();
    used_.fetch_add(f(), std::memory_order_relaxed);
  }

  // Slot of key, or kNone.
  uint64_t find(W key, uint64_t hash) const {
    for (uint64_t i = home(hash);; i = next(i)) {
      const Probe p = probe(i, key);
      if (p == Probe::match) return i;
      if (p == Probe::empty) return kNone;
    }
  }

  // Slot of key, inserting it if absent; *inserted says which. Inside
  // with_room.
  uint64_t insert(W key, uint64_t hash, bool* inserted) {
    for (uint64_t i = home(hash);; i = next(i)) {
      Probe p = probe(i, key);
      if (p == Probe::empty) {
        if (claim(i, key)) {
          *inserted = true;
          return i;
        }
        p = probe(i, key);  // another thread took the slot: with this key?
      }
      if (p == Probe::match) {
        *inserted = false;
        return i;
      }
    }
  }

  // Adds n to the count of the key in slot i (counts enabled).
  void add_count(uint64_t i, uint32_t n = 1) {
    std::atomic_ref<uint32_t> c(counts_[i]);
    const uint32_t old = c.fetch_add(n, std::memory_order_relaxed);
    // Wrapped past 2^32 - 1: saturate. Any add after this one also wraps
    // (from the maximum) and stores the maximum again.
    constexpr uint32_t kMax = std::numeric_limits<uint32_t>::max();
    if (old > kMax - n) c.store(kMax, std::memory_order_relaxed);
  }

  // Starts loading the key's home slot (and its count) into the cache.
  void prefetch(uint64_t hash) const {
    const uint64_t i = home(hash);
    __builtin_prefetch(keys_.get() + i * kWords);
    if (counts_) __builtin_prefetch(counts_.get() + i);
  }

  // Adds a zeroed count to every key, if there are no counts yet. Not while
  // other threads use the table.
  void enable_counts() {
    if (counts_) return;
    counts_.reset(static_cast<uint32_t*>(detail::table_alloc(capacity_ * sizeof(uint32_t))));
    std::memset(counts_.get(), 0, capacity_ * sizeof(uint32_t));
  }
  bool has_counts() const { return counts_ != nullptr; }

  // Conveniences, each call on its own (thread-safe, slower than batching).
  void add(W key, uint32_t n = 1) { add_hashed(key, hash_kmer(key), n); }
  void add_hashed(W key, uint64_t hash, uint32_t n = 1) {
    with_room(1, [&] {
      bool inserted = false;
      add_count(insert(key, hash, &inserted), n);
      return uint64_t{inserted};
    });
  }
  // Count of key, 0 when absent. Not while another thread inserts.
  uint32_t count(W key) const {
    const uint64_t i = find(key, hash_kmer(key));
    return i == kNone ? 0 : counts_[i];
  }

  // Calls f(key, count) for every key, in slot order. Not while other
  // threads use the table.
  template <class F>
  void for_each(F&& f) const {
    for (uint64_t i = 0; i < capacity_; ++i)
      if (!is_empty_word(hi_word(i))) f(key_at(i), counts_ ? counts_[i] : 0);
  }

  // Calls f(key, count) for every key with keep(count) true, in increasing
  // key order, and empties the table (its memory is freed on return). Moves
  // the kept keys to the front, places them into 4096 buckets by their
  // leading bits (in place, keys and counts together), then sorts each
  // bucket in a small buffer: no second copy of the table.
  template <class Keep, class F>
  void drain_sorted(Keep&& keep, F&& f) {
    enable_counts();
    uint64_t n = 0;
    W all_bits = 0;
    for (uint64_t i = 0; i < capacity_; ++i) {
      if (is_empty_word(hi_word(i)) || !keep(counts_[i])) continue;
      const W key = key_at(i);
      all_bits |= key;
      set_key(n, key);
      counts_[n++] = counts_[i];
    }
    constexpr unsigned kDigitBits = 12;
    constexpr size_t kBuckets = size_t{1} << kDigitBits;
    const unsigned width = bit_width(all_bits);
    const unsigned shift = width > kDigitBits ? width - kDigitBits : 0;
    auto digit = [&](uint64_t i) { return static_cast<size_t>(key_at(i) >> shift); };
    std::vector<uint64_t> start(kBuckets + 1, 0);  // bucket b is [start[b], start[b + 1])
    for (uint64_t i = 0; i < n; ++i) ++start[digit(i) + 1];
    for (size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
    std::vector<uint64_t> fill(start.begin(), start.end() - 1);
    for (size_t b = 0; b < kBuckets; ++b) {  // American flag sort, one level
      while (fill[b] < start[b + 1]) {
        const size_t d = digit(fill[b]);
        if (d == b) {
          ++fill[b];
          continue;
        }
        const uint64_t j = fill[d]++;
        const W kj = key_at(j);
        set_key(j, key_at(fill[b]));
        set_key(fill[b], kj);
        std::swap(counts_[j], counts_[fill[b]]);
      }
    }
    std::vector<std::pair<W, uint32_t>> bucket;
    for (size_t b = 0; b < kBuckets; ++b) {
      bucket.clear();
      for (uint64_t i = start[b]; i < start[b + 1]; ++i) bucket.emplace_back(key_at(i), counts_[i]);
      std::sort(bucket.begin(), bucket.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      for (const auto& [key, c] : bucket) f(key, c);
    }
    keys_.reset();
    counts_.reset();
    capacity_ = limit_ = 0;
    used_ = 0;
  }

  uint64_t size() const { return used_.load(std::memory_order_relaxed); }
  uint64_t capacity() const { return capacity_; }
  uint64_t bytes() const { return capacity_ * slot_bytes(counts_ != nullptr); }
  double load() const { return capacity_ ? static_cast<double>(size()) / static_cast<double>(capacity_) : 0.0; }

 private:
  enum class Probe { match, empty, other };
  static constexpr uint64_t kEmptyWord = ~uint64_t{0};
  static constexpr uint64_t kBusyWord = kEmptyWord - 1;  // a 128-bit key's slot being written

  static uint64_t slot_bytes(bool with_counts) { return sizeof(W) + (with_counts ? sizeof(uint32_t) : 0); }
  static uint64_t slots_for(uint64_t keys) {
    return std::max(kMinSlots, static_cast<uint64_t>(static_cast<double>(keys) / kMaxLoad) + 1);
  }
  static bool is_empty_word(uint64_t w) { return w == kEmptyWord; }
  static unsigned bit_width(W x) { return word_bit_width(x); }

  // A table of exactly `slots` slots, all empty.
  struct Slots {
    uint64_t n;
  };
  CountTable(Slots slots, bool with_counts) {
    keys_.reset(static_cast<uint64_t*>(detail::table_alloc(slots.n * sizeof(W))));
    std::fill_n(keys_.get(), slots.n * kWords, kEmptyWord);
    capacity_ = slots.n;
    limit_ = static_cast<uint64_t>(static_cast<double>(slots.n) * kMaxLoad);
    if (with_counts) enable_counts();
  }

  uint64_t home(uint64_t hash) const { return static_cast<uint64_t>((static_cast<u128>(hash) * capacity_) >> 64); }
  uint64_t next(uint64_t i) const { return i + 1 == capacity_ ? 0 : i + 1; }

  // The word that marks a slot empty, busy or taken.
  uint64_t& hi_ref(uint64_t i) const { return keys_[i * kWords + kWords - 1]; }
  uint64_t hi_word(uint64_t i) const { return std::atomic_ref<uint64_t>(hi_ref(i)).load(std::memory_order_acquire); }
  // A key's words, low first (the layout of W on a little-endian machine).
  static uint64_t word_of(const W& key, unsigned j) {
    uint64_t x;
    std::memcpy(&x, reinterpret_cast<const char*>(&key) + 8 * j, 8);
    return x;
  }
  W key_at(uint64_t i) const {
    W key;
    std::memcpy(static_cast<void*>(&key), keys_.get() + i * kWords, sizeof(W));
    return key;
  }
  void set_key(uint64_t i, W key) { std::memcpy(keys_.get() + i * kWords, &key, sizeof(W)); }

  Probe probe(uint64_t i, W key) const {
    uint64_t hi = hi_word(i);
    if constexpr (kWords > 1) {
      while (hi == kBusyWord) {  // another thread is writing this slot's key
        __builtin_ia32_pause();
        hi = hi_word(i);
      }
    }
    if (hi == kEmptyWord) return Probe::empty;
    if constexpr (kWords == 1) {
      return hi == key ? Probe::match : Probe::other;
    } else {
      if (hi != word_of(key, kWords - 1)) return Probe::other;
      // Written before the high word was published (acquired above).
      for (unsigned j = 0; j + 1 < kWords; ++j)
        if (std::atomic_ref<uint64_t>(keys_[i * kWords + j]).load(std::memory_order_relaxed) != word_of(key, j))
          return Probe::other;
      return Probe::match;
    }
  }

  // Takes the empty slot i for key; false if another thread took it first.
  bool claim(uint64_t i, W key) {
    std::atomic_ref<uint64_t> hi(hi_ref(i));
    uint64_t expected = kEmptyWord;
    if constexpr (kWords == 1) {
      return hi.compare_exchange_strong(expected, key, std::memory_order_release, std::memory_order_relaxed);
    } else {
      if (!hi.compare_exchange_strong(expected, kBusyWord, std::memory_order_acquire, std::memory_order_relaxed))
        return false;
      for (unsigned j = 0; j + 1 < kWords; ++j)
        std::atomic_ref<uint64_t>(keys_[i * kWords + j]).store(word_of(key, j), std::memory_order_relaxed);
      hi.store(word_of(key, kWords - 1), std::memory_order_release);
      return true;
    }
  }

  // Doubles the capacity. Under the exclusive lock.
  void grow() {
    CountTable bigger(Slots{2 * capacity_}, counts_ != nullptr);
    for (uint64_t i = 0; i < capacity_; ++i) {
      if (is_empty_word(hi_ref(i))) continue;
      const W key = key_at(i);
      bool inserted = false;
      const uint64_t j = bigger.insert(key, hash_kmer(key), &inserted);
      if (counts_) bigger.counts_[j] = counts_[i];
    }
    keys_ = std::move(bigger.keys_);
    counts_ = std::move(bigger.counts_);
    capacity_ = bigger.capacity_;
    limit_ = bigger.limit_;
  }

  std::unique_ptr<uint64_t[], detail::TableFree> keys_;
  std::unique_ptr<uint32_t[], detail::TableFree> counts_;
  uint64_t capacity_ = 0;
  uint64_t limit_ = 0;  // kMaxLoad * capacity_
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> reserved_{0};  // room promised to running with_room calls
  std::shared_mutex grow_mu_;
};

}  // namespace kmerbloom
