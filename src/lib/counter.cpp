#include "kmerbloom/counter.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "kmerbloom/bloom.hpp"
#include "kmerbloom/cardinality.hpp"
#include "kmerbloom/count_table.hpp"
#include "kmerbloom/kmer.hpp"

namespace kmerbloom {

void CountOptions::validate() const {
  if (inputs.empty()) throw std::invalid_argument("no input files");
  if (k < 1 || k > kMaxK) throw std::invalid_argument("-k must be between 1 and " + std::to_string(kMaxK) + ", got " + std::to_string(k));
  if (min_count < 1) throw std::invalid_argument("--min-count must be at least 1");
  if (max_count < min_count) throw std::invalid_argument("--max-count must not be below --min-count");
  if (threads < 1) throw std::invalid_argument("--threads must be at least 1");
  if (histo_max < 1) throw std::invalid_argument("--histo-max must be at least 1");
  if (batch_bases < 1) throw std::invalid_argument("batch size must be at least 1 base");
  if (fpr < 0 || fpr >= 0.5) throw std::invalid_argument("--fpr must be in (0, 0.5)");
  if (partitions < 1 || partition >= partitions)
    throw std::invalid_argument("--partition I/N needs 0 <= I < N, got " + std::to_string(partition) + "/" +
                                std::to_string(partitions));
  if (gate == GateMode::bloom && min_count < 2) throw std::invalid_argument("the Bloom gate needs --min-count 2 or more");
}

bool CountOptions::has_stream_input() const {
  return std::any_of(inputs.begin(), inputs.end(), [](const std::string& p) {
    return p == "-" || p.starts_with("/dev/") || p.starts_with("/proc/");
  });
}

namespace {

constexpr size_t kChunk = 2048;  // k-mers hashed, then prefetched and processed together
constexpr size_t kAhead = 16;    // prefetch distance

enum class Stage { insert_all, gate, recount };

// Per-thread state: input totals and the k-mer chunk being filled.
template <class W>
struct Worker {
  InputSummary sum;
  uint64_t gate_rejected = 0;
  std::vector<W> km, km2;
  std::vector<uint64_t> h, h2;
  Worker() {
    km.reserve(kChunk);
    h.reserve(kChunk);
    km2.reserve(kChunk);
    h2.reserve(kChunk);
  }
};

template <class W>
class Engine {
 public:
  Engine(const CountOptions& o, const CountHooks& hooks) : o_(o), hooks_(hooks), shape_(o.k, o.canonical) {}

  CountResult run(const KmerSink& sink) {
    CountResult r;
    const bool gated = o_.gated();
    const bool one_pass = gated && (o_.one_pass || o_.has_stream_input());
    one_pass_ = one_pass;
    if (gated && !o_.one_pass && one_pass) info("input from a stream cannot be read twice: counting in one pass (--one-pass)");

    plan(r, gated);
    if (gated) {
      ScalableBloomParams bp;
      bp.fpr = r.sizing.fpr;
      bp.growth = o_.bloom_growth;
      bp.initial_capacity = r.sizing.bloom_capacity;
      bloom_ = std::make_unique<ScalableBloom>(bp);
      log("Bloom gate: first layer for " + std::to_string(bp.initial_capacity) + " keys, " +
          std::to_string(bloom_->bytes()) + " bytes (compound false-positive rate target " + std::to_string(bp.fpr) +
          ")");
    }
    table_ = std::make_unique<CountTable<W>>(r.sizing.table_keys);
    log("table sized for " + std::to_string(r.sizing.table_keys) + " keys, " + std::to_string(table_->bytes()) +
        " bytes");

    workers_.assign(o_.threads, Worker<W>{});
    timed(r, gated ? "pass 1: Bloom gate and table" : "pass 1: counting", gated ? Stage::gate : Stage::insert_all);
    for (const auto& w : workers_) {
      r.input.add(w.sum);
      r.bloom.gate_rejected += w.gate_rejected;
    }
    if (gated) {
      report_bloom(r, one_pass);
      for (size_t i = 1; i < bloom_->layers(); ++i) {  // the estimate was low: the chain grew
        const BloomLayerInfo li = bloom_->layer_info(i, false);
        log("Bloom gate: layer " + std::to_string(i + 1) + " added for " + std::to_string(li.capacity) +
            " keys at false-positive rate " + std::to_string(li.target_fpr));
      }
    }
    log("pass 1: " + std::to_string(r.input.kmers) + " k-mers, " + std::to_string(table_->size()) + " in the table");

    if (gated && !one_pass) {
      bloom_.reset();  // the recount needs the table only
      table_->reset_counts();
      for (auto& w : workers_) w.sum = InputSummary{};
      timed(r, "pass 2: exact recount", Stage::recount);
      r.passes = 2;
    }

    r.table_bytes = table_->bytes();
    r.table_capacity = table_->capacity();
    r.table_keys = table_->size();
    r.table_load = table_->load();
    if (r.sizing.exact) distinct_estimate_ = r.sizing.distinct;
    build_histogram(r, gated, one_pass);
    if (r.sizing.exact) r.singletons_estimated = false;

    const uint32_t bonus = one_pass ? 1 : 0;  // the sighting held back by the gate
    std::string text(o_.k, 'A');
    table_->drain_sorted(
        [&](uint32_t c) {
          const uint64_t n = uint64_t{c} + bonus;
          return c > 0 && n >= o_.min_count && n <= o_.max_count;
        },
        [&](W km, uint32_t c) {
          ++r.solid;
          decode_kmer_to(km, o_.k, text.data());
          sink(text, uint64_t{c} + bonus);
        });
    return r;
  }

