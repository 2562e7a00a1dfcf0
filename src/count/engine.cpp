// count_kmers(): read once into minimizer partitions (count/scatter.hpp),
// count each partition in cache (count/partition_count.hpp), merge the
// partitions' sorted solid k-mers (count/merge.hpp). docs/partitioned-counting.md
// tells the design and its measurements.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <optional>

#include "count/bins.hpp"
#include "count/plan.hpp"
#include "count/spool.hpp"
#include "count/counter.hpp"
#include "count/merge.hpp"
#include "count/tuning.hpp"
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
  const uint64_t tuned = detail::tuning_of(o).cache_bytes;
  est.cache_bytes = tuned ? tuned : machine_caches().l2_per_thread();
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
    so.disk_limit = detail::tuning_of(o_).tmp_disk_limit;
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
    runs_.emplace(o_.k, plan_.partitions, plan_.block_bytes);
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
    runs_->write(store.spool(), p, solid);
    units_done(kmers_[p]);
  }

  std::string cache_source() const { return detail::tuning_of(o_).cache_bytes ? "CountOptions" : machine_caches().source; }

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

  // Pass 3 (count/merge.hpp), after the sink learns the largest count.
  void merge(const Spool& spool, const PackedKmerSink& sink, CountResult& r) {
    uint64_t largest = 0;
    for (const ThreadTotals& t : totals_) largest = std::max(largest, t.max_count);
    if (sink.start) sink.start(std::min<uint64_t>(largest, o_.max_count));
    const detail::MergeSettings ms{.threads = o_.threads, .max_memory = o_.max_memory, .sorted = plan_.grouped_runs,
                                   .sort_bytes = detail::tuning_of(o_).sort_bytes};
    uint64_t solid = 0;
    r.merge = detail::merge_runs(*runs_, spool, sink, ms, solid, [this](uint64_t n) { units_done(n); });
    r.solid += solid;
  }

  void finish(CountResult& r, const Spool& spool);

  CountOptions o_;
  const CountHooks& hooks_;
  std::vector<detail::BinFile> files_;  // bin files given as the input
  std::vector<uint32_t> bins_;          // partition p counts bin bins_[p] of each
  CountPlan plan_;
  std::vector<uint64_t> kmers_;  // occurrences spooled per partition
  std::vector<PartitionOutcome> outcomes_;
  std::optional<detail::SortedRuns<W>> runs_;  // every partition's sorted solid k-mers
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
