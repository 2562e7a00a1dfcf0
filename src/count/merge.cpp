#include "count/merge.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "common/select.hpp"
#include "kmer/kmer.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom::detail {

template <class W>
SortedRuns<W>::SortedRuns(unsigned k, uint32_t partitions, uint32_t block_bytes)
    : k_(k), partitions_(partitions), block_bytes_(block_bytes), blocks_(partitions),
      starts_(size_t{partitions} * (ranges() + 1), 0), count_bytes_(partitions, 4) {}

template <class W>
void SortedRuns<W>::write(Spool& spool, uint32_t p, const std::vector<std::pair<W, uint32_t>>& solid) {
  uint32_t largest = 0;
  for (const auto& e : solid) largest = std::max(largest, e.second);
  count_bytes_[p] = static_cast<uint8_t>(largest < (1u << 8) ? 1 : largest < (1u << 16) ? 2 : largest < (1u << 24) ? 3 : 4);
  // Blocks no larger than the data blocks, so that they fit the pool's slots.
  const size_t per_block = block_entries(p), entry = entry_bytes(p), key = key_bytes();
  uint32_t* start = starts_.data() + size_t{p} * (ranges() + 1);
  size_t at = 0;
  for (uint32_t r = 0; r < ranges(); ++r) {
    start[r] = static_cast<uint32_t>(at);
    while (at < solid.size() && range_of(solid[at].first) <= r) ++at;
  }
  start[ranges()] = static_cast<uint32_t>(solid.size());
  std::vector<uint8_t> buf;
  for (size_t i = 0; i < solid.size(); i += per_block) {
    const size_t n = std::min(per_block, solid.size() - i);
    buf.resize(n * entry + sizeof(W));  // room for whole-word stores
    uint8_t* to = buf.data();
    for (size_t j = 0; j < n; ++j, to += entry) {
      std::memcpy(to, &solid[i + j].first, sizeof(W));  // a 64-bit key's low bytes first (little-endian)
      const uint32_t c = solid[i + j].second;
      std::memcpy(to + key, &c, count_bytes_[p]);
    }
    blocks_[p].push_back(spool.put(buf.data(), static_cast<uint32_t>(n * entry)));
  }
}

template <class W>
uint64_t SortedRuns<W>::range_size(uint32_t r) const {
  uint64_t n = 0;
  for (uint32_t p = 0; p < partitions_; ++p) n += range_start(p, r + 1) - range_start(p, r);
  return n;
}

template <class W>
size_t SortedRuns<W>::key_bytes() const {
  if constexpr (std::is_same_v<W, uint64_t>) return (2 * k_ - range_bits() + 7) / 8;
  return sizeof(W);
}

template <class W>
size_t SortedRuns<W>::read(const Spool& spool, uint32_t p, uint64_t at, uint64_t end, uint64_t max, uint8_t* buf) const {
  const size_t entry = entry_bytes(p), per_block = block_entries(p);
  const uint64_t within = at % per_block;
  const auto n = static_cast<size_t>(std::min<uint64_t>({max, end - at, per_block - within}));
  spool.read(blocks_[p][at / per_block], static_cast<uint32_t>(within * entry), static_cast<uint32_t>(n * entry), buf);
  return n;
}