 private:
  void log(const std::string& s) const {
    if (hooks_.log) hooks_.log(s);
  }
  void info(const std::string& s) const {
    if (hooks_.info) hooks_.info(s);
  }

  // Sizes the filter and the table: from --expected, else from a sampled
  // estimate of the spectrum (one fast extra read of the files), else (a
  // stream, which can be read only once) from a default the chain grows from.
  void plan(CountResult& r, bool gated) {
    SizingReport& z = r.sizing;
    auto mb = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MB"; };
    const uint64_t buffers = (2 * o_.threads + 2) * o_.batch_bases * 5 / 2 + o_.threads * (8u << 20);
    // The buffers alone can exceed the budget: say so before the sizing pass
    // reads the input.
    if (o_.max_memory && buffers > o_.max_memory)
      throw BudgetError("cannot count in " + mb(o_.max_memory) + ": the read buffers of " +
                        std::to_string(o_.threads) + " threads alone need " + mb(buffers) +
                        "; raise -M or use fewer threads (-t)");
    double f0 = 0, f1 = 0;
    if (o_.expected_kmers) {
      z.source = "--expected";
      f0 = static_cast<double>(o_.expected_kmers);
      f1 = f0 * 0.8;  // read sets: most distinct k-mers are error singletons
    } else if (!o_.has_stream_input()) {
      z.source = "estimate";
      if (hooks_.pass) hooks_.pass("sizing: estimating distinct k-mers");
      const auto t0 = std::chrono::steady_clock::now();
      EstimateOptions eo;
      eo.inputs = o_.inputs;
      eo.k = o_.k;
      eo.canonical = o_.canonical;
      eo.threads = o_.threads;
      eo.batch_bases = o_.batch_bases;
      // The sizing pass keeps to the budget too: each worker's sampler peaks
      // at 48 bytes a key (a 16-byte slot table doubling from 2 to 4 slots
      // a key). 2^12 keys still estimate within 1.6%.
      while (o_.max_memory && eo.sample_log2 > 12 &&
             buffers + o_.threads * (uint64_t{48} << eo.sample_log2) > o_.max_memory)
        --eo.sample_log2;
      const EstimateResult est = estimate_kmers(eo, hooks_.progress);
      r.pass_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      const double share = 1.0 / o_.partitions;
      f0 = est.spectrum.distinct * share;
      f1 = (est.spectrum.f.size() > 1 ? est.spectrum.f[1] : 0) * share;
      z.ran = true;
      z.relative_std_error = est.spectrum.relative_std_error;
      z.exact = est.spectrum.exact && o_.partitions == 1;
      log("sizing: about " + std::to_string(std::llround(f0)) + " distinct k-mers, " +
          std::to_string(std::llround(f1)) + " singletons");
    } else {
      z.source = "default";
      f0 = double{1 << 22};
      f1 = f0 * 0.8;
    }
    z.distinct = f0;
    z.singletons = f1;
    // Margins: three standard errors of the estimate plus 2%.
    const double margin = 1.02 + 3 * z.relative_std_error;
    z.bloom_capacity = std::max<uint64_t>(1024, static_cast<uint64_t>(f0 * margin));
    const double repeated = gated ? std::max(0.0, f0 - f1) : f0;
    // Repeated k-mers, plus the singletons the filter lets through.
    auto table_keys = [&](double fpr) { return static_cast<uint64_t>((repeated + (gated ? fpr * f1 : 0)) * margin); };
    auto bloom_bytes = [&](double fpr) {
      return gated ? BlockedBloom::shape_for_capacity(z.bloom_capacity, fpr).blocks * BlockedBloom::kBlockBytes : 0;
    };
    auto total = [&](double fpr) {
      return bloom_bytes(fpr) + CountTable<W>::bytes_for(table_keys(fpr)) + buffers;
    };
    double fpr = gated ? o_.effective_fpr() : 0;
    if (o_.max_memory && total(fpr) > o_.max_memory && gated && !one_pass_ && o_.fpr == 0) {
      // Exact mode: a higher rate only lets more singletons into the table
      // (the recount drops them); trade filter bits for table entries.
      double best = fpr;
      for (double p = fpr; p <= 0.25; p *= 1.25)
        if (total(p) < total(best)) best = p;
      if (best != fpr) log("memory budget: Bloom false-positive rate raised to " + std::to_string(best));
      fpr = best;
    }
    z.fpr = fpr;
    z.table_keys = table_keys(fpr);
    z.planned_bytes = total(fpr);
    if (o_.max_memory && z.planned_bytes > o_.max_memory) {
      throw BudgetError("cannot count in " + mb(o_.max_memory) + ": about " + std::to_string(std::llround(f0)) +
                        " distinct k-mers need " + mb(z.planned_bytes) + " (Bloom filter " + mb(bloom_bytes(fpr)) +
                        ", table " + mb(CountTable<W>::bytes_for(z.table_keys)) + ", buffers " + mb(buffers) +
                        "); raise -M or split the work with --partition I/N");
    }
  }

