#include "kmerbloom/count/counter.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "kmerbloom/bloom/bloom.hpp"
#include "kmerbloom/count/count_table.hpp"
#include "kmerbloom/io/paths.hpp"
#include "kmerbloom/kmer/cardinality.hpp"
#include "kmerbloom/kmer/kmer.hpp"

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
  return std::any_of(inputs.begin(), inputs.end(), [](const std::string& p) { return is_stream(p); });
}

namespace {

constexpr size_t kChunk = 2048;  // k-mers hashed, then prefetched and processed together
constexpr size_t kAhead = 16;    // prefetch distance
constexpr size_t kOnePassFilters = 16;  // a power of two

enum class Stage { insert_all, gate, recount };

// Per-thread state: input totals and the k-mer chunk being filled; with one
// pass, the batch's k-mers sorted by filter (km2, h2 from start[j]).
template <class W>
struct Worker {
  InputSummary sum;
  uint64_t gate_rejected = 0;
  std::vector<W> km, km2;
  std::vector<uint64_t> h, h2;
  std::vector<size_t> start, fill;
  Worker() {
    km.reserve(kChunk);
    h.reserve(kChunk);
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
      // One pass: kOnePassFilters filters, each for its share of the keys,
      // so that whether a key's first sighting hits a false positive depends
      // only on the keys of its own filter, which pass in input order. The
      // exact mode shares one filter between the threads.
      const size_t filters = one_pass ? kOnePassFilters : 1;
      ScalableBloomParams bp;
      bp.fpr = r.sizing.fpr;
      bp.first_share = r.sizing.first_layer_share;
      bp.growth = o_.bloom_growth;
      bp.initial_capacity = filter_capacity(r.sizing.bloom_capacity, filters);
      for (size_t j = 0; j < filters; ++j) blooms_.push_back(std::make_unique<ScalableBloom>(bp));
      log("Bloom gate: " + (filters > 1 ? std::to_string(filters) + " filters, first layers for " : "first layer for ") +
          std::to_string(bp.initial_capacity) + " keys each, " + std::to_string(bloom_bytes()) +
          " bytes (compound false-positive rate target " + std::to_string(bp.fpr) + ")");
    }
    // The exact pass 1 collects keys only; the counts come with the recount,
    // once the filter is freed.
    table_ = std::make_unique<CountTable<W>>(r.sizing.table_keys, !gated || one_pass);
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
      for (size_t i = 1; i < r.bloom.layers.size(); ++i) {  // the estimate was low: the chains grew
        const BloomReport::Layer& l = r.bloom.layers[i];
        log("Bloom gate: layer " + std::to_string(i + 1) + " added for " + std::to_string(l.capacity) +
            " keys at false-positive rate " + std::to_string(l.target_fpr));
      }
    }
    log("pass 1: " + std::to_string(r.input.kmers) + " k-mers, " + std::to_string(table_->size()) + " in the table");