namespace {

// A key range's k-mers in order, packed, with their counts.
struct Chunk {
  uint64_t serial = 0;  // the range
  std::vector<uint8_t> packed;
  std::vector<uint32_t> counts;
  std::string bytes;  // formatted, when the sink formats apart
  PackedKmers kmers(unsigned k) const { return {k, packed.data(), counts.data(), counts.size()}; }
};

// One key range of every partition's run merged, by one thread: a cursor
// per partition and a loser tree over their heads. A k-mer out costs one
// comparison per level on its leaf's path (log2 P), against about twice
// that for a binary heap's sift, and no heap entries are moved. The heads
// sit in one array, a finished cursor's head the all-ones word (never a
// k-mer: its top bits are clear), so a match is one key comparison. Keys
// are unique across runs (a k-mer has one partition).
template <class W>
class RangeMerger {
 public:
  RangeMerger(const SortedRuns<W>& runs, const Spool& spool, size_t cursor_entries)
      : e_(runs), spool_(spool), key_bytes_(runs.key_bytes()), cap_(std::max<size_t>(1, cursor_entries)) {
    while (leaves_ < runs.partitions()) leaves_ *= 2;
    cursors_.resize(leaves_);
    head_.assign(leaves_, kDone);
    count_.assign(leaves_, 0);
    loser_.resize(leaves_);
    winner_.resize(2 * leaves_);
    buf_.resize(size_t{runs.partitions()} * cap_ * kEntry + sizeof(W));  // room for whole-word loads
  }

  // Range r's k-mers, in order, packed into `out` (sized to fit them).
  void merge(uint32_t r, Chunk& out) {
    const uint32_t parts = e_.partitions();
    const unsigned bytes = (e_.k() + 3) / 4;
    uint64_t n = 0;
    if constexpr (std::is_same_v<W, uint64_t>) {
      const unsigned low = 2 * e_.k() - e_.range_bits();
      range_top_ = uint64_t{r} << low;
      low_mask_ = low ? ~uint64_t{0} >> (64 - low) : 0;
    }
    for (uint32_t p = 0; p < leaves_; ++p) {
      Cursor& c = cursors_[p];
      c.at = p < parts ? e_.range_start(p, r) : 0;
      c.end = p < parts ? e_.range_start(p, r + 1) : 0;
      c.pos = c.fill = 0;
      n += c.end - c.at;
      advance(p);
    }
    out.packed.resize(n * bytes);
    out.counts.resize(n);
    for (uint32_t p = 0; p < leaves_; ++p) winner_[leaves_ + p] = p;
    for (uint32_t i = leaves_ - 1; i >= 1; --i) {
      const uint32_t a = winner_[2 * i], b = winner_[2 * i + 1];
      const bool a_first = !(head_[b] < head_[a]);
      winner_[i] = a_first ? a : b;
      loser_[i] = a_first ? b : a;
    }
    uint32_t top = winner_[1];
    uint8_t* to = out.packed.data();
    for (uint64_t i = 0; i < n; ++i, to += bytes) {
      pack_kmer_to(head_[top], bytes, to);
      out.counts[i] = count_[top];
      advance(top);
      // Up the leaf's path without branches: which side wins a match is
      // as likely one way as the other, and a mispredicted branch a level
      // took 40% of the merge's samples.
      W ht = head_[top];
      for (uint32_t j = (leaves_ + top) / 2; j >= 1; j /= 2) {
        const uint32_t l = loser_[j];
        const W hl = head_[l];
        const bool swap = hl < ht;
        loser_[j] = pick(swap, top, l);
        top = pick(swap, l, top);
        if constexpr (std::is_same_v<W, uint64_t>) ht = pick(swap, hl, ht);
        else ht = swap ? hl : ht;
      }
    }
  }

 private:
  static constexpr W kDone = ~W{0};
  struct Cursor {
    uint64_t at = 0, end = 0;  // entries of the run still to read
    size_t pos = 0, fill = 0;  // in the cursor's buffer
  };
  // The cursor's next entry into its head (kDone past its stretch); the
  // buffer is refilled within one block at a time.
  void advance(uint32_t p) {
    Cursor& c = cursors_[p];
    uint8_t* buf = buf_.data() + size_t{p} * cap_ * kEntry;
    if (c.pos == c.fill && c.at == c.end) {  // the leaves past the partitions too
      head_[p] = kDone;
      return;
    }
    const size_t entry = e_.entry_bytes(p);
    if (c.pos == c.fill) {
      c.fill = e_.read(spool_, p, c.at, c.end, cap_, buf);
      c.at += c.fill;
      c.pos = 0;
    }
    const uint8_t* at = buf + c.pos * entry;
    if constexpr (std::is_same_v<W, uint64_t>) {
      uint64_t low;
      std::memcpy(&low, at, sizeof low);  // the buffer has a word of room past its entries
      head_[p] = range_top_ | (low & low_mask_);
    } else {
      std::memcpy(static_cast<void*>(&head_[p]), at, sizeof(W));
    }
    uint32_t count;
    std::memcpy(&count, at + key_bytes_, sizeof count);
    count_[p] = count & e_.count_mask(p);
    ++c.pos;
  }

