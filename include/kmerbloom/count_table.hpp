// Exact k-mer counts in a concurrent hash table.
//
// The table is split into 4096 shards chosen by the top bits of the k-mer's
// 64-bit hash; each shard is an open-addressing array (linear probing) with
// its own spin lock, and grows by doubling when it passes 70% load, so only
// that shard pauses. Sized from the expected number of keys, it never grows
// when the estimate was right. The shards' first arrays share one block of
// transparent huge pages (huge_pages.hpp): every probe is a random access, and
// with 4 KiB pages nearly every one would also miss the TLB.
//
// Entries are packed (key, 32-bit count); counts saturate at 2^32 - 1. The
// all-ones word is the empty marker, which no k-mer can equal (see kmer.hpp).
//
// Every key is placed by hash_kmer(key) (hash.hpp).
//
// Thread safety: add() may be called from any number of threads at once.
// add_if_present() may be called concurrently with itself but not with add():
// it is for a second, exact pass over a frozen key set;
// add_if_present_locked() may run alongside add().
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <queue>
#include <vector>

#include "kmerbloom/hash.hpp"
#include "kmerbloom/huge_pages.hpp"

namespace kmerbloom {

template <class W>
class CountTable {
 public:
#pragma pack(push, 4)
  struct Entry {
    W key;
    uint32_t count;
  };
#pragma pack(pop)

  static constexpr W kEmpty = ~W(0);
  static constexpr unsigned kShardBits = 12;
  static constexpr double kMaxLoad = 0.7;

  explicit CountTable(uint64_t expected_keys = 0) : shards_(size_t(1) << kShardBits) {
    const uint64_t cap = shard_capacity(expected_keys);
    arena_.reset(static_cast<Entry*>(detail::table_alloc(cap * sizeof(Entry) * shards_.size())));
    for (size_t i = 0; i < shards_.size(); ++i) shards_[i].place(arena_.get() + i * cap, cap);
  }

  // Bytes a table sized for expected_keys takes before any growth.
  static uint64_t bytes_for(uint64_t expected_keys) {
    return (shard_capacity(expected_keys) * sizeof(Entry) + sizeof(Shard)) << kShardBits;
  }

  // Adds n to key's count, inserting the key if it is new.
  void add(W key, uint32_t n = 1) { add_hashed(key, hash_kmer(key), n); }

  // As add(), with hash == hash_kmer(key) already computed by the caller.
  void add_hashed(W key, uint64_t hash, uint32_t n = 1) {
    Shard& s = shard(hash);
    s.lock();
    if (static_cast<double>(s.used + 1) > static_cast<double>(s.capacity) * kMaxLoad) s.grow();
    Entry& e = s.find_or_empty(key, hash);
    if (e.key == key) {
      e.count = saturating_add(e.count, n);
    } else {
      e.key = key;
      e.count = n;
      ++s.used;
    }
    s.unlock();
  }

  // Adds n to key's count if the key is present; returns whether it was.
  // Takes the shard lock, so it may run concurrently with add().
  bool add_if_present_locked(W key, uint64_t hash, uint32_t n = 1) {
    Shard& s = shard(hash);
    s.lock();
    Entry& e = s.find_or_empty(key, hash);
    const bool found = e.key == key;
    if (found) e.count = saturating_add(e.count, n);
    s.unlock();
    return found;
  }

  // As add_if_present_locked(), without the lock: only while no add() runs.
  bool add_if_present(W key, uint32_t n = 1) { return add_if_present_hashed(key, hash_kmer(key), n); }

  bool add_if_present_hashed(W key, uint64_t hash, uint32_t n = 1) {
    Shard& s = shard(hash);
    Entry& e = s.find_or_empty(key, hash);
    if (e.key != key) return false;
    std::atomic_ref<uint32_t> c(e.count);
    uint32_t old = c.load(std::memory_order_relaxed);
    while (!c.compare_exchange_weak(old, saturating_add(old, n), std::memory_order_relaxed)) {
    }
    return true;
  }

  // Count of key, 0 when absent. Not safe concurrently with add().
  uint32_t count(W key) const {
    const uint64_t hash = hash_kmer(key);
    const Entry& e = const_cast<CountTable*>(this)->shard(hash).find_or_empty(key, hash);
    return e.key == key ? e.count : 0;
  }

  // Starts loading the slot of hash == hash_kmer(key), so that a later
  // add_hashed() finds it in cache.
  void prefetch_hashed(uint64_t hash) const {
    // Runs without the shard lock while another thread may grow the shard:
    // read the two fields atomically; a stale pair only prefetches in vain.
    Shard& s = const_cast<Shard&>(shards_[hash >> (64 - kShardBits)]);
    const Entry* base = std::atomic_ref<Entry*>(s.slots).load(std::memory_order_relaxed);
    const uint64_t cap = std::atomic_ref<uint64_t>(s.capacity).load(std::memory_order_relaxed);
    __builtin_prefetch(base + (((hash & 0xffffffffULL) * cap) >> 32));
  }

  // Sets every count to zero and keeps the keys (before an exact recount).
  void reset_counts() {
    for (auto& s : shards_)
      for (uint64_t i = 0; i < s.capacity; ++i) s.slots[i].count = 0;
  }