    if (gated && !one_pass) {
      blooms_.clear();  // the recount needs the table only
      table_->enable_counts();
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
    // threads + 2 batches of names and sequences (arena capacity up to twice
    // the bases), and per worker its k-mer chunks, thread stack and
    // allocator arena.
    const uint64_t buffers = (o_.threads + 2) * o_.batch_bases * 2 + o_.threads * (8u << 20);
    // The buffers alone can exceed the budget: say so before the sizing pass
    // reads the input.
    if (o_.max_memory && buffers > o_.max_memory)
      throw BudgetError("cannot count in " + mb(o_.max_memory) + ": the read buffers of " +
                        std::to_string(o_.threads) + " threads alone need " + mb(buffers) +
                        "; raise -M or use fewer threads (-t)");
    double f0 = 0, f1 = 0;
    double repeated_error = 0;  // relative standard error of the estimate of f0 - f1
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
      // 2^18 sampled keys estimate F0 within about 0.2% (one standard error),
      // ample for sizing, at a quarter of `kmerbloom estimate`'s memory. The
      // sizing pass keeps to the budget too: each worker's sampler peaks
      // at 48 bytes a key (a 16-byte slot table doubling from 2 to 4 slots
      // a key). 2^12 keys still estimate within 1.6%.
      eo.sample_log2 = 18;
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
      const KmerSpectrumEstimate& e = est.spectrum;
      const double sampled_repeated =
          static_cast<double>(e.sampled_keys) - static_cast<double>(e.sampled_f.size() > 1 ? e.sampled_f[1] : 0);
      if (!e.exact) repeated_error = std::sqrt((1 - e.sampling_rate) / std::max(1.0, sampled_repeated));
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
    // Margins: three standard errors of each estimate plus 2%. The repeated
    // k-mers (the table's keys) are a smaller share of the sample than all
    // distinct ones, so their estimate is looser.
    const double margin = 1.02 + 3 * z.relative_std_error;
    const double table_margin = 1.02 + 3 * std::max(z.relative_std_error, repeated_error);
    z.bloom_capacity = std::max<uint64_t>(1024, static_cast<uint64_t>(f0 * margin));
    const double repeated = gated ? std::max(0.0, f0 - f1) : f0;
    // A first layer sized from an estimate (or --expected) normally stays
    // alone: it takes 80% of the rate budget. From a default size the chain
    // is expected to grow: the classic geometric split.
    ScalableBloomParams bp;
    bp.first_share = z.source == "default" ? 0.0 : 0.8;
    z.first_layer_share = bp.first_share;
    auto layer0 = [&](double fpr) {
      bp.fpr = fpr;
      return bp.layer_fpr(0);
    };
    // Exact mode: pass 1 holds the filter and the keys, pass 2 the keys and
    // their counts. Otherwise the filter and the counted keys live together.
    const bool two_pass = gated && !one_pass_;
    struct Layout {
      uint64_t bloom = 0, table_keys = 0, table = 0, total = 0;
    };
    auto layout = [&](double fpr) {
      Layout l;
      double leak = 0;
      if (gated) {
        const BlockedBloom::Shape sh = BlockedBloom::shape_for_capacity(z.bloom_capacity, layer0(fpr));
        l.bloom = sh.blocks * BlockedBloom::kBlockBytes;
        // A singleton meets the filter's rate at the fill of its moment: the
        // share that leaks is the model rate averaged over the filling.
        constexpr int kSteps = 8;
        for (int i = 0; i < kSteps; ++i)
          leak += BlockedBloom::expected_fpr(static_cast<uint64_t>((i + 0.5) / kSteps * f0), sh.blocks, sh.hashes);
        leak /= kSteps;
      }
      // Repeated k-mers, plus the singletons the filter lets through.
      l.table_keys = static_cast<uint64_t>((repeated + leak * f1) * table_margin);
      l.table = CountTable<W>::bytes_for(l.table_keys);
      l.total = buffers + (two_pass ? std::max(l.bloom + CountTable<W>::bytes_for(l.table_keys, false), l.table)
                                    : l.bloom + l.table);
      return l;
    };
    double fpr = 0;
    if (gated && o_.fpr > 0) {
      fpr = o_.fpr;
    } else if (two_pass) {
      // Exact mode: a false positive only lets a singleton into the table
      // until the recount drops it, so the rate trades filter bits against
      // table slots. Take the rate with the smallest planned peak.
      fpr = 0.001;
      uint64_t best = layout(fpr).total;
      for (double p = fpr * 1.2; p <= 0.25; p *= 1.2)
        if (const uint64_t t = layout(p).total; t < best) {
          best = t;
          fpr = p;
        }
      log("Bloom false-positive rate " + std::to_string(fpr) + ": the smallest planned peak memory");
    } else if (gated) {
      fpr = kOnePassFpr;
    }
    const Layout l = layout(fpr);
    z.fpr = fpr;
    z.table_keys = l.table_keys;
    z.planned_bytes = l.total;
    if (o_.max_memory && z.planned_bytes > o_.max_memory) {
      throw BudgetError("cannot count in " + mb(o_.max_memory) + ": about " + std::to_string(std::llround(f0)) +
                        " distinct k-mers need " + mb(z.planned_bytes) + " (Bloom filter " + mb(l.bloom) + ", table " +
                        mb(l.table) + ", buffers " + mb(buffers) + "); raise -M or split the work with --partition I/N");
    }
  }