  void timed(CountResult& r, const std::string& name, Stage stage) {
    if (hooks_.pass) hooks_.pass(name);
    const auto t0 = std::chrono::steady_clock::now();
    PipelineOptions popt;
    popt.workers = o_.threads;
    popt.batch_bases = o_.batch_bases;
    // One pass through the gate with several threads: whether a k-mer's
    // first sighting hits a Bloom false positive depends on the keys inserted
    // before it, so the batches pass the gate in input order and the result
    // is the same for any thread count. Reading, parsing and k-mer
    // extraction stay parallel; smaller batches keep the threads overlapping.
    ordered_ = stage == Stage::gate && one_pass_ && o_.threads > 1;
    if (ordered_) popt.batch_bases = std::min<uint64_t>(o_.batch_bases, 256u << 10);
    next_serial_ = 0;
    turn_failed_ = false;
    run_pipeline(o_.inputs, popt, [&](const RecordBatch& b, unsigned id) { process(b, workers_[id], stage); },
                 hooks_.progress);
    r.pass_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }

  void process(const RecordBatch& batch, Worker<W>& w, Stage stage) {
    for (size_t i = 0; i < batch.size(); ++i) {
      const std::string_view seq = batch.seq(i);
      ++w.sum.reads;
      w.sum.bases += seq.size();
      w.sum.bases_skipped += count_non_acgt(seq);
      for_each_kmer(seq, shape_, [&](W km) {
        w.km.push_back(km);
        if (w.km.size() == kChunk && !ordered_) flush(w, stage);
      });
    }
    if (!ordered_) return flush(w, stage);
    // The whole batch, after every batch before it (see timed()).
    std::unique_lock<std::mutex> lock(turn_mu_);
    turn_cv_.wait(lock, [&] { return next_serial_ == batch.serial || turn_failed_; });
    if (turn_failed_) return;  // another worker failed: its error ends the run
    lock.unlock();
    try {
      flush(w, stage);
    } catch (...) {
      lock.lock();
      turn_failed_ = true;
      turn_cv_.notify_all();
      throw;
    }
    lock.lock();
    ++next_serial_;
    turn_cv_.notify_all();
  }

