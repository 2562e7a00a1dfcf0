#include "profile/assembly_qv.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "common/error.hpp"
#include "common/format.hpp"
#include "count/counter.hpp"
#include "kmer/kmer.hpp"
#include "profile/read_counts.hpp"
#include "seqio/paths.hpp"

namespace kmerbloom {

void CountHistogram::add(uint64_t count, uint64_t distinct) {
  if (count <= kDense)
    dense_[count] += distinct;
  else
    sparse_[count] += distinct;
}

void CountHistogram::add(const CountHistogram& other) {
  for (const auto& [count, n] : other.rows()) add(count, n);
}

std::vector<std::pair<uint64_t, uint64_t>> CountHistogram::rows() const {
  std::vector<std::pair<uint64_t, uint64_t>> r;
  for (uint64_t c = 1; c <= kDense; ++c)
    if (dense_[c]) r.emplace_back(c, dense_[c]);
  r.insert(r.end(), sparse_.begin(), sparse_.end());
  return r;
}

uint64_t CountHistogram::distinct_above(uint64_t threshold) const {
  uint64_t n = 0;
  for (const auto& [count, k] : rows()) n += count > threshold ? k : 0;
  return n;
}

uint64_t merqury_solid_threshold(const std::vector<std::pair<uint64_t, uint64_t>>& histogram) {
  bool fell = true;  // before the first row the curve is taken as falling (Merqury starts from +infinity)
  for (size_t i = 1; i < histogram.size(); ++i) {
    const uint64_t a = histogram[i - 1].second, b = histogram[i].second;
    if (fell && b > a) return histogram[i].first - 1;
    fell = b < a;  // a flat step is neither: the next rise is not a valley
  }
  return 0;
}

double kmer_error_rate(uint64_t missing, uint64_t total, unsigned k) {
  return 1.0 - std::pow(1.0 - static_cast<double>(missing) / static_cast<double>(total), 1.0 / k);
}

double phred_qv(double error) { return -10.0 * std::log(error) / std::log(10.0); }

void QvOptions::validate() const {
  if (assembly.empty()) throw std::invalid_argument("no assembly given");
  if (read_counts.empty()) throw std::invalid_argument("--reads: no read count file given");
  if (is_stream(assembly))
    throw std::invalid_argument("the assembly " + assembly + " is read twice: give a file, not a stream");
  if (threads < 1) throw std::invalid_argument("--threads must be at least 1");
  if (batch_bases < 4 * kMaxK) throw std::invalid_argument("batch size must be at least " + std::to_string(4 * kMaxK));
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One record, or one piece of a long record, of the second pass.
struct Piece {
  bool starts = false;
  std::string name;
  uint64_t kmers = 0, missing = 0;
};

std::string first_word(std::string_view header) {
  return std::string(header.substr(0, std::min(header.find_first_of(" \t"), header.size())));
}

template <class W>
class QvRun {
 public:
  QvRun(const QvOptions& o, const QvHooks& hooks) : o_(o), hooks_(hooks) {}

  QvResult run(SortedReadCounts& reads) {
    r_.k = reads.k();
    if (r_.k > 4 * sizeof(W) - 1) throw std::logic_error("word type too narrow for k");
    const auto t0 = Clock::now();
    count_and_merge(reads);
    r_.seconds_count = seconds_since(t0);
    r_.read_min_count = reads.min_count();
    settle_threshold();
    if (o_.per_sequence) {
      const auto t1 = Clock::now();
      tally_sequences();
      r_.seconds_per_sequence = seconds_since(t1);
    }
    return std::move(r_);
  }

 private:
  // First pass: the assembly's exact counts, merged with the read counts.
  void count_and_merge(SortedReadCounts& reads) {
    CountOptions co;
    co.inputs = {o_.assembly};
    co.k = r_.k;
    co.threads = o_.threads;
    // -M bounds the whole run: a quarter for the missing k-mers, the rest for the engine.
    const uint64_t reserve = o_.per_sequence ? o_.max_memory / 4 : 0;
    co.max_memory = o_.max_memory - reserve;
    co.tmp_dir = o_.tmp_dir;
    co.min_count = 1;
    co.gate = GateMode::none;
    co.validate();
    const uint64_t limit = o_.max_memory ? reserve : std::numeric_limits<uint64_t>::max();
    const auto read_only = [&] {
      r_.copies[0].add(reads.count());
      ++r_.read_distinct;
      reads.advance();
    };
    KmerSink sink = [&](std::string_view kmer, uint64_t copies) {
      while (!reads.done() && reads.kmer() < kmer) read_only();
      r_.asm_kmers += copies;
      ++r_.asm_distinct;
      if (!reads.done() && reads.kmer() == kmer) {
        r_.copies[std::min<uint64_t>(copies, kCopyRows - 1)].add(reads.count());
        ++r_.read_distinct;
        reads.advance();
        return;
      }
      r_.missing += copies;
      ++r_.missing_distinct;
      if (!o_.per_sequence) return;
      if ((missing_.size() + 1) * sizeof(W) > limit) {
        missing_full_ = true;
        throw BudgetError("more than " + std::to_string(missing_.size()) + " distinct k-mers of " + o_.assembly +
                          " are absent from the reads (" + std::to_string(sizeof(W)) +
                          " bytes each for the per-sequence QV), more than a quarter of -M (" +
                          std::to_string(limit >> 20) +
                          " MiB): raise -M, or give --no-per-sequence; so many suggests reads of another genome or "
                          "another k");
      }
      missing_.push_back(encode_kmer<W>(kmer));
    };
    CountHooks ch;
    ch.log = hooks_.log;
    ch.info = hooks_.info;
    ch.progress = hooks_.progress;
    if (hooks_.pass) ch.pass = [&](const std::string& name) { hooks_.pass("the assembly's k-mers, " + name); };
    CountResult cr;
    try {
      cr = count_kmers(co, sink, ch);
    } catch (const BudgetError& e) {
      if (!reserve || missing_full_ || !e.least()) throw;
      // The count is given M - M / 4, at least e.least() when M is 4/3 of it.
      throw BudgetError(e.reason() +
                            " (qv counts the assembly in three quarters of -M, the rest is kept for the per-sequence "
                            "QV; --no-per-sequence gives the count all of it)",
                        (e.least() * 4 + 2) / 3, e.also());
    }
    while (!reads.done()) read_only();
    r_.input = cr.input;
    if (r_.asm_kmers == 0)
      throw InputError(o_.assembly + ": no " + std::to_string(r_.k) + "-mers: every sequence is shorter than k = " +
                       std::to_string(r_.k) + " or has no " + std::to_string(r_.k) + " A/C/G/T bases in a row");
  }

  void settle_threshold() {
    CountHistogram all;
    for (const CountHistogram& h : r_.copies) all.add(h);
    r_.threshold_given = o_.solid_threshold.has_value();
    r_.solid_threshold = o_.solid_threshold ? *o_.solid_threshold : merqury_solid_threshold(all.rows());
    r_.solid_distinct = all.distinct_above(r_.solid_threshold);
    for (int c = 1; c < kCopyRows; ++c) r_.solid_in_asm += r_.copies[c].distinct_above(r_.solid_threshold);
  }

  // Second pass: per sequence, its k-mer positions and those among the missing.
  void tally_sequences() {
    const KmerShape<W> shape(r_.k, true);
    PipelineOptions po;
    po.workers = o_.threads;
    po.batch_bases = o_.batch_bases;
    po.piece_k = r_.k;
    std::mutex lock;
    std::map<uint64_t, std::vector<Piece>> by_serial;  // batch serial -> its pieces
    if (hooks_.pass) hooks_.pass("per-sequence QV: the assembly read again");
    run_pipeline({o_.assembly}, po, [&](const RecordBatch& b, unsigned) {
      std::vector<Piece> pieces(b.size());
      for (size_t i = 0; i < b.size(); ++i) {
        Piece& p = pieces[i];
        p.starts = b.starts_read(i);
        if (p.starts) p.name = first_word(b.name(i));
        for_each_kmer(b.seq(i), shape, [&](W x) {
          ++p.kmers;
          p.missing += std::binary_search(missing_.begin(), missing_.end(), x);
        });
      }
      const std::lock_guard<std::mutex> g(lock);
      by_serial.emplace(b.serial, std::move(pieces));
    }, hooks_.progress);
    uint64_t kmers = 0, missing = 0;
    for (auto& [serial, pieces] : by_serial)
      for (Piece& p : pieces) {
        if (p.starts || r_.sequences.empty()) r_.sequences.push_back({std::move(p.name), 0, 0});
        r_.sequences.back().kmers += p.kmers;
        r_.sequences.back().missing += p.missing;
        kmers += p.kmers;
        missing += p.missing;
      }
    if (kmers != r_.asm_kmers || missing != r_.missing)
      throw InputError(o_.assembly + ": changed between its two reads (" + std::to_string(r_.asm_kmers) + " then " +
                       std::to_string(kmers) + " k-mers)");
  }

  const QvOptions& o_;
  const QvHooks& hooks_;
  QvResult r_;
  std::vector<W> missing_;      // sorted: the merge meets them in increasing order
  bool missing_full_ = false;  // the budget error came from missing_, not from the engine
};

}  // namespace

QvResult assess_assembly(const QvOptions& options, const QvHooks& hooks) {
  options.validate();
  SortedReadCounts reads(options.read_counts, options.k);  // k comes from its first k-mer
  return dispatch_kmer_width(reads.k(), [&]<class W>() { return QvRun<W>(options, hooks).run(reads); });
}

}  // namespace kmerbloom