  void timed(CountResult& r, const std::string& name, Stage stage) {
    if (hooks_.pass) hooks_.pass(name);
    const auto t0 = std::chrono::steady_clock::now();
    PipelineOptions popt;
    popt.workers = o_.threads;
    popt.batch_bases = o_.batch_bases;
    // One pass through the gate: whether a k-mer's first sighting hits a
    // Bloom false positive depends on the keys inserted into its filter
    // before it, so each filter takes the batches in input order and the
    // result is the same for any thread count. The threads work on different
    // filters at once: a worker takes filter j of its batch as soon as the
    // batch before it is done with filter j. Smaller batches keep the
    // threads overlapping.
    ordered_ = stage == Stage::gate && one_pass_;
    if (ordered_) popt.batch_bases = std::min<uint64_t>(o_.batch_bases, 256u << 10);
    turns_.assign(blooms_.size(), 0);
    leak_mass_.assign(blooms_.size(), 0.0);
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
    try {
      flush(w, stage, batch.serial);
    } catch (...) {
      std::lock_guard<std::mutex> lock(turn_mu_);
      turn_failed_ = true;
      turn_cv_.notify_all();
      throw;
    }
  }

  // Hashes the chunk, then walks it with prefetches kAhead k-mers ahead so
  // that many cache misses are in flight at once. `serial`: the batch's
  // place in the input (one pass).
  void flush(Worker<W>& w, Stage stage, uint64_t serial = 0) {
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
    }
    w.sum.kmers += n;
    CountTable<W>& table = *table_;
    W* km = w.km.data();
    uint64_t* h = w.h.data();
    switch (stage) {
      case Stage::insert_all:
        insert_keys(km, h, find_counting(km, h, n, true), true);
        break;
      case Stage::recount:  // the keys are frozen: no with_room
        for (size_t i = 0; i < n; ++i) {
          if (i + kAhead < n) table.prefetch(h[i + kAhead]);
          const uint64_t slot = table.find(km[i], h[i]);
          if (slot != CountTable<W>::kNone) table.add_count(slot);
        }
        break;
      case Stage::gate:
        if (!ordered_) {
          gate(w, km, h, n, *blooms_[0], nullptr);
          break;
        }
        // One pass: each filter's keys, in input order (see timed()). Sort
        // the batch's k-mers by filter, then take each filter's turn.
        const size_t g = blooms_.size();
        w.start.assign(g + 1, 0);
        for (size_t i = 0; i < n; ++i) ++w.start[filter_of(h[i]) + 1];
        for (size_t j = 0; j < g; ++j) w.start[j + 1] += w.start[j];
        w.km2.resize(n);
        w.h2.resize(n);
        w.fill.assign(w.start.begin(), w.start.end() - 1);
        for (size_t i = 0; i < n; ++i) {
          const size_t at = w.fill[filter_of(h[i])]++;
          w.km2[at] = km[i];
          w.h2[at] = h[i];
        }
        for (size_t j = 0; j < g; ++j) {
          {
            std::unique_lock<std::mutex> lock(turn_mu_);
            turn_cv_.wait(lock, [&] { return turns_[j] == serial || turn_failed_; });
            if (turn_failed_) return;  // another worker failed: its error ends the run
          }
          gate(w, w.km2.data() + w.start[j], w.h2.data() + w.start[j], w.start[j + 1] - w.start[j], *blooms_[j],
               &leak_mass_[j]);
          std::lock_guard<std::mutex> lock(turn_mu_);
          turns_[j] = serial + 1;
          turn_cv_.notify_all();
        }
        break;
    }
    w.km.clear();
  }

  // The gate on n keys (reordered in place): the table first, since most
  // occurrences are of k-mers already there and so only table misses pay for
  // a filter access; misses the filter has seen before are second sightings
  // and go into the table. One pass counts; the exact pass 1 collects keys.
  // `leak` null: the exact pass 1, whose filter the threads share. Else one
  // pass, whose filter is this thread's for the moment (its turn): a
  // singleton leaks if its only sighting meets a false positive, so `leak`
  // sums the filter's model rate of the moment over the first sightings it
  // takes in (see report_bloom()).
  void gate(Worker<W>& w, W* km, uint64_t* h, size_t n, ScalableBloom& bloom, double* leak) {
    const bool shared = leak == nullptr;
    const double rate = shared ? 0 : current_fpr(bloom);
    const bool counting = table_->has_counts();
    const size_t misses = find_counting(km, h, n, counting);
    size_t m = 0;
    for (size_t i = 0; i < misses; ++i) {
      if (i + kAhead < misses) bloom.prefetch(h[i + kAhead]);
      if (shared ? seen_before(bloom, h[i]) : bloom.test_and_set(h[i])) {
        km[m] = km[i];
        h[m++] = h[i];
      }
    }
    w.gate_rejected += misses - m;
    if (!shared) *leak += static_cast<double>(misses - m) * rate;
    insert_keys(km, h, m, counting);
  }

  // Looks the n keys up, adds one to the count of those present when
  // `counting`, and moves the absent ones to the front; returns how many.
  size_t find_counting(W* km, uint64_t* h, size_t n, bool counting) {
    CountTable<W>& table = *table_;
    size_t m = 0;
    table.with_room(0, [&] {
      for (size_t i = 0; i < n; ++i) {
        if (i + kAhead < n) table.prefetch(h[i + kAhead]);
        const uint64_t slot = table.find(km[i], h[i]);
        if (slot == CountTable<W>::kNone) {
          km[m] = km[i];
          h[m++] = h[i];
        } else if (counting) {
          table.add_count(slot);
        }
      }
      return uint64_t{0};
    });
    return m;
  }

  // Inserts m keys (counting one occurrence each when `counting`), with room
  // reserved for all of them being new.
  void insert_keys(const W* km, const uint64_t* h, size_t m, bool counting) {
    CountTable<W>& table = *table_;
    table.with_room(m, [&] {
      uint64_t added = 0;
      for (size_t i = 0; i < m; ++i) {
        if (i + kAhead < m) table.prefetch(h[i + kAhead]);
        bool inserted = false;
        const uint64_t slot = table.insert(km[i], h[i], &inserted);
        if (counting) table.add_count(slot);
        added += inserted;
      }
      return added;
    });
  }

  // One pass splits the k-mers between kOnePassFilters filters by hash.
  size_t filter_of(uint64_t h) const { return h & (blooms_.size() - 1); }

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

  // Keys each of `filters` first layers holds: an even share of `total`,
  // plus three standard deviations of a share's spread.
  static uint64_t filter_capacity(uint64_t total, size_t filters) {
    if (filters == 1) return total;
    const double share = static_cast<double>(total) / static_cast<double>(filters);
    return static_cast<uint64_t>(std::ceil(share + 3 * std::sqrt(share)));
  }

  uint64_t bloom_bytes() const {
    uint64_t b = 0;
    for (const auto& f : blooms_) b += f->bytes();
    return b;
  }

  // The model false-positive rate a new key meets in `bloom` now: every
  // layer at its current number of keys. Each layer shape's rate is
  // tabulated once (the model is costly) and interpolated.
  double current_fpr(const ScalableBloom& bloom) {
    double pass = 1;
    for (size_t i = 0; i < bloom.layers(); ++i) {
      const BlockedBloom& f = bloom.layer(i);
      const BloomLayerInfo li = bloom.layer_info(i, false);
      const std::vector<double>& t = fpr_table(f, li.capacity);
      const double x = static_cast<double>(li.keys) / static_cast<double>(li.capacity) * kFprSteps;
      const auto at = std::min(static_cast<size_t>(x), t.size() - 2);
      const double frac = std::min(1.0, x - static_cast<double>(at));
      pass *= 1 - (t[at] + (t[at + 1] - t[at]) * frac);
    }
    return 1 - pass;
  }
  static constexpr size_t kFprSteps = 64;  // table points per layer capacity; the table runs to 1.5x
  const std::vector<double>& fpr_table(const BlockedBloom& f, uint64_t capacity) {
    std::lock_guard<std::mutex> lock(fpr_mu_);
    std::vector<double>& t = fpr_tables_[{f.blocks(), f.hashes(), capacity}];
    if (t.empty())
      for (size_t i = 0; i <= kFprSteps * 3 / 2; ++i)
        t.push_back(BlockedBloom::expected_fpr(capacity * i / kFprSteps, f.blocks(), f.hashes()));
    return t;
  }

  // Several filters (one pass) are reported as one: layer i sums the
  // filters' layer i; its rates, and the compound rate, are the means over
  // the filters (a key meets one filter, each with the same chance).
  void report_bloom(CountResult& r, bool one_pass) {
    BloomReport& b = r.bloom;
    b.used = true;
    b.one_pass = one_pass;
    b.target_fpr = blooms_[0]->params().fpr;
    b.bytes = bloom_bytes();
    double f0 = 0;
    std::vector<size_t> with_layer;
    for (const auto& bloom : blooms_) {
      b.estimated_fpr += bloom->estimated_fpr() / static_cast<double>(blooms_.size());
      b.keys_inserted += bloom->keys_inserted();
      f0 += bloom->estimated_keys();
      for (size_t i = 0; i < bloom->layers(); ++i) {
        const BloomLayerInfo li = bloom->layer_info(i, true);
        if (b.layers.size() <= i) {
          b.layers.push_back({0, 0, 0, 0, li.hashes, li.target_fpr, 0});
          with_layer.push_back(0);
        }
        BloomReport::Layer& l = b.layers[i];
        l.capacity += li.capacity;
        l.bits += li.bits;
        l.keys += li.keys;
        l.bits_set += li.bits_set;
        l.estimated_fpr += li.estimated_fpr;
        ++with_layer[i];
      }
    }
    for (size_t i = 0; i < b.layers.size(); ++i) b.layers[i].estimated_fpr /= static_cast<double>(with_layer[i]);
    // Every distinct k-mer's first sighting either went into the filter or hit
    // a false positive (its bits were all set already), so one layer's bits
    // are those of all distinct k-mers, whatever the order of the sightings:
    // F0 from the fill is the same for any thread count. The keys inserted
    // plus the expected false positives would depend on the order. (With
    // several layers, which layer a key went to depends on it too.)
    distinct_estimate_ = f0;
    // One pass: the first sightings expected to have met a false positive,
    // each at its filter's rate of the moment (summed in filter order, so
    // the figure is the same for any thread count). Nearly all are
    // singletons: a genomic k-mer is first seen early, into a nearly empty
    // filter, while errors keep arriving as it fills. (Measured on
    // ecoli_100x: 2,567 expected, 2,570 leaked; read in the other file
    // order, 2,569 and 2,527.)
    for (const double m : leak_mass_) b.expected_leaked += m;
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
  }

  const CountOptions& o_;
  const CountHooks& hooks_;
  KmerShape<W> shape_;
  std::vector<std::unique_ptr<ScalableBloom>> blooms_;
  std::unique_ptr<CountTable<W>> table_;
  std::vector<Worker<W>> workers_;
  static constexpr size_t kStripes = 1 << 12;
  std::unique_ptr<std::atomic<bool>[]> stripes_ = std::make_unique<std::atomic<bool>[]>(kStripes);
  double distinct_estimate_ = 0;
  std::vector<double> leak_mass_;  // one pass: per filter, see gate()
  std::mutex fpr_mu_;
  std::map<std::tuple<uint64_t, unsigned, uint64_t>, std::vector<double>> fpr_tables_;  // by layer shape, capacity
  bool one_pass_ = false;
  bool ordered_ = false;  // batches pass the gate in input order
  std::mutex turn_mu_;
  std::condition_variable turn_cv_;
  std::vector<uint64_t> turns_;  // one pass: per filter, the batch whose turn it is
  bool turn_failed_ = false;
};

}  // namespace

CountResult count_kmers(const CountOptions& options, const KmerSink& sink, const CountHooks& hooks) {
  options.validate();
  return dispatch_kmer_width(options.k, [&]<class W>() { return Engine<W>(options, hooks).run(sink); });
}

}  // namespace kmerbloom