  // Hashes the chunk, then walks it with prefetches kAhead k-mers ahead so
  // that many cache misses are in flight at once.
  void flush(Worker<W>& w, Stage stage) {
    size_t n = w.km.size();
    w.h.resize(n);
    for (size_t i = 0; i < n; ++i) w.h[i] = hash_kmer(w.km[i]);
    if (o_.partitions > 1) {
      size_t kept = 0;
      for (size_t i = 0; i < n; ++i)
        if (partition_of(w.h[i], o_.partitions) == o_.partition) {
          w.km[kept] = w.km[i];
          w.h[kept++] = w.h[i];
        }
      n = kept;
      w.km.resize(n);
      w.h.resize(n);
    }
    w.sum.kmers += n;
    CountTable<W>& table = *table_;
    switch (stage) {
      case Stage::insert_all:
        for (size_t i = 0; i < n; ++i) {
          if (i + kAhead < n) table.prefetch_hashed(w.h[i + kAhead]);
          table.add_hashed(w.km[i], w.h[i]);
        }
        break;
      case Stage::recount:
        for (size_t i = 0; i < n; ++i) {
          if (i + kAhead < n) table.prefetch_hashed(w.h[i + kAhead]);
          table.add_if_present_hashed(w.km[i], w.h[i]);
        }
        break;
      case Stage::gate: {
        // Most occurrences are of k-mers already in the table: look there
        // first, so only table misses pay for a Bloom filter access.
        w.km2.clear();
        w.h2.clear();
        for (size_t i = 0; i < n; ++i) {
          if (i + kAhead < n) table.prefetch_hashed(w.h[i + kAhead]);
          if (!table.add_if_present_locked(w.km[i], w.h[i])) {
            w.km2.push_back(w.km[i]);
            w.h2.push_back(w.h[i]);
          }
        }
        // Misses seen before by the filter are second sightings: into the table.
        ScalableBloom& bloom = *bloom_;
        size_t m = 0;
        const size_t misses = w.km2.size();
        for (size_t i = 0; i < misses; ++i) {
          if (i + kAhead < misses) bloom.prefetch(w.h2[i + kAhead]);
          if (seen_before(bloom, w.h2[i])) {
            w.km2[m] = w.km2[i];
            w.h2[m++] = w.h2[i];
          }
        }
        w.gate_rejected += misses - m;
        for (size_t i = 0; i < m; ++i) {
          if (i + kAhead < m) table.prefetch_hashed(w.h2[i + kAhead]);
          table.add_hashed(w.km2[i], w.h2[i]);
        }
        break;
      }
    }
    w.km.clear();
  }

  // The filter's test_and_set sets a key's bits word by word, so two threads
  // inserting the same new key at once could both be told "new" and a k-mer
  // seen exactly twice would never reach the table. Inserts of keys that
  // look new are serialised per lock stripe (by hash); keys already present
  // are answered without a lock.
  bool seen_before(ScalableBloom& bloom, uint64_t h) {
    if (bloom.contains(h)) return true;
    std::atomic<bool>& lock = stripes_[h & (kStripes - 1)];
    while (lock.exchange(true, std::memory_order_acquire))
      while (lock.load(std::memory_order_relaxed)) __builtin_ia32_pause();
    const bool present = bloom.test_and_set(h);
    lock.store(false, std::memory_order_release);
    return present;
  }

  // Expected number of first sightings that hit a false positive, from each
  // layer's false-positive rate integrated over its fill.
  double expected_false_positives() const {
    double expected = 0, older_pass = 1;  // older_pass: chance a new key passes all older layers unseen
    for (size_t i = 0; i < bloom_->layers(); ++i) {
      const BloomLayerInfo li = bloom_->layer_info(i, false);
      const BlockedBloom& f = bloom_->layer(i);
      constexpr int kSteps = 64;
      double integral = 0;
      for (int s = 0; s < kSteps; ++s) {
        const auto x = static_cast<uint64_t>((s + 0.5) / kSteps * static_cast<double>(li.keys));
        integral += BlockedBloom::expected_fpr(x, f.blocks(), f.hashes());
      }
      const double own = integral / kSteps;
      expected += static_cast<double>(li.keys) * (1 - older_pass * (1 - own));
      older_pass *= 1 - BlockedBloom::expected_fpr(li.keys, f.blocks(), f.hashes());
    }
    return expected;
  }