  static constexpr size_t kEntry = SortedRuns<W>::kEntry;
  const SortedRuns<W>& e_;
  const Spool& spool_;
  const size_t key_bytes_, cap_;  // of a run entry's key; entries a cursor buffers
  uint64_t range_top_ = 0, low_mask_ = 0;  // 64-bit keys: the range's bits, the bits an entry holds
  uint32_t leaves_ = 1;
  std::vector<Cursor> cursors_;   // past the partitions: empty
  std::vector<W> head_;
  std::vector<uint32_t> count_;
  // loser_[n]: the leaf that lost the match at inner node n (1..leaves-1);
  // the winner of the whole tree is kept apart.
  std::vector<uint32_t> loser_, winner_;
  std::vector<uint8_t> buf_;
};

// One key range of every partition's run, of 64-bit keys, put in order
// by a sort instead of a merge: each run's stretch of the range is read
// into words of the key's bits below the range's, shifted up, with the
// count in the bits below them (a count that does not fit is kept apart,
// in key order), and the words are sorted by their key bits with a
// least-significant-digit radix sort (five passes of 11 bits for k = 31)
// in a buffer that fits a core's L2 or so (some 140,000 k-mers a range on
// 3 Gbp of pairs). A range of more words than the thread's sort buffers
// hold (`max_words`) is sorted in slices by its next key bits, each slice
// reading the range's stretches again. Against the loser tree, no
// comparison per level of P runs: the output is the same.
class RangeSorter {
 public:
  // window_bytes: what a thread may keep of the runs it read from the
  // file, over all partitions (0: nothing).
  RangeSorter(const SortedRuns<uint64_t>& runs, const Spool& spool, uint64_t max_words, uint64_t window_bytes,
              std::atomic<uint64_t>& sliced)
      : e_(runs), spool_(spool), sliced_(sliced), key_bytes_(runs.key_bytes()),
        low_(2 * runs.k() - runs.range_bits()), count_bits_(std::min(32u, 64 - low_)),
        count_mask_((uint64_t{1} << count_bits_) - 1), max_words_(std::max<uint64_t>(1, max_words)),
        buf_(kRunBlockBytes + sizeof(uint64_t)),
        slot_bytes_(std::min<uint64_t>(std::min<uint64_t>(runs.block_bytes(), kRunBlockBytes),
                                       window_bytes / runs.partitions())) {
    if (slot_bytes_ < kEntry) return;  // too small to hold an entry: every stretch read as it comes
    windows_.assign(runs.partitions(), Window{});
    kept_ = std::make_unique_for_overwrite<uint8_t[]>(runs.partitions() * slot_bytes_ + sizeof(uint64_t));
  }

