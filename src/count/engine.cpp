// count_kmers(): read once into minimizer partitions, count each partition in
// cache, merge the partitions' sorted solid k-mers. docs/partitioned-counting.md
// tells the design and its measurements.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "common/select.hpp"
#include "count/bins.hpp"
#include "count/plan.hpp"
#include "count/spool.hpp"
#include "count/counter.hpp"
#include "kmer/minimizer.hpp"
#include "seqio/pipeline.hpp"
#include "seqio/paths.hpp"
#include "seqio/queues.hpp"
#include "seqio/reader.hpp"
#include "count/bin_file.hpp"
#include "count/partition_count.hpp"
#include "count/scatter.hpp"
#include "common/format.hpp"
#include "common/machine.hpp"

namespace kmerbloom {
namespace {

using detail::LoadedPartition;
using detail::PartitionCounter;
using detail::PartitionOutcome;
using detail::PartitionStore;
using detail::ThreadTotals;
using detail::scatter_input;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The pilot: partitions counted first, one after the other, until they hold
// this many k-mer occurrences; their ratio of distinct k-mers (and of table
// keys) to occurrences sizes every other partition's filter and table.
constexpr uint64_t kPilotKmers = uint64_t{1} << 20;

// The k-mer occurrences of the whole input, projected from the first file's
// first kSampleBases bases and the file bytes they took (a gzip FASTQ of
// Illumina reads holds about one base a byte, one of long reads with
// simple qualities three, a plain FASTA one): 0 when the first input is
// not a regular file, or cannot be read (the reading pass reports why).
uint64_t sample_occurrences(const CountOptions& o, uint64_t input_bytes) {
  constexpr uint64_t kSampleBases = uint64_t{8} << 20;
  const std::string& first = o.inputs.front();
  if (input_bytes == 0 || first == "-" || is_stream(first) || is_bin_file(first)) return 0;
  try {
    SequenceReader reader(first);
    reader.set_pieces(std::max<uint64_t>(o.batch_bases / 4, o.k), o.k - 1);  // as the reading pass: bounded
    RecordBatch batch;
    batch.keep_quality = false;
    uint64_t bases = 0, kmers = 0;
    while (bases < kSampleBases && reader.next_batch(batch, kSampleBases - bases)) {
      bases += batch.bases;
      for (size_t i = 0; i < batch.size(); ++i) kmers += batch.seq(i).size() >= o.k ? batch.seq(i).size() - o.k + 1 : 0;
    }
    const uint64_t raw = reader.raw_bytes_read();
    if (raw == 0 || kmers == 0) return 0;
    return static_cast<uint64_t>(static_cast<double>(kmers) / static_cast<double>(raw) * static_cast<double>(input_bytes));
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

CountEstimate estimate_count(const CountOptions& o) {
  CountEstimate est;
  if (!o.has_stream_input()) {
    est.input_bytes = input_bytes_total(o.inputs);
    est.occurrences = sample_occurrences(o, est.input_bytes);
  }
  est.cache_bytes = o.cache_bytes ? o.cache_bytes : machine_caches().l2_per_thread();
  est.available_memory = available_memory();
  return est;
}

namespace {

template <class W>
class Engine {
 public:
  Engine(const CountOptions& o, const CountHooks& hooks) : o_(o), hooks_(hooks) {}

  CountResult run(const PackedKmerSink& sink) {
    CountResult r;
    open_bins();
    CountEstimate est = estimate_count(o_);
    if (!files_.empty()) {  // the bins say what they hold
      est.from_bins = true;
      est.bins = static_cast<uint32_t>(bins_.size());
      est.occurrences = 0;
      for (const detail::BinFile& f : files_)
        for (const uint32_t b : bins_) est.occurrences += f.bin(b).kmers;
    }
    plan_ = plan_count(o_, est);
    SpoolOptions so;
    so.dir = plan_.tmp_dir;
    so.memory_budget = plan_.spool_memory;
    so.slot_bytes = plan_.block_bytes;
    so.disk_limit = o_.tmp_disk_limit;
    Spool spool(so);
    PartitionStore store(plan_.partitions, spool, plan_.tagged);
    log("plan: " + std::to_string(plan_.partitions) + " partitions for " +
        (est.occurrences ? "about " + std::to_string(est.occurrences) + " k-mer occurrences (sampled) and " : std::string()) +
        format_megabytes(plan_.cache_bytes) +
        " of L2 cache a thread (" + cache_source() + "), minimizers of " + std::to_string(plan_.minimizer) +
        " bases, " + format_megabytes(plan_.spool_memory) + " of spool memory, then " + spool.dir());

    auto t0 = Clock::now();
    if (files_.empty()) {
      pass("pass 1: reading the input into " + std::to_string(plan_.partitions) + " partitions");
      PipelineProgress own;
      kmers_ = scatter_input(o_, plan_, store, hooks_.progress ? *hooks_.progress : own, r.input);
    } else {
      pass("pass 1: " + std::to_string(bins_.size()) + " bins of " + std::to_string(files_.size()) + " bin files");
      kmers_.assign(bins_.size(), 0);
      for (const detail::BinFile& f : files_) {
        r.input.reads += f.header().reads;
        r.input.bases += f.header().bases;
        r.input.bases_skipped += f.header().bases_skipped;
        for (size_t p = 0; p < bins_.size(); ++p) kmers_[p] += f.bin(bins_[p]).kmers;
      }
    }
    r.pass_seconds.push_back(seconds_since(t0));
    log("pass 1: " + std::to_string(r.input.reads) + " reads, " + format_megabytes(spool.disk_bytes()) +
        " to temporary files");

    t0 = Clock::now();
    uint64_t occurrences = 0;
    for (const uint64_t n : kmers_) occurrences += n;
    pass("pass 2: counting the partitions");
    units("k-mers counted", occurrences);
    runs_.resize(plan_.partitions);
    count_bytes_.assign(plan_.partitions, 4);
    starts_.assign(size_t{plan_.partitions} * (ranges() + 1), 0);
    outcomes_.resize(plan_.partitions);
    count_partitions(store, r);
    r.pass_seconds.push_back(seconds_since(t0));

    t0 = Clock::now();
    uint64_t solid = 0;
    for (const PartitionOutcome& po : outcomes_) solid += po.solid;
    pass("pass 3: merging the partitions' sorted k-mers");
    units("k-mers merged", solid);
    merge(spool, sink, r);
    units(nullptr, 0);  // a later pass of the caller reads input again
    r.pass_seconds.push_back(seconds_since(t0));
    r.passes = 1;
    finish(r, spool);
    return r;
  }

 private:
  void log(const std::string& s) const {
    if (hooks_.log) hooks_.log(s);
  }
  void pass(const std::string& s) const {
    if (hooks_.pass) hooks_.pass(s);
  }
  // The pass just begun reads no input: its progress is `total` units of
  // `unit` (nullptr: the passes that follow read input).
  void units(const char* unit, uint64_t total) const {
    if (!hooks_.progress) return;
    hooks_.progress->units_done = 0;
    hooks_.progress->units_total = total;
    hooks_.progress->unit = unit;
  }
  void units_done(uint64_t n) const {
    if (hooks_.progress) hooks_.progress->units_done.fetch_add(n, std::memory_order_relaxed);
  }

  // Inputs that are bin files (all of them or none): open and check them,
  // and keep the bins of --partition I/N (b mod N = I). The counter then
  // takes every k-mer of those bins.
  void open_bins() {
    const size_t binned = static_cast<size_t>(std::count_if(o_.inputs.begin(), o_.inputs.end(), is_bin_file));
    if (binned == 0) return;
    if (binned != o_.inputs.size())
      throw std::invalid_argument("the inputs mix bin files (kmerbloom bin) and reads: count one or the other");
    for (const std::string& path : o_.inputs) {
      files_.emplace_back(path);
      const detail::BinHeader& h = files_.back().header();
      const detail::BinHeader& first = files_.front().header();
      if (h.k != o_.k)
        throw std::invalid_argument(path + ": binned with k = " + std::to_string(h.k) + ", but -k is " + std::to_string(o_.k));
      if ((h.canonical != 0) != o_.canonical)
        throw std::invalid_argument(path + (h.canonical ? ": binned canonical, but --no-canonical is given"
                                                        : ": binned with --no-canonical, which count needs too"));
      if (h.bins != first.bins)
        throw std::invalid_argument(path + ": " + std::to_string(h.bins) + " bins, but " + files_.front().path() +
                                    " has " + std::to_string(first.bins) + " (bin every chunk with the same --bins)");
    }
    const uint32_t total = files_.front().header().bins;
    for (uint32_t b = o_.partition; b < total; b += o_.partitions) bins_.push_back(b);
    if (bins_.empty())
      throw std::invalid_argument("--partition " + std::to_string(o_.partition) + "/" + std::to_string(o_.partitions) +
                                  " takes no bin of " + std::to_string(total) + ": use at most " +
                                  std::to_string(total) + " partitions");
    o_.partition = 0;  // the bins are the share: every k-mer in them counts
    o_.partitions = 1;
  }

  // The pilot partitions, then the others on all threads.
  void count_partitions(PartitionStore& store, CountResult& r) {
    totals_.assign(o_.threads, ThreadTotals{});
    const uint32_t parts = plan_.partitions;
    uint64_t total = 0;
    for (const uint64_t n : kmers_) total += n;
    uint32_t pilot = 0;
    uint64_t pilot_kmers = 0;
    if (o_.expected_kmers) {
      distinct_ratio_ = total ? static_cast<double>(o_.expected_kmers) / static_cast<double>(total) : 1.0;
      table_ratio_ = distinct_ratio_ * (plan_.gated ? 0.3 : 1.0);
    } else {
      distinct_ratio_ = 1.0;
      table_ratio_ = 0.25;
      PartitionCounter<W> counter(o_, plan_, totals_[0]);
      LoadedPartition part;
      std::vector<std::pair<W, uint32_t>> solid;
      uint64_t distinct = 0, keys = 0;
      for (; pilot < parts && pilot_kmers < kPilotKmers; ++pilot) {
        count_one(store, counter, pilot, part, solid, false);
        const PartitionOutcome& po = outcomes_[pilot];
        pilot_kmers += po.kmers;
        distinct += po.distinct;
        keys += po.table_keys;
      }
      if (pilot_kmers) {
        distinct_ratio_ = static_cast<double>(distinct) / static_cast<double>(pilot_kmers);
        table_ratio_ = static_cast<double>(keys) / static_cast<double>(pilot_kmers);
      }
    }
    sizing(r, total, pilot, pilot_kmers);
    std::atomic<uint32_t> next{pilot};
    std::atomic<bool> failed{false};
    auto work = [&](unsigned id) {
      PartitionCounter<W> counter(o_, plan_, totals_[id]);
      LoadedPartition part;
      std::vector<std::pair<W, uint32_t>> solid;
      for (uint32_t p; !failed && (p = next.fetch_add(1)) < parts;) count_one(store, counter, p, part, solid, true);
    };
    detail::run_on_threads(o_.threads, work, [&] { failed = true; });
    log_growth();
  }

  // -v: the chains that grew, by layer (their first layers were sized too small).
  void log_growth() const {
    for (size_t layer = 2;; ++layer) {
      uint32_t grown = 0;
      for (const PartitionOutcome& po : outcomes_) grown += po.layers >= layer;
      if (grown == 0) return;
      log("Bloom gate: layer " + std::to_string(layer) + " added in " + std::to_string(grown) + " of " +
          std::to_string(plan_.partitions) + " partitions");
    }
  }

  void count_one(PartitionStore& store, PartitionCounter<W>& counter, uint32_t p, LoadedPartition& part,
                 std::vector<std::pair<W, uint32_t>>& solid, bool measured) {
    if (files_.empty()) {
      detail::load_partition(store, p, part);
    } else {
      part.data.clear();
      part.fragments.clear();
      for (size_t i = 0; i < files_.size(); ++i) files_[i].append_bin(bins_[p], i, part);
    }
    solid.clear();
    uint32_t sweeps = 1;
    const PartitionSizing size = sizing_of(p, measured, sweeps);
    outcomes_[p] = counter.count(part, kmers_[p], size, sweeps, solid);
    outcomes_[p].solid = solid.size();
    outcomes_[p].sweeps = sweeps;
    write_run(store.spool(), p, solid);
    units_done(kmers_[p]);
  }

  std::string cache_source() const { return o_.cache_bytes ? "CountOptions" : machine_caches().source; }

  // Partition p's sweeps (1 before the ratios are measured: the pilot) and
  // the filter and table sizing of each. The pilot's filter and table start
  // at the cache target and grow as its k-mers need (the filter by layers,
  // at its compound rate; the table by doubling): sized from the assumed
  // ratios, a pilot partition of 1.7 M occurrences took a table of 12.6 MB.
  PartitionSizing sizing_of(uint32_t p, bool measured, uint32_t& sweeps) const {
    sweeps = measured ? sweeps_for(kmers_[p], distinct_ratio_, table_ratio_, o_.k, plan_.cache_bytes, plan_.tagged) : 1;
    PartitionSizing s = size_partition((kmers_[p] + sweeps - 1) / sweeps, distinct_ratio_, table_ratio_);
    if (!measured) {
      const double target = kCacheMultiple * static_cast<double>(plan_.cache_bytes);
      s.bloom_capacity = std::min(s.bloom_capacity, static_cast<uint64_t>(target / kFilterBytesPerKey));
      s.table_keys = std::min(s.table_keys, static_cast<uint64_t>(target / (kTableBytesPerKey * partition_factor(o_.k))));
    }
    return s;
  }

  // Partition p's sorted solid k-mers into the spool, as (key, count)
  // entries of run_entry_bytes(p): a 64-bit key without the bits that name
  // its merge range (the range is where the merge reads it), the count in
  // as many bytes as the run's largest takes. On 25x Illumina pairs of a
  // 120 Mbp genome, 8 bytes an entry where whole keys and counts took 12:
  // the runs were 1.75 of the 3.8 GB the spool took in.
  // The run's range starts too (range_start).
  void write_run(Spool& spool, uint32_t p, const std::vector<std::pair<W, uint32_t>>& solid) {
    uint32_t largest = 0;
    for (const auto& e : solid) largest = std::max(largest, e.second);
    count_bytes_[p] = static_cast<uint8_t>(largest < (1u << 8) ? 1 : largest < (1u << 16) ? 2 : largest < (1u << 24) ? 3 : 4);
    // Blocks no larger than the data blocks, so that they fit the pool's slots.
    const size_t per_block = run_block_entries(p), entry = run_entry_bytes(p), key_bytes = run_key_bytes();
    size_t at = 0;
    for (uint32_t r = 0; r < ranges(); ++r) {
      range_start(p, r) = static_cast<uint32_t>(at);
      while (at < solid.size() && range_of(solid[at].first) <= r) ++at;
    }
    range_start(p, ranges()) = static_cast<uint32_t>(solid.size());
    std::vector<uint8_t> buf;
    for (size_t i = 0; i < solid.size(); i += per_block) {
      const size_t n = std::min(per_block, solid.size() - i);
      buf.resize(n * entry + sizeof(W));  // room for whole-word stores
      uint8_t* to = buf.data();
      for (size_t j = 0; j < n; ++j, to += entry) {
        std::memcpy(to, &solid[i + j].first, sizeof(W));  // a 64-bit key's low bytes first (little-endian)
        const uint32_t c = solid[i + j].second;
        std::memcpy(to + key_bytes, &c, count_bytes_[p]);
      }
      runs_[p].push_back(spool.put(buf.data(), static_cast<uint32_t>(n * entry)));
    }
  }

  void sizing(CountResult& r, uint64_t total, uint32_t pilot, uint64_t pilot_kmers) {
    SizingReport& z = r.sizing;
    z.ran = true;
    z.source = o_.expected_kmers ? "--expected" : "pilot partitions";
    z.distinct = distinct_ratio_ * static_cast<double>(total);
    z.exact = pilot == plan_.partitions;
    z.relative_std_error = pilot_kmers ? 1 / std::sqrt(std::max(1.0, distinct_ratio_ * static_cast<double>(pilot_kmers))) : 0;
    z.fpr = plan_.gated ? plan_.fpr : 0;
    z.first_layer_share = plan_.gated ? plan_.first_share : 0;
    z.planned_bytes = plan_.buffer_bytes() + plan_.spool_memory;
    for (uint32_t p = 0; p < plan_.partitions; ++p) {
      uint32_t sweeps = 1;
      const PartitionSizing s = sizing_of(p, true, sweeps);
      z.bloom_capacity += plan_.gated ? s.bloom_capacity * sweeps : 0;
      z.table_keys += s.table_keys * sweeps;
    }
    log("sizing: " + std::to_string(pilot) + " pilot partitions, " + std::to_string(std::llround(z.distinct)) +
        " distinct k-mers expected");
  }

  // Key ranges of the merge: by the first min(k, 5) bases, 4^that ranges
  // (kMergeRanges at most).
  // A partition's run is sorted, so range r of it is one stretch of entries,
  // [range_start(p, r), range_start(p, r + 1)).
  uint32_t ranges() const { return uint32_t{1} << range_bits(); }
  unsigned range_bits() const { return merge_range_bits(o_.k); }
  uint32_t range_of(const W& key) const { return static_cast<uint32_t>(static_cast<unsigned>(key >> (2 * o_.k - range_bits()))); }
  uint32_t& range_start(uint32_t p, uint32_t r) { return starts_[size_t{p} * (ranges() + 1) + r]; }
  uint64_t range_size(uint32_t r) {
    uint64_t n = 0;
    for (uint32_t p = 0; p < plan_.partitions; ++p) n += range_start(p, r + 1) - range_start(p, r);
    return n;
  }
  static constexpr size_t kEntry = sizeof(W) + sizeof(uint32_t);  // the widest run entry
  // A run entry's key: for 64-bit keys the bytes of the bits below the
  // range's (none for k <= 5), else the whole word.
  size_t run_key_bytes() const {
    if constexpr (std::is_same_v<W, uint64_t>) return (2 * o_.k - range_bits() + 7) / 8;
    return sizeof(W);
  }
  size_t run_entry_bytes(uint32_t p) const { return run_key_bytes() + count_bytes_[p]; }
  // A run entry's count is read as a whole word and masked to its bytes
  // (the buffers have a word of room past their entries): a copy of 1 to 3
  // bytes into a word stalls the load that follows it.
  uint32_t run_count_mask(uint32_t p) const { return static_cast<uint32_t>((uint64_t{1} << (8 * count_bytes_[p])) - 1); }
  size_t run_block_entries(uint32_t p) const { return std::min<size_t>(plan_.block_bytes, kRunBlockBytes) / run_entry_bytes(p); }
  // Reads entries of partition p's run from `at` into buf: at most `max`, up
  // to `end` and within at's block; returns how many.
  size_t read_run(const Spool& spool, uint32_t p, uint64_t at, uint64_t end, uint64_t max, uint8_t* buf) const {
    const size_t entry = run_entry_bytes(p), per_block = run_block_entries(p);
    const uint64_t within = at % per_block;
    const auto n = static_cast<size_t>(std::min<uint64_t>({max, end - at, per_block - within}));
    spool.read(runs_[p][at / per_block], static_cast<uint32_t>(within * entry), static_cast<uint32_t>(n * entry), buf);
    return n;
  }

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
  class RangeMerger {
   public:
    RangeMerger(Engine& e, const Spool& spool, size_t cursor_entries)
        : e_(e), spool_(spool), key_bytes_(e.run_key_bytes()), cap_(std::max<size_t>(1, cursor_entries)) {
      while (leaves_ < e.plan_.partitions) leaves_ *= 2;
      cursors_.resize(leaves_);
      head_.assign(leaves_, kDone);
      count_.assign(leaves_, 0);
      loser_.resize(leaves_);
      winner_.resize(2 * leaves_);
      buf_.resize(size_t{e.plan_.partitions} * cap_ * kEntry + sizeof(W));  // room for whole-word loads
    }

    // Range r's k-mers, in order, packed into `out` (sized to fit them).
    void merge(uint32_t r, Chunk& out) {
      const uint32_t parts = e_.plan_.partitions;
      const unsigned bytes = (e_.o_.k + 3) / 4;
      uint64_t n = 0;
      if constexpr (std::is_same_v<W, uint64_t>) {
        const unsigned low = 2 * e_.o_.k - e_.range_bits();
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
      const size_t entry = e_.run_entry_bytes(p);
      if (c.pos == c.fill) {
        c.fill = e_.read_run(spool_, p, c.at, c.end, cap_, buf);
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
      count_[p] = count & e_.run_count_mask(p);
      ++c.pos;
    }

    Engine& e_;
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
    RangeSorter(Engine& e, const Spool& spool, uint64_t max_words, uint64_t window_bytes, std::atomic<uint64_t>& sliced)
        : e_(e), spool_(spool), sliced_(sliced), key_bytes_(e.run_key_bytes()),
          low_(2 * e.o_.k - e.range_bits()), count_bits_(std::min(32u, 64 - low_)),
          count_mask_((uint64_t{1} << count_bits_) - 1), max_words_(std::max<uint64_t>(1, max_words)),
          buf_(kRunBlockBytes + sizeof(uint64_t)),
          slot_bytes_(std::min<uint64_t>(std::min<uint64_t>(e.plan_.block_bytes, kRunBlockBytes),
                                         window_bytes / e.plan_.partitions)) {
      if (slot_bytes_ < kEntry) return;  // too small to hold an entry: every stretch read as it comes
      windows_.assign(e.plan_.partitions, Window{});
      kept_ = std::make_unique_for_overwrite<uint8_t[]>(e.plan_.partitions * slot_bytes_ + sizeof(uint64_t));
    }

    // Range r's k-mers, in order, packed into `out` (sized to fit them).
    void merge(uint32_t r, Chunk& out) {
      const uint64_t n = e_.range_size(r);
      const unsigned bytes = (e_.o_.k + 3) / 4;
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
      for (uint32_t p = 0; p < e_.plan_.partitions; ++p) {
        const size_t entry = e_.run_entry_bytes(p);
        const uint32_t stored_mask = e_.run_count_mask(p);
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
      const size_t entry = e_.run_entry_bytes(p), per_block = e_.run_block_entries(p);
      const Spool::Block& block = e_.runs_[p][at / per_block];
      const uint64_t block_end = at - at % per_block + block.size / entry;
      m = static_cast<size_t>(std::min(end, block_end) - at);
      const size_t fit = slot_bytes_ / entry;
      if (windows_.empty() || block.in_memory() || fit < m) {
        m = e_.read_run(spool_, p, at, end, UINT64_MAX, buf_.data());  // a block fits buf_
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

    Engine& e_;
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

  // The ranges in order to the sink: every thread merges the next range not
  // taken (a tree of its own), and the thread that completes the next range
  // in line hands it, and those after it that are done, to the sink
  // (SerialOrder::deliver). A range runs at most `window` ranges ahead of the
  // one next in line: as many of the largest range as half the merge's
  // buffers hold under -M; without, also two of average size a thread, so
  // that the threads keep merging while one writes.
  void merge(const Spool& spool, const PackedKmerSink& sink, CountResult& r) {
    uint64_t largest = 0;
    for (const ThreadTotals& t : totals_) largest = std::max(largest, t.max_count);
    if (sink.start) sink.start(std::min<uint64_t>(largest, o_.max_count));
    const unsigned threads = o_.threads;
    const bool apart = sink.format && sink.write && threads > 1;  // alone, the writer formats as it writes
    const uint32_t R = ranges();
    // The cursors' buffers take half the merge's read-back buffers, the
    // ranges ahead the other half.
    const uint64_t buffers = uint64_t{plan_.partitions} * kRunBlockBytes;
    const size_t cursor_entries = buffers / 2 / (uint64_t{threads} * plan_.partitions * kEntry);
    const uint64_t per_kmer = (o_.k + 3) / 4 + sizeof(uint32_t) + (apart ? o_.k + 8 : 0);  // formatted: about k + 8 more
    uint64_t total = 0, widest = 1;
    std::vector<uint64_t> first_of(R);  // the index of each range's first k-mer in the output
    for (uint32_t i = 0; i < R; ++i) {
      const uint64_t n = range_size(i);
      first_of[i] = total;
      total += n;
      widest = std::max(widest, n);
    }
    // In place (KFF to a file): each range goes where its first k-mer's
    // index puts it, written by the thread that merged it; no thread writes
    // for the others, and no range waits for the one before.
    const bool in_place = sink.begin_in_place && sink.write_at && sink.begin_in_place(total);
    std::atomic<uint64_t> placed{0};
    const uint64_t budget = std::max(buffers / 2, o_.max_memory ? 0 : 2 * (threads + 1) * total / R * per_kmer);
    detail::SerialOrder<Chunk> order(std::max<uint64_t>(1, budget / (widest * per_kmer)));
    std::atomic<uint32_t> next{0};
    std::atomic<bool> failed{false};
    auto emit = [&](const Chunk& chunk) {
      if (apart) sink.write(chunk.bytes);
      else sink.add(chunk.kmers(o_.k));
      r.solid += chunk.counts.size();
      units_done(chunk.counts.size());
    };
    // Ranges of 64-bit keys are sorted (RangeSorter; the runs are grouped)
    // in slices of at most the cursors' half of the buffers a thread under
    // -M, and of kMergeSortBytes or that without (16 bytes a k-mer; the
    // range's output takes 12 more).
    const bool sorted = plan_.grouped_runs;
    const uint64_t cursors_share = buffers / 2 / threads;
    const uint64_t sort_bytes =
        o_.sort_bytes.value_or(o_.max_memory ? cursors_share : std::max(cursors_share, kMergeSortBytes));
    // Without -M, a thread keeps up to kMergeSortBytes of the run blocks it
    // read from the file (RangeSorter::entries); under -M, nothing.
    const uint64_t window_bytes = o_.max_memory ? 0 : kMergeSortBytes;
    std::atomic<uint64_t> sliced{0};
    auto merge_ranges = [&](auto&& make) {
      auto m = make();
      Chunk own;
      std::string scratch;
      for (uint32_t i; !failed && (i = next.fetch_add(1)) < R;) {
        if (in_place) {
          m.merge(i, own);
          sink.write_at(first_of[i], own.kmers(o_.k), scratch);
          placed.fetch_add(own.counts.size(), std::memory_order_relaxed);
          units_done(own.counts.size());
          continue;
        }
        auto chunk = std::make_unique<Chunk>();
        chunk->serial = i;
        m.merge(i, *chunk);
        if (apart) sink.format(chunk->kmers(o_.k), chunk->bytes);
        order.deliver(std::move(chunk), emit);
      }
    };
    auto work = [&](unsigned) {
      if constexpr (std::is_same_v<W, uint64_t>)
        if (sorted) return merge_ranges([&] { return RangeSorter(*this, spool, sort_bytes / 16, window_bytes, sliced); });
      merge_ranges([&] { return RangeMerger(*this, spool, cursor_entries); });
    };
    detail::run_on_threads(threads, work, [&] {
      failed = true;
      order.abort();
    });
    r.solid += placed.load();
    r.merge.sorted = sorted;
    r.merge.ranges = R;
    r.merge.sliced = sliced.load();
  }

  void finish(CountResult& r, const Spool& spool);

  CountOptions o_;
  const CountHooks& hooks_;
  std::vector<detail::BinFile> files_;  // bin files given as the input
  std::vector<uint32_t> bins_;          // partition p counts bin bins_[p] of each
  CountPlan plan_;
  std::vector<uint64_t> kmers_;  // occurrences spooled per partition
  std::vector<PartitionOutcome> outcomes_;
  std::vector<std::vector<Spool::Block>> runs_;  // per partition, its sorted solid k-mers
  std::vector<uint32_t> starts_;                 // range_start of every run
  std::vector<uint8_t> count_bytes_;             // of a run's counts, per partition
  std::vector<ThreadTotals> totals_;
  double distinct_ratio_ = 1, table_ratio_ = 1;
};

// Sums in partition order (floating point too), histogram, statistics.
template <class W>
void Engine<W>::finish(CountResult& r, const Spool& spool) {
  r.histogram.assign(o_.histo_max + 2, 0);
  BloomReport& b = r.bloom;
  std::vector<uint64_t> with_layer;
  for (const ThreadTotals& t : totals_) {
    for (size_t c = 0; c < r.histogram.size(); ++c) r.histogram[c] += t.histogram[c];
    r.max_count = std::max(r.max_count, t.max_count);
    r.table_capacity += t.table_capacity;
    r.table_bytes += t.table_bytes;
    r.counting_bytes += t.working_bytes;
    r.counting_bytes_planned = plan_.working_bytes;
    b.bytes += t.bloom_bytes;
    b.keys_inserted += t.keys_inserted;
    b.gate_rejected += t.gate_rejected;
    for (size_t i = 0; i < t.layers.size(); ++i) {
      if (b.layers.size() <= i) {
        b.layers.push_back({0, 0, 0, 0, t.layers[i].hashes, t.layers[i].target_fpr, 0});
        with_layer.push_back(0);
      }
      BloomReport::Layer& l = b.layers[i];
      l.capacity += t.layers[i].capacity;
      l.bits += t.layers[i].bits;
      l.keys += t.layers[i].keys;
      l.bits_set += t.layers[i].bits_set;
      l.estimated_fpr += t.layers[i].estimated_fpr;
      with_layer[i] += t.with_layer[i];
    }
  }
  for (size_t i = 0; i < b.layers.size(); ++i) b.layers[i].estimated_fpr /= static_cast<double>(with_layer[i]);
  PartitionReport& pr = r.partitions;
  pr.count = plan_.partitions;
  pr.minimizer = plan_.minimizer;
  pr.cache_bytes = plan_.cache_bytes;
  pr.cache_source = cache_source();
  pr.tagged = plan_.tagged;
  for (uint32_t p = 0; p < plan_.partitions; ++p) {
    const PartitionOutcome& po = outcomes_[p];
    r.input.kmers += po.kmers;
    r.distinct += po.distinct;
    r.table_keys += po.table_keys;
    pr.split += po.sweeps > 1;
    pr.recounted += po.recounted;
    pr.max_sweeps = std::max(pr.max_sweeps, po.sweeps);
    if (po.kmers > pr.max_kmers || p == 0) {
      pr.max_kmers = po.kmers;
      pr.max_index = p;
      pr.max_table_keys = po.table_keys;
      pr.max_bloom_capacity = po.bloom_capacity;
    }
  }
  pr.mean_kmers = static_cast<double>(r.input.kmers) / plan_.partitions;
  r.table_load = r.table_capacity ? static_cast<double>(r.table_keys) / static_cast<double>(r.table_capacity) : 0;
  b.used = plan_.gated;
  b.target_fpr = plan_.gated ? plan_.fpr : 0;
  double pass = 1;  // the compound rate a new k-mer met, averaged over the partitions' layers
  for (const auto& l : b.layers) pass *= 1 - l.estimated_fpr;
  b.estimated_fpr = 1 - pass;
  r.singletons = r.histogram[1];
  SpoolReport& s = r.spool;
  s.dir = spool.dir();
  s.memory_budget = spool.memory_budget();
  s.memory_peak = spool.memory_peak();
  s.disk_bytes = spool.disk_bytes();
  // With more than one worker, which worker read which batch moves each
  // partition's last, partly filled blocks: up to threads - 1 more of them a
  // partition in another run (the peak is where pass 1 ends, every block
  // stored).
  const uint64_t schedule = uint64_t{o_.threads - 1} * plan_.partitions * plan_.block_bytes;
  s.hold_budget = plan_.buffer_bytes() + std::max(spool.footprint_peak() + schedule, kLeastSpoolMemory);
}

}  // namespace

CountResult count_kmers(const CountOptions& options, const PackedKmerSink& sink, const CountHooks& hooks) {
  options.validate();
  return dispatch_kmer_width(options.k, [&]<class W>() { return Engine<W>(options, hooks).run(sink); });
}

CountResult count_kmers(const CountOptions& options, const KmerSink& sink, const CountHooks& hooks) {
  const unsigned k = options.k, bytes = (k + 3) / 4;
  std::string text(k, 'A');
  PackedKmerSink each;
  each.add = [&](const PackedKmers& chunk) {
    for (size_t i = 0; i < chunk.n; ++i) {
      decode_packed_kmer(chunk.packed + i * bytes, k, text.data());
      sink(text, chunk.counts[i]);
    }
  };
  return count_kmers(options, each, hooks);
}

}  // namespace kmerbloom
