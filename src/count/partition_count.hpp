// Counting one partition: its k-mers, read once from the partition's
// super-k-mers in memory, go through the partition's own Bloom filter and
// table (both small enough for a core's L2 cache). Three modes: gated exact
// (first sightings turned away by the gate are looked up once at the end, so
// every count and histogram row 1 are exact) and no gate. How the exact mode accounts for each sighting:
// docs/partitioned-counting.md.
//
// Thread safety: a PartitionCounter belongs to one thread.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloom/bloom.hpp"
#include "common/select.hpp"
#include "count/partition_table.hpp"
#include "count/plan.hpp"
#include "count/counter.hpp"
#include "count/tuning.hpp"
#include "kmer/kmer.hpp"
#include "count/scatter.hpp"

namespace kmerbloom::detail {

// What one partition gave, kept by partition index so that sums over
// partitions (floating point ones too) come out the same for any thread count.
struct PartitionOutcome {
  uint64_t kmers = 0;     // occurrences counted (after --partition I/N)
  uint64_t distinct = 0;
  uint64_t solid = 0;     // reported: min_count <= count <= max_count
  size_t layers = 0;      // of the filter
  uint64_t table_keys = 0;
  uint64_t bloom_capacity = 0;  // the first layer's (summed over the sweeps)
  uint32_t sweeps = 1;          // sweep_of ranges it was counted in
  bool recounted = false;       // exact: its first sightings outgrew the list (read twice)
};

// Sums over the partitions one thread counted (integers: any order).
struct ThreadTotals {
  std::vector<uint64_t> histogram;
  uint64_t max_count = 0;
  uint64_t table_capacity = 0, table_bytes = 0;  // capacity summed, bytes of the largest
  uint64_t bloom_bytes = 0;                       // of the largest
  uint64_t keys_inserted = 0, gate_rejected = 0;
  std::vector<BloomReport::Layer> layers;  // summed; estimated_fpr summed, divided later
  std::vector<uint64_t> with_layer;        // partitions with layer i
  // The most the thread's counter held at once: the partition's data, the
  // filter, the table, the first sightings, the reported k-mers and the
  // sort's buckets (capacities: the counter keeps its buffers).
  uint64_t working_bytes = 0;
};

// The sweep (0..sweeps-1) of a k-mer hash: a mix of all its bits, apart from
// the top bits that place it in the table and filter and from partition_of.
inline uint32_t sweep_of(uint64_t h, uint32_t sweeps) {
  const uint64_t x = (h ^ (h >> 32)) * 0xd6e8feb86659fd93ULL;
  return static_cast<uint32_t>(((x >> 32) * sweeps) >> 32);
}

// A super-k-mer record's packed bytes are taken 8 at a time without
// reading past them: the last word is the last 8 bytes (overlapping the one
// before), and fewer than 8 bytes (k < 29) are one word, zero-filled. A
// copy or comparison of a length known only at run time is a call
// (memcmp was 1.6% of a HiFi-like run's samples, the hash's copies more).
inline uint64_t packed_word(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// f(at) for the offset of each word of `bytes` >= 8 bytes.
template <class F>
void each_packed_word(unsigned bytes, F&& f) {
  for (unsigned at = 0; at + 8 < bytes; at += 8) f(at);
  f(bytes - 8);
}

// True if the `bytes` bytes at a and b are the same.
inline bool same_packed(const uint8_t* a, const uint8_t* b, unsigned bytes) {
  if (bytes < 8) return std::memcmp(a, b, bytes) == 0;
  uint64_t differ = 0;
  each_packed_word(bytes, [&](unsigned at) { differ |= packed_word(a + at) ^ packed_word(b + at); });
  return differ == 0;
}

// 32 bits of a hash of a record of `len` bases, never 0 (an empty slot's
// in PartitionCounter's index of distinct records).
inline uint32_t record_tag(const uint8_t* code, unsigned len) {
  const unsigned bytes = (len + 3) / 4;
  uint64_t h = len * 0x9e3779b97f4a7c15ULL;
  const auto mix = [&h](uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  };
  if (bytes < 8) {
    uint64_t w = 0;
    std::memcpy(&w, code, bytes);
    mix(w);
  } else {
    each_packed_word(bytes, [&](unsigned at) { mix(packed_word(code + at)); });
  }
  return static_cast<uint32_t>((h * 0xc4ceb9fe1a85ec53ULL) >> 32) | 1;
}

template <class W>
class PartitionCounter {
 public:
  PartitionCounter(const CountOptions& o, const CountPlan& plan, ThreadTotals& totals)
      : o_(o), plan_(plan), t_(totals), shape_(o.k, o.canonical) {
    if (t_.histogram.empty()) t_.histogram.assign(o.histo_max + 2, 0);
  }

  // Counts `part` in `sweeps` sweeps (sweep s takes the k-mers of hash range
  // s, sweep_of, or of a tagged partition the records of tag range s,
  // tag_sweep, with a filter and table sized `size` of its own: a partition
  // that outgrew the cache is counted in parts that fit it, each reading the
  // partition's records again, and decoding them all when they carry no
  // tags); appends its reported k-mers,
  // sorted, with their counts, to `solid`. `occurrences`: the partition's
  // k-mer occurrences, which bound its first sightings.
  PartitionOutcome count(const LoadedPartition& part, uint64_t occurrences, const PartitionSizing& size,
                         uint32_t sweeps, std::vector<std::pair<W, uint32_t>>& solid) {
    PartitionOutcome out;
    occurrences_ = occurrences;
    sweeps_ = std::max(1u, sweeps);
    runs_.assign(1, solid.size());
    for (sweep_ = 0; sweep_ < sweeps_; ++sweep_) {
      count_sweep(part, size, out, solid);
      runs_.push_back(solid.size());
    }
    // Each sweep's run is sorted and no key is in two: merged pairwise
    // (linear rounds, where sorting them all again took 3% of a run whose
    // partitions went in up to 17 sweeps).
    const unsigned range_shift = 2 * shape_.k - merge_range_bits(shape_.k);  // grouped runs: by range only
    const auto by_range = [&](const auto& a, const auto& b) {  // range_shift unused for k > 31
      if constexpr (std::is_same_v<W, uint64_t>) return (a.first >> range_shift) < (b.first >> range_shift);
      else return a.first < b.first;
    };
    while (runs_.size() > 2) {
      size_t kept = 1;
      for (size_t i = 0; i + 2 < runs_.size(); i += 2, ++kept) {
        const auto at = [&](size_t j) { return solid.begin() + static_cast<std::ptrdiff_t>(runs_[j]); };
        if (plan_.grouped_runs) std::inplace_merge(at(i), at(i + 1), at(i + 2), by_range);
        else std::inplace_merge(at(i), at(i + 1), at(i + 2), by_key);
        runs_[kept] = runs_[i + 2];
      }
      if (runs_.size() % 2 == 0) runs_[kept++] = runs_.back();  // an odd run out, merged next round
      runs_.resize(kept);
    }
    return out;
  }

 private:
  static constexpr auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };

  // One sweep: its k-mers through the gate and table, its outcome added to `out`.
  void count_sweep(const LoadedPartition& part, const PartitionSizing& size, PartitionOutcome& out,
                   std::vector<std::pair<W, uint32_t>>& solid) {
    if (part.tagged || sweep_ == 0) distinct_records(part);  // untagged sweeps all take every record
    table_.reset(size.table_keys);
    out.bloom_capacity += size.bloom_capacity;
    uint64_t bloom_bytes = 0;
    if (!plan_.gated) {
      out.kmers += each_kmer(part, [&](W km, uint64_t h, uint32_t times) { table_.add_count(table_.insert(km, h), times); });
    } else {
      ScalableBloomParams bp;
      bp.fpr = plan_.fpr;
      bp.first_share = plan_.first_share;
      bp.growth = o_.bloom_growth;
      bp.initial_capacity = size.bloom_capacity;
      ScalableBloom bloom(bp);
      out.kmers += gate(part, bloom);
      out.recounted |= list_full_;
      const uint64_t once = list_full_ ? recount(part) : settle_turned_away();
      t_.histogram[1] += once;
      out.distinct += once;
      report_bloom(bloom);
      out.layers = std::max(out.layers, bloom.layers());
      bloom_bytes = bloom.bytes();
    }
    out.table_keys += table_.size();
    t_.table_capacity += table_.capacity();
    t_.table_bytes = std::max(t_.table_bytes, table_.bytes());
    collect(out, solid);
    t_.working_bytes = std::max(
        t_.working_bytes, part.data.capacity() + part.fragments.capacity() * sizeof(LoadedPartition::Fragment) +
                              bloom_bytes + table_.held_bytes() + turned_away_.capacity() * sizeof(W) +
                              solid.capacity() * sizeof(solid[0]) + buckets_.capacity() * sizeof(size_t) +
                              records_.capacity() * sizeof(Record) + index_.capacity() * sizeof(Slot));
  }

  // The partition's distinct records (of the current sweep when they are
  // tagged) and how often each occurs, in the order of their first
  // occurrence, into records_: at 25x coverage most super-k-mers are met
  // again whole in other reads (in 1.2 Gbp of 150 bp pairs of a 120 Mbp
  // diploid, 41% of the k-mer occurrences were in distinct records; 24% in
  // E. coli at 50x), and a record's k-mers then go through the gate once
  // with its count. The records and a 32-bit hash of each are listed
  // first, then looked up in an index at most two thirds full, its slots
  // prefetched eight records ahead (the index is past L2), the distinct
  // ones kept in place. 16 bytes a record and 12 to 24 of index: about 3
  // bytes a k-mer occurrence of 150 bp reads (10 k-mers a record).
  void distinct_records(const LoadedPartition& part) {
    records_.clear();
    for_each_record(part, shape_.k, [&](const uint8_t* code, unsigned len) {
      records_.push_back({code, len, record_tag(code, len)});  // times holds the tag until the record is placed
    }, sweeps_, sweep_);
    const size_t n = records_.size();
    const uint32_t mask = static_cast<uint32_t>(std::bit_ceil(n + n / 2 + 1) - 1);  // at most 2/3 full
    index_.assign(size_t{mask} + 1, Slot{});
    constexpr size_t kAhead = 8;
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i + kAhead < n) __builtin_prefetch(index_.data() + ((records_[i + kAhead].times >> 1) & mask));
      Record r = records_[i];
      const uint32_t tag = r.times;
      for (uint32_t j = (tag >> 1) & mask;; j = (j + 1) & mask) {
        Slot& slot = index_[j];
        if (slot.tag == 0) {
          slot = {tag, static_cast<uint32_t>(kept)};
          r.times = 1;
          records_[kept++] = r;
          break;
        }
        if (slot.tag == tag && same_bases(records_[slot.at], r)) {
          ++records_[slot.at].times;
          break;
        }
      }
    }
    records_.resize(kept);
  }

  // f(kmer, hash, times) for each k-mer of the partition's distinct records
  // (of --partition I/N's share, of the current sweep's hash range), in the
  // order of the records' first occurrence, with the times its record
  // occurs; returns the k-mer occurrences (each k-mer times its record's).
  template <class F>
  uint64_t each_kmer(const LoadedPartition& part, F&& f) {
    const W mask = shape_.mask;
    const unsigned top = shape_.top, k = shape_.k;
    const bool canonical = shape_.canonical, scatter = o_.partitions > 1;
    const uint32_t sweeps = part.tagged ? 1 : sweeps_, sweep = sweep_;  // tagged: distinct_records picked the records
    uint64_t n = 0;
    for (const Record& record : records_) {
      const uint8_t* code = record.code;
      const unsigned len = record.len;
      const uint32_t times = record.times;
      W fw = 0, rc = 0;
      unsigned i = 0;
      if constexpr (std::is_same_v<W, uint64_t>) {
        // The first k - 1 bases (a third of a short read's super-k-mer) in
        // one step: their packed bytes are fw already; rc is their reverse
        // complement, one base up as the loop leaves it.
        const unsigned pre = k - 1, bytes = (pre + 3) / 4;
        uint64_t word = 0;
        for (unsigned j = 0; j < bytes; ++j) word = word << 8 | code[j];
        fw = word >> (2 * (4 * bytes - pre));
        rc = reverse_complement(fw, pre) << 2;
        i = pre;
      }
      for (; i < len; ++i) {
        const unsigned b = (code[i >> 2] >> (6 - 2 * (i & 3))) & 3;
        fw = ((fw << 2) | b) & mask;
        rc = (rc >> 2) | (W(3 - b) << top);
        if (i + 1 < k) continue;
        const W km = pick_strand(fw, rc, canonical);
        const uint64_t h = hash_kmer(km);
        if (scatter && partition_of(h, o_.partitions) != o_.partition) continue;
        if (sweeps > 1 && sweep_of(h, sweeps) != sweep) continue;
        n += times;
        f(km, h, times);
      }
    }
    return n;
  }

  // each_kmer, with f called kAhead k-mers late, in the same order: the
  // table slots and filter blocks of the k-mers in between are prefetched
  // (pf(hash)) meanwhile, so that their loads overlap.
  template <class Prefetch, class F>
  uint64_t each_kmer_prefetched(const LoadedPartition& part, Prefetch&& pf, F&& f) {
    constexpr uint64_t kAhead = 8;
    struct Ahead {
      W km;
      uint64_t h;
      uint32_t times;
    } ring[kAhead];
    uint64_t i = 0;
    const uint64_t n = each_kmer(part, [&](W km, uint64_t h, uint32_t times) {
      pf(h);
      Ahead& slot = ring[i % kAhead];
      if (i >= kAhead) f(slot.km, slot.h, slot.times);
      slot = {km, h, times};
      ++i;
    });
    for (uint64_t j = i > kAhead ? i - kAhead : 0; j < i; ++j) {
      const Ahead& a = ring[j % kAhead];
      f(a.km, a.h, a.times);
    }
    return n;
  }

  // The partition through the gate, counting the table's keys; returns the
  // occurrences seen.
  uint64_t gate(const LoadedPartition& part, ScalableBloom& bloom) {
    uint64_t rejected = 0;
    turned_away_.clear();
    list_full_ = false;
    const std::optional<uint64_t> first_sightings = tuning_of(o_).first_sightings_bytes;
    const uint64_t list_cap = first_sightings ? *first_sightings / sizeof(W)
                              : o_.max_memory         ? kFirstSightingsBytes / sizeof(W)
                                                      : std::max(kFirstSightingsBytes / sizeof(W), occurrences_);
    const auto prefetch = [&](uint64_t h) {
      table_.prefetch(h);
      bloom.prefetch(h);
    };
    const uint64_t n = each_kmer_prefetched(part, prefetch, [&](W km, uint64_t h, uint32_t times) {
      const uint64_t slot = table_.find(km, h);
      if (slot != PartitionTable<W>::kNone) {
        table_.add_count(slot, times);
      } else if (times > 1 || bloom.test_and_set_exclusive(h)) {  // seen twice: in a record met twice, or before
        table_.add_count(table_.insert(km, h), times);
      } else {
        ++rejected;
        if (!list_full_ && turned_away_.size() < list_cap) {
          turned_away_.push_back(km);
        } else if (!list_full_) {  // too many: recount this partition instead
          list_full_ = true;
          turned_away_.clear();
        }
      }
    });
    t_.gate_rejected += rejected;
    return n;
  }

  // Exact mode when the list was full: every occurrence again, counting the
  // table's keys from zero; returns the occurrences no key holds (seen once).
  uint64_t recount(const LoadedPartition& part) {
    table_.zero_counts();
    uint64_t once = 0;
    each_kmer_prefetched(part, [&](uint64_t h) { table_.prefetch(h); }, [&](W km, uint64_t h, uint32_t times) {
      const uint64_t slot = table_.find(km, h);
      if (slot == PartitionTable<W>::kNone) ++once;  // times is 1: a record met twice put its k-mers in the table
      else table_.add_count(slot, times);
    });
    return once;
  }

  // Exact mode, once the gate has seen the partition: adds its turned-away
  // first sighting to every key that had one; returns the turned-away k-mers
  // that no key holds (seen once).
  uint64_t settle_turned_away() {
    // Most turned-away k-mers were never seen again (singletons): the
    // table's sketch answers them, and only the others are looked up
    // (prefetched, kAhead ahead) in the table itself.
    uint64_t once = 0;
    size_t n = 0;
    for (const W km : turned_away_) {
      if (table_.may_hold(hash_kmer(km))) turned_away_[n++] = km;
      else ++once;
    }
    constexpr size_t kAhead = 8;
    uint64_t ring[kAhead];  // each k-mer hashed again, kAhead ahead of its look-up
    for (size_t i = 0; i < std::min(n, kAhead); ++i) table_.prefetch(ring[i] = hash_kmer(turned_away_[i]));
    for (size_t i = 0; i < n; ++i) {
      const uint64_t h = ring[i % kAhead];
      if (i + kAhead < n) table_.prefetch(ring[i % kAhead] = hash_kmer(turned_away_[i + kAhead]));
      const W km = turned_away_[i];
      const uint64_t slot = table_.find(km, h);
      if (slot == PartitionTable<W>::kNone) ++once;
      else table_.add_count(slot);
    }
    return once;
  }

  void report_bloom(const ScalableBloom& bloom) {
    t_.keys_inserted += bloom.keys_inserted();
    t_.bloom_bytes = std::max(t_.bloom_bytes, bloom.bytes());
    for (size_t i = 0; i < bloom.layers(); ++i) {
      const BloomLayerInfo li = bloom.layer_info(i, true);
      if (t_.layers.size() <= i) {
        t_.layers.push_back({0, 0, 0, 0, li.hashes, li.target_fpr, 0});
        t_.with_layer.push_back(0);
      }
      BloomReport::Layer& l = t_.layers[i];
      l.capacity += li.capacity;
      l.bits += li.bits;
      l.keys += li.keys;
      l.bits_set += li.bits_set;
      l.estimated_fpr += li.estimated_fpr;
      ++t_.with_layer[i];
    }
  }

  // Histogram rows, and the reported k-mers appended to `solid` sorted by
  // k-mer: they go from the table straight to their places by their first
  // bases (a counting sort: the pass that makes the histogram counts the
  // buckets, a second one places; about 32 keys a bucket, most keys being
  // reported), then each bucket is sorted in cache. One bucket for small
  // tables and for k > 31. On HiFi-like reads' partitions (some 200,000
  // reported k-mers each, past L2) sorting them in place after collecting
  // took 16% of the run, std::sort alone 8%. Grouped runs
  // (CountPlan::grouped_runs) take one bucket a merge range and no sort.
  void collect(PartitionOutcome& out, std::vector<std::pair<W, uint32_t>>& solid) {
    const uint64_t top = o_.histo_max + 1, lo = o_.min_count, hi = o_.max_count;
    const auto reported = [&](uint64_t c) { return c >= lo && c <= hi; };
    const uint64_t keys = table_.size();
    const bool grouped = std::is_same_v<W, uint64_t> && plan_.grouped_runs;
    const unsigned bits = grouped ? merge_range_bits(shape_.k)
                          : std::is_same_v<W, uint64_t> && keys >= 4096
                              ? std::min(2 * shape_.k, std::clamp(static_cast<unsigned>(std::bit_width(keys / 32)), 1u, 16u))
                              : 0;
    const unsigned shift = 2 * shape_.k - bits;  // a k-mer of k <= 31 has no bits from 2k up: bucket 0 when bits is 0
    const auto bucket = [&](const W& km) -> size_t {
      if constexpr (std::is_same_v<W, uint64_t>) return static_cast<size_t>(km >> shift);
      else return 0;
    };
    const size_t nb = size_t{1} << bits;
    // [0, nb]: bucket starts, then ends; [nb + 1, 2nb + 1]: next free, the
    // last one a scratch place past the entries.
    buckets_.assign(2 * nb + 2, 0);
    size_t* start = buckets_.data();
    size_t* next = start + nb + 1;
    // Both walks take every slot, and choose where it goes by masks, not
    // branches: a branch on a slot's emptiness mispredicts at the table's
    // 35-70% load. An empty slot adds to one of eight spare rows (one row
    // would make its adds one chain of stores); a key not reported (an
    // empty slot's count, 0, never is) adds nothing to the buckets and is
    // written to the scratch place.
    uint64_t* const histogram = t_.histogram.data();
    uint64_t spare[8] = {};
    uint32_t largest = 0;
    table_.for_each_slot([&](uint64_t i, const W& km, uint32_t c) {
      largest = std::max(largest, c);
      ++*reinterpret_cast<uint64_t*>(pick(PartitionTable<W>::is_empty(km), reinterpret_cast<uintptr_t>(spare + i % 8),
                                          reinterpret_cast<uintptr_t>(histogram + std::min<uint64_t>(c, top))));
      const bool keep = reported(c);
      start[pick(keep, bucket(km) + 1, size_t{0})] += keep;
    });
    out.distinct += table_.size();
    t_.max_count = std::max<uint64_t>(t_.max_count, largest);
    for (size_t b = 1; b <= nb; ++b) start[b] += start[b - 1];
    std::copy(start, start + nb, next);
    next[nb] = start[nb];
    const size_t first = solid.size();
    solid.resize(first + start[nb] + 1);
    auto* e = solid.data() + first;
    table_.for_each_slot([&](uint64_t, const W& km, uint32_t c) {
      const bool keep = reported(c);
      size_t& to = next[pick(keep, bucket(km), nb)];
      e[to] = {km, c};
      to += keep;
    });
    solid.pop_back();
    if (!grouped)
      for (size_t b = 0; b < nb; ++b) std::sort(e + start[b], e + start[b + 1], by_key);
  }

  const CountOptions& o_;
  const CountPlan& plan_;
  ThreadTotals& t_;
  KmerShape<W> shape_;
  PartitionTable<W> table_;
  std::vector<W> turned_away_;              // exact: the same keys, to settle the counts
  bool list_full_ = false;                  // exact: more than the list may hold: recount
  uint64_t occurrences_ = 0;                // the partition's k-mer occurrences
  uint32_t sweeps_ = 1, sweep_ = 0;         // the partition's sweeps, the one running
  std::vector<size_t> buckets_;             // collect's bucket offsets
  struct Record {
    const uint8_t* code;  // packed bases, in the loaded partition
    uint32_t len;         // bases
    uint32_t times;       // occurrences of the same bases
  };
  struct Slot {
    uint32_t tag = 0;  // hash bits, 0: empty
    uint32_t at = 0;   // in records_
  };
  static bool same_bases(const Record& a, const Record& b) {
    return a.len == b.len && same_packed(a.code, b.code, (a.len + 3) / 4);
  }
  std::vector<Record> records_;             // distinct_records: the partition's (sweep's) distinct records
  std::vector<Slot> index_;                 // distinct_records' hash index
  std::vector<size_t> runs_;                // count's sweep run bounds in `solid`
};

}  // namespace kmerbloom::detail