  // Range r's k-mers, in order, packed into `out` (sized to fit them).
  void merge(uint32_t r, Chunk& out) {
    const uint64_t n = e_.range_size(r);
    const unsigned bytes = (e_.k() + 3) / 4;
    out.packed.resize(n * bytes);
    out.counts.resize(n);
    const unsigned slice_bits =
        n <= max_words_ ? 0 : std::min<unsigned>(low_, static_cast<unsigned>(std::bit_width((n - 1) / max_words_)));
    uint64_t done = 0;
    for (uint64_t slice = 0; slice < (uint64_t{1} << slice_bits); ++slice) {
      load(r, low_ - slice_bits, slice);
      radix_sort();
      std::sort(apart_.begin(), apart_.end());
      const uint64_t top = uint64_t{r} << low_;
      uint8_t* to = out.packed.data() + done * bytes;
      size_t next_apart = 0;
      for (const uint64_t word : words_) {
        pack_kmer_to(top | (low_ ? word >> count_bits_ : 0), bytes, to);
        to += bytes;
        const uint64_t count = word & count_mask_;
        out.counts[done++] = count == count_mask_ ? apart_[next_apart++].second : static_cast<uint32_t>(count);
      }
    }
    if (slice_bits) sliced_.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  static constexpr unsigned kDigitBits = 11;

  // The words of range r whose key bits from `shift` up are `slice`, into
  // words_; their counts that do not fit into apart_.
  void load(uint32_t r, unsigned shift, uint64_t slice) {
    const uint64_t low_mask = low_ ? ~uint64_t{0} >> (64 - low_) : 0;
    words_.clear();
    apart_.clear();
    for (uint32_t p = 0; p < e_.partitions(); ++p) {
      const size_t entry = e_.entry_bytes(p);
      const uint32_t stored_mask = e_.count_mask(p);
      for (uint64_t at = e_.range_start(p, r), end = e_.range_start(p, r + 1); at < end;) {
        size_t m;
        const uint8_t* from = entries(p, at, end, m);
        for (size_t j = 0; j < m; ++j, from += entry) {
          uint64_t key;
          uint32_t count;
          std::memcpy(&key, from, sizeof key);  // the buffer has a word of room past its entries
          std::memcpy(&count, from + key_bytes_, sizeof count);
          count &= stored_mask;
          key &= low_mask;
          if ((key >> shift) != slice) continue;
          if (count >= count_mask_) apart_.emplace_back(key, count);
          words_.push_back(key << count_bits_ | std::min<uint64_t>(count, count_mask_));
        }
        at += m;
      }
    }
  }

  // Entries [at, at + m) of partition p's run, m the most up to `end` in
  // at's block; their bytes end with a word of room. A stretch read from
  // the file is read on to its block's end, as far as p's window holds,
  // and kept there for the ranges after it: a run block holds the
  // stretches of several ranges, and a read of the file is a system call
  // (1.1 M of them, 3 us each, in the merge of 3.0 Gbp of pairs).
  const uint8_t* entries(uint32_t p, uint64_t at, uint64_t end, size_t& m) {
    const size_t entry = e_.entry_bytes(p), per_block = e_.block_entries(p);
    const Spool::Block& block = e_.block(p, at);
    const uint64_t block_end = at - at % per_block + block.size / entry;
    m = static_cast<size_t>(std::min(end, block_end) - at);
    const size_t fit = slot_bytes_ / entry;
    if (windows_.empty() || block.in_memory() || fit < m) {
      m = e_.read(spool_, p, at, end, UINT64_MAX, buf_.data());  // a block fits buf_
      return buf_.data();
    }
    uint8_t* slot = kept_.get() + size_t{p} * slot_bytes_;
    Window& w = windows_[p];
    if (at < w.from || at + m > w.to) {
      w = {at, std::min<uint64_t>(block_end, at + fit)};
      spool_.read(block, static_cast<uint32_t>(at % per_block * entry), static_cast<uint32_t>((w.to - at) * entry), slot);
    }
    return slot + (at - w.from) * entry;
  }

  // words_ by their key bits (unique there).
  void radix_sort() {
    const uint64_t n = words_.size();
    if (n < 2 || low_ == 0) return;
    if (n < 256) {
      std::sort(words_.begin(), words_.end());
      return;
    }
    const unsigned passes = (low_ + kDigitBits - 1) / kDigitBits, digit = (low_ + passes - 1) / passes;
    const size_t buckets = size_t{1} << digit;
    const uint64_t mask = buckets - 1;
    counts_.assign(passes * buckets, 0);
    for (uint64_t i = 0; i < n; ++i)
      for (unsigned q = 0; q < passes; ++q) ++counts_[q * buckets + ((words_[i] >> (count_bits_ + q * digit)) & mask)];
    other_.resize(n);
    uint64_t* from = words_.data();
    uint64_t* to = other_.data();
    for (unsigned q = 0; q < passes; ++q) {
      const unsigned shift = count_bits_ + q * digit;
      uint64_t* c = counts_.data() + q * buckets;
      if (c[(from[0] >> shift) & mask] == n) continue;  // one digit value: nothing moves
      uint64_t sum = 0;
      for (size_t b = 0; b < buckets; ++b) sum += std::exchange(c[b], sum);
      for (uint64_t i = 0; i < n; ++i) to[c[(from[i] >> shift) & mask]++] = from[i];
      std::swap(from, to);
    }
    if (from != words_.data()) words_.swap(other_);
  }

  static constexpr size_t kEntry = SortedRuns<uint64_t>::kEntry;
  const SortedRuns<uint64_t>& e_;
  const Spool& spool_;
  std::atomic<uint64_t>& sliced_;    // ranges sorted in more than one slice, all threads
  const size_t key_bytes_;
  const unsigned low_, count_bits_;  // key bits below the range's; count bits below them in a word
  const uint64_t count_mask_;        // a count that fits: below it; else it is kept apart
  const uint64_t max_words_;         // words a slice holds, about
  std::vector<uint8_t> buf_;         // one read of a run
  std::vector<uint64_t> words_, other_, counts_;
  std::vector<std::pair<uint64_t, uint32_t>> apart_;  // (key bits, count) of counts that do not fit
  struct Window {
    uint64_t from = 0, to = 0;  // the run entries a partition's slot holds
  };
  const uint64_t slot_bytes_;              // a partition's slot
  std::vector<Window> windows_;            // empty: no slots
  std::unique_ptr<uint8_t[]> kept_;        // partitions x slot_bytes_, and a word of room
};

}  // namespace

// The ranges in order to the sink: every thread merges the next range not
// taken (a tree of its own), and the thread that completes the next range
// in line hands it, and those after it that are done, to the sink
// (SerialOrder::deliver). A range runs at most `window` ranges ahead of the
// one next in line: as many of the largest range as half the merge's
// buffers hold under -M; without, also two of average size a thread, so
// that the threads keep merging while one writes.
template <class W>
MergeReport merge_runs(const SortedRuns<W>& runs, const Spool& spool, const PackedKmerSink& sink,
                       const MergeSettings& s, uint64_t& solid, const std::function<void(uint64_t)>& done) {
  constexpr size_t kEntry = SortedRuns<W>::kEntry;
  const unsigned k = runs.k(), threads = std::max(1u, s.threads);
  const uint32_t parts = runs.partitions();
  const bool apart = sink.format && sink.write && threads > 1;  // alone, the writer formats as it writes
  const uint32_t R = runs.ranges();
  auto units_done = [&](uint64_t n) {
    if (done) done(n);
  };
  // The cursors' buffers take half the merge's read-back buffers, the
  // ranges ahead the other half.
  const uint64_t buffers = uint64_t{parts} * kRunBlockBytes;
  const size_t cursor_entries = buffers / 2 / (uint64_t{threads} * parts * kEntry);
  const uint64_t per_kmer = (k + 3) / 4 + sizeof(uint32_t) + (apart ? k + 8 : 0);  // formatted: about k + 8 more
  uint64_t total = 0, widest = 1;
  std::vector<uint64_t> first_of(R);  // the index of each range's first k-mer in the output
  for (uint32_t i = 0; i < R; ++i) {
    const uint64_t n = runs.range_size(i);
    first_of[i] = total;
    total += n;
    widest = std::max(widest, n);
  }
  // In place (KFF to a file): each range goes where its first k-mer's
  // index puts it, written by the thread that merged it; no thread writes
  // for the others, and no range waits for the one before.
  const bool in_place = sink.begin_in_place && sink.write_at && sink.begin_in_place(total);
  std::atomic<uint64_t> placed{0};
  const uint64_t budget = std::max(buffers / 2, s.max_memory ? 0 : 2 * (threads + 1) * total / R * per_kmer);
  SerialOrder<Chunk> order(std::max<uint64_t>(1, budget / (widest * per_kmer)));
  std::atomic<uint32_t> next{0};
  std::atomic<bool> failed{false};
  uint64_t emitted = 0;
  auto emit = [&](const Chunk& chunk) {
    if (apart) sink.write(chunk.bytes);
    else sink.add(chunk.kmers(k));
    emitted += chunk.counts.size();
    units_done(chunk.counts.size());
  };
  // Ranges of 64-bit keys are sorted (RangeSorter; the runs are grouped)
  // in slices of at most the cursors' half of the buffers a thread under
  // -M, and of kMergeSortBytes or that without (16 bytes a k-mer; the
  // range's output takes 12 more).
  const bool sorted = std::is_same_v<W, uint64_t> && s.sorted;
  const uint64_t cursors_share = buffers / 2 / threads;
  const uint64_t sort_bytes =
      s.sort_bytes.value_or(s.max_memory ? cursors_share : std::max(cursors_share, kMergeSortBytes));
  // Without -M, a thread keeps up to kMergeSortBytes of the run blocks it
  // read from the file (RangeSorter::entries); under -M, nothing.
  const uint64_t window_bytes = s.max_memory ? 0 : kMergeSortBytes;
  std::atomic<uint64_t> sliced{0};
  auto merge_ranges = [&](auto&& make) {
    auto m = make();
    Chunk own;
    std::string scratch;
    for (uint32_t i; !failed && (i = next.fetch_add(1)) < R;) {
      if (in_place) {
        m.merge(i, own);
        sink.write_at(first_of[i], own.kmers(k), scratch);
        placed.fetch_add(own.counts.size(), std::memory_order_relaxed);
        units_done(own.counts.size());
        continue;
      }
      auto chunk = std::make_unique<Chunk>();
      chunk->serial = i;
      m.merge(i, *chunk);
      if (apart) sink.format(chunk->kmers(k), chunk->bytes);
      order.deliver(std::move(chunk), emit);
    }
  };
  auto work = [&](unsigned) {
    if constexpr (std::is_same_v<W, uint64_t>)
      if (sorted) return merge_ranges([&] { return RangeSorter(runs, spool, sort_bytes / 16, window_bytes, sliced); });
    merge_ranges([&] { return RangeMerger<W>(runs, spool, cursor_entries); });
  };
  run_on_threads(threads, work, [&] {
    failed = true;
    order.abort();
  });
  solid = emitted + placed.load();
  MergeReport report;
  report.sorted = sorted;
  report.ranges = R;
  report.sliced = sliced.load();
  return report;
}

template class SortedRuns<uint64_t>;
template class SortedRuns<u128>;
template class SortedRuns<Words<4>>;
template class SortedRuns<Words<8>>;
#define KMERBLOOM_MERGE_RUNS(W)                                                                                  \
  template MergeReport merge_runs<W>(const SortedRuns<W>&, const Spool&, const PackedKmerSink&, const MergeSettings&, \
                                     uint64_t&, const std::function<void(uint64_t)>&);
KMERBLOOM_MERGE_RUNS(uint64_t)
KMERBLOOM_MERGE_RUNS(u128)
KMERBLOOM_MERGE_RUNS(Words<4>)
KMERBLOOM_MERGE_RUNS(Words<8>)
#undef KMERBLOOM_MERGE_RUNS

}  // namespace kmerbloom::detail