  // Calls f(key, count) for every entry, in no particular order.
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : shards_)
      for (uint64_t i = 0; i < s.capacity; ++i)
        if (s.slots[i].key != kEmpty) f(s.slots[i].key, s.slots[i].count);
  }

  // Calls f(key, count) for every entry with keep(count) true, in increasing
  // key order. Compacts and sorts each shard in place, then merges the
  // shards: no second copy of the table. The table is unusable afterwards.
  template <class Keep, class F>
  void drain_sorted(Keep&& keep, F&& f) {
    struct Run {
      const Entry* it;
      const Entry* end;
    };
    std::vector<Run> runs;
    runs.reserve(shards_.size());
    for (auto& s : shards_) {
      Entry* out = s.slots;
      for (uint64_t i = 0; i < s.capacity; ++i)
        if (s.slots[i].key != kEmpty && keep(s.slots[i].count)) *out++ = s.slots[i];
      std::sort(s.slots, out, [](const Entry& a, const Entry& b) { return a.key < b.key; });
      if (out != s.slots) runs.push_back({s.slots, out});
      s.used = 0;
    }
    auto later = [](const Run& a, const Run& b) { return a.it->key > b.it->key; };
    std::priority_queue<Run, std::vector<Run>, decltype(later)> heap(later, std::move(runs));
    while (!heap.empty()) {
      Run r = heap.top();
      heap.pop();
      f(r.it->key, r.it->count);
      if (++r.it != r.end) heap.push(r);
    }
    for (auto& s : shards_) s.clear();
    arena_.reset();
  }

  uint64_t size() const {
    uint64_t n = 0;
    for (const auto& s : shards_) n += s.used;
    return n;
  }
  uint64_t capacity() const {
    uint64_t n = 0;
    for (const auto& s : shards_) n += s.capacity;
    return n;
  }
  uint64_t bytes() const { return capacity() * sizeof(Entry) + shards_.size() * sizeof(Shard); }
  double load() const { return capacity() ? static_cast<double>(size()) / static_cast<double>(capacity()) : 0.0; }

 private:
  // Room for an even share of the keys below kMaxLoad, with 5% for the
  // unevenness of shares.
  static uint64_t shard_capacity(uint64_t expected_keys) {
    const double per_shard = static_cast<double>(expected_keys >> kShardBits);
    return std::max<uint64_t>(16, static_cast<uint64_t>(per_shard / kMaxLoad * 1.05) + 1);
  }

  static uint32_t saturating_add(uint32_t a, uint32_t b) {
    const uint32_t s = a + b;
    return s < a ? std::numeric_limits<uint32_t>::max() : s;
  }

  struct alignas(64) Shard {
    std::atomic<bool> locked{false};
    uint64_t capacity = 0;
    uint64_t used = 0;
    // In the table's arena, or `owned` after growth. Written atomically, so
    // that prefetch_hashed() may read it without the lock.
    Entry* slots = nullptr;
    std::unique_ptr<Entry[]> owned;  // the array after the shard grew

    // Uses the cap entries at p (not owned) as the empty shard.
    void place(Entry* p, uint64_t cap) {
      for (uint64_t i = 0; i < cap; ++i) p[i] = Entry{kEmpty, 0};
      std::atomic_ref<Entry*>(slots).store(p, std::memory_order_relaxed);
      std::atomic_ref<uint64_t>(capacity).store(cap, std::memory_order_relaxed);
      used = 0;
    }
    void allocate(uint64_t cap) {
      owned.reset(new Entry[cap]);
      place(owned.get(), cap);
    }
    void clear() {
      std::atomic_ref<Entry*>(slots).store(nullptr, std::memory_order_relaxed);
      std::atomic_ref<uint64_t>(capacity).store(0, std::memory_order_relaxed);
      owned.reset();
      used = 0;
    }
    uint64_t slot_of(uint64_t hash) const { return ((hash & 0xffffffffULL) * capacity) >> 32; }
    Entry& find_or_empty(W key, uint64_t hash) {
      uint64_t i = slot_of(hash);
      for (;;) {
        Entry& e = slots[i];
        if (e.key == key || e.key == kEmpty) return e;
        if (++i == capacity) i = 0;
      }
    }
    void lock() {
      for (;;) {
        if (!locked.exchange(true, std::memory_order_acquire)) return;
        while (locked.load(std::memory_order_relaxed)) __builtin_ia32_pause();
      }
    }
    void unlock() { locked.store(false, std::memory_order_release); }
    void grow() {
      std::unique_ptr<Entry[]> old_owned = std::move(owned);  // freed on return; arena memory stays
      const Entry* old = slots;
      const uint64_t old_cap = capacity;
      allocate(2 * old_cap);
      for (uint64_t i = 0; i < old_cap; ++i) {
        if (old[i].key == kEmpty) continue;
        find_or_empty(old[i].key, hash_kmer(old[i].key)) = old[i];
        ++used;
      }
    }
  };

  Shard& shard(uint64_t hash) { return shards_[hash >> (64 - kShardBits)]; }

  std::vector<Shard> shards_;
  std::unique_ptr<Entry[], detail::TableFree> arena_;  // the shards' first arrays
};

}  // namespace kmerbloom
