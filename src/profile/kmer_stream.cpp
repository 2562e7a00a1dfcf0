#include "profile/kmer_stream.hpp"

#include <array>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

#include "common/format.hpp"
#include "formats/count_file.hpp"
#include "formats/kff.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom::detail {
namespace {

constexpr std::array<bool, 256> acgt_table() {
  std::array<bool, 256> t{};
  for (const unsigned char c : {'A', 'C', 'G', 'T'}) t[c] = true;
  return t;
}
constexpr std::array<bool, 256> kAcgt = acgt_table();

// The checks and the filter, on the thread that reads the file.
class CheckedReader {
 public:
  CheckedReader(const std::string& path, const KmerStreamOptions& o)
      : in_(open_count_file(path, {.fasta_form = true, .buffer_bytes = o.buffer_bytes, .kmer_order = true})),
        min_(o.min_count), max_(o.max_count), letters_checked_(path != "-" && is_kff_file(path)) {}

  bool next(std::string_view& kmer, uint64_t& count) {
    KmerCount r;
    while (in_->next(r)) {
      check(r.kmer);
      ++read_;
      last_.assign(r.kmer);
      if (r.count < min_ || r.count > max_) continue;
      ++kept_;
      kmer = r.kmer;
      count = r.count;
      return true;
    }
    return false;
  }
  const std::string& name() const { return in_->name(); }
  unsigned k() const { return k_; }
  unsigned declared_k() const { return in_->declared_k(); }
  std::optional<bool> declared_canonical() const { return in_->declared_canonical(); }
  uint64_t read() const { return read_; }
  uint64_t kept() const { return kept_; }
  uint64_t bytes_read() const { return in_->bytes_read(); }

 private:
  void check(std::string_view kmer) {
    if (read_ == 0) {
      if (kmer.empty()) in_->fail("empty k-mer");
      k_ = static_cast<unsigned>(kmer.size());
    } else if (kmer.size() != last_.size()) {
      in_->fail("k-mer of " + std::to_string(kmer.size()) + " bases, the first has " + std::to_string(last_.size()));
    } else if (kmer <= last_) {
      in_->fail(std::string(kmer == last_ ? "k-mer repeated (" : "k-mers out of order (") + printable(kmer) +
                " after " + printable(last_) + "): inputs must be sorted and distinct, as count writes them");
    }
    if (letters_checked_) return;
    for (const char c : kmer)
      if (!kAcgt[static_cast<unsigned char>(c)])
        in_->fail("k-mer " + printable(kmer) + " holds a letter other than A, C, G, T");
  }

  std::unique_ptr<CountFileReader> in_;
  uint64_t min_, max_;
  bool letters_checked_;  // KFF: 2-bit codes are A, C, G, T by construction
  std::string last_;
  unsigned k_ = 0;
  uint64_t read_ = 0, kept_ = 0;
};

class DirectStream final : public KmerStream {
 public:
  DirectStream(const std::string& path, const KmerStreamOptions& o) : r_(path, o) {}
  bool next(std::string_view& kmer, uint64_t& count) override { return r_.next(kmer, count); }
  const std::string& name() const override { return r_.name(); }
  unsigned k() const override { return r_.k(); }
  uint64_t read() const override { return r_.read(); }
  uint64_t kept() const override { return r_.kept(); }
  uint64_t bytes_read() const override { return r_.bytes_read(); }
  unsigned declared_k() const override { return r_.declared_k(); }
  std::optional<bool> declared_canonical() const override { return r_.declared_canonical(); }

 private:
  CheckedReader r_;
};

// Parsed k-mers handed from the parsing thread to the merge: `n` k-mers of
// `k` bases end to end, their counts; or the parser's error.
struct Batch {
  std::string bases;
  std::vector<uint64_t> counts;
  unsigned k = 0;
  std::exception_ptr error;
};

class ThreadedStream final : public KmerStream {
 public:
  static constexpr size_t kBatches = 4;            // in flight per input
  static constexpr size_t kBatchBases = 1 << 20;   // bases a batch holds (about)

  ThreadedStream(const std::string& path, const KmerStreamOptions& o)
      : r_(path, o), declared_k_(r_.declared_k()) {  // before the parser reads on
    for (size_t i = 0; i < kBatches; ++i) empty_.push(std::make_unique<Batch>());
    thread_ = start_thread([this] { parse(); }, 0, 1);
  }
  ~ThreadedStream() override {
    empty_.abort();
    full_.abort();
    thread_.join();
  }
  bool next(std::string_view& kmer, uint64_t& count) override {
    while (!cur_ || at_ == cur_->counts.size()) {
      if (cur_) empty_.push(std::move(cur_));
      if (!full_.pop(cur_)) return false;
      if (cur_->error) std::rethrow_exception(cur_->error);
      at_ = 0;
    }
    kmer = std::string_view(cur_->bases).substr(at_ * cur_->k, cur_->k);
    count = cur_->counts[at_++];
    return true;
  }
  const std::string& name() const override { return r_.name(); }
  unsigned k() const override { return r_.k(); }
  uint64_t read() const override { return r_.read(); }
  uint64_t kept() const override { return r_.kept(); }
  uint64_t bytes_read() const override { return bytes_.load(std::memory_order_relaxed); }
  // As the parser last saw it (it stores it before the end reaches next()).
  unsigned declared_k() const override { return declared_k_.load(std::memory_order_relaxed); }
  // The header's, read when the file was opened and never written after.
  std::optional<bool> declared_canonical() const override { return r_.declared_canonical(); }

 private:
  void parse() {
    std::unique_ptr<Batch> b;
    try {
      bool more = true;
      while (more && empty_.pop(b)) {
        b->bases.clear();
        b->counts.clear();
        std::string_view kmer;
        uint64_t count = 0;
        while (b->bases.size() < kBatchBases && (more = r_.next(kmer, count))) {
          b->k = static_cast<unsigned>(kmer.size());
          b->bases.append(kmer);
          b->counts.push_back(count);
        }
        bytes_.store(r_.bytes_read(), std::memory_order_relaxed);
        declared_k_.store(r_.declared_k(), std::memory_order_relaxed);
        if (!b->counts.empty()) full_.push(std::move(b));
      }
    } catch (...) {
      if (!b) b = std::make_unique<Batch>();
      b->counts.clear();
      b->error = std::current_exception();
      full_.push(std::move(b));
    }
    full_.close();
  }

  CheckedReader r_;
  std::atomic<uint64_t> bytes_{0};  // r_'s bytes read, as of the last batch
  std::atomic<unsigned> declared_k_;  // r_'s declared k, as of the last batch
  HandOff<Batch> empty_, full_;
  std::unique_ptr<Batch> cur_;
  size_t at_ = 0;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<KmerStream> open_kmer_stream(const std::string& path, const KmerStreamOptions& options) {
  if (options.threaded) return std::make_unique<ThreadedStream>(path, options);
  return std::make_unique<DirectStream>(path, options);
}

}  // namespace kmerbloom::detail