  void report_bloom(CountResult& r, bool one_pass) {
    BloomReport& b = r.bloom;
    b.used = true;
    b.one_pass = one_pass;
    b.target_fpr = bloom_->params().fpr;
    b.estimated_fpr = bloom_->estimated_fpr();
    b.bytes = bloom_->bytes();
    b.keys_inserted = bloom_->keys_inserted();
    for (size_t i = 0; i < bloom_->layers(); ++i) {
      const BloomLayerInfo li = bloom_->layer_info(i, true);
      b.layers.push_back({li.capacity, li.bits, li.keys, li.bits_set, li.hashes, li.target_fpr, li.estimated_fpr});
    }
    const double fp = expected_false_positives();
    // Every distinct k-mer's first sighting either went into the filter or hit
    // a false positive (its bits were all set already), so one layer's bits
    // are those of all distinct k-mers, whatever the order of the sightings:
    // F0 from the fill is the same for any thread count. The keys inserted
    // plus the expected false positives would depend on the order. (With
    // several layers, which layer a key went to depends on it too.)
    const double f0 = bloom_->estimated_keys();
    fp_share_ = f0 > 0 ? fp / f0 : 0;
    distinct_estimate_ = f0;
  }

  void build_histogram(CountResult& r, bool gated, bool one_pass) {
    r.histogram.assign(o_.histo_max + 2, 0);
    const uint64_t top = o_.histo_max + 1;
    const uint32_t bonus = one_pass ? 1 : 0;
    uint64_t counted = 0;
    table_->for_each([&](W, uint32_t c) {
      const uint64_t n = uint64_t{c} + bonus;
      if (c == 0 || (gated && n < 2)) return;  // gated: only rows >= 2 are exact
      ++counted;
      r.max_count = std::max(r.max_count, n);
      ++r.histogram[std::min(n, top)];
    });
    if (!gated) {
      r.distinct = counted;
      r.singletons = r.histogram[1];
      return;
    }
    const double f0 = distinct_estimate_;
    const auto singletons = static_cast<uint64_t>(std::llround(std::max(0.0, f0 - static_cast<double>(counted))));
    r.singletons = r.histogram[1] = singletons;
    r.distinct = counted + singletons;
    r.singletons_estimated = true;
    r.singletons_method =
        r.sizing.exact
            ? "distinct k-mers counted exactly by the sizing pass, minus the k-mers counted at least twice"
            : "distinct k-mers estimated from the fill of the Bloom gate's layers, minus the k-mers counted at "
              "least twice";
    if (one_pass) r.bloom.expected_leaked = fp_share_ * static_cast<double>(singletons);
  }

  const CountOptions& o_;
  const CountHooks& hooks_;
  KmerShape<W> shape_;
  std::unique_ptr<ScalableBloom> bloom_;
  std::unique_ptr<CountTable<W>> table_;
  std::vector<Worker<W>> workers_;
  static constexpr size_t kStripes = 1 << 12;
  std::unique_ptr<std::atomic<bool>[]> stripes_ = std::make_unique<std::atomic<bool>[]>(kStripes);
  double distinct_estimate_ = 0, fp_share_ = 0;
  bool one_pass_ = false;
  bool ordered_ = false;  // batches pass the gate in input order
  std::mutex turn_mu_;
  std::condition_variable turn_cv_;
  uint64_t next_serial_ = 0;  // the batch whose turn it is
  bool turn_failed_ = false;
};

}  // namespace

CountResult count_kmers(const CountOptions& options, const KmerSink& sink, const CountHooks& hooks) {
  options.validate();
  return dispatch_kmer_width(options.k, [&]<class W>() { return Engine<W>(options, hooks).run(sink); });
}

}  // namespace kmerbloom
