#include "formats/sorted_counts.hpp"

#include <array>
#include <cstdlib>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/bases.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/count_file.hpp"
#include "formats/kff.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom {
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
  CheckedReader(const std::string& path, const SortedCountsOptions& o)
      : in_(open_count_file(path, {.fasta_form = o.fasta_form, .buffer_bytes = o.buffer_bytes, .kmer_order = !o.kff_file_order})),
        o_(o), letters_checked_(path != "-" && is_kff_file(path)) {}

  bool next(std::string_view& kmer, uint64_t& count) {
    KmerCount r;
    while (in_->next(r)) {
      check(r);
      ++read_;
      last_.assign(r.kmer);
      if (r.count < o_.min_count || r.count > o_.max_count) continue;
      ++kept_;
      kmer = r.kmer;
      count = r.count;
      return true;
    }
    return false;
  }
  // The same records as batches of packed k-mers (2-bit codes), up to
  // `most` at a time: KFF's own bytes where the file gives them, checked
  // here a batch at a time; a text file's letters checked record by record
  // and then packed.
  bool next_packed_batch(PackedBatch& b, size_t most) {
    if (!in_->packs()) {
      b.n = 0;
      std::string_view text;
      uint64_t count = 0;
      while (b.n < most && next(text, count)) {
        if (b.n == 0) b.reset(k_, most);
        pack_kmer_text(text, reinterpret_cast<uint8_t*>(b.kmer_at(b.n)));
        b.counts[b.n++] = count;
      }
      return b.n > 0;
    }
    while (in_->next_packed_batch(b, most)) {
      if (read_ == 0) {
        k_ = b.k;
        check_first_k();
      } else if (b.k != k_) {
        fail_at(0, "k-mer of " + std::to_string(b.k) + " bases, the first has " + std::to_string(k_));
      }
      size_t kept = 0;
      for (size_t i = 0; i < b.n; ++i) {
        const std::string_view p = b.kmer(i), before = i ? b.kmer(i - 1) : std::string_view(last_);
        const uint64_t count = b.counts[i];
        if ((i || read_) && compare_kmer_bytes(p, before) <= 0)
          fail_at(i, std::string(p == before ? "k-mer repeated (" : "k-mers out of order (") + letters(p) + " after " +
                         letters(before) + "): inputs must be sorted and distinct, as count writes them");
        if (o_.canonical && !is_canonical_text(letters(p)))
          fail_at(i, "k-mer " + letters(p) +
                         " is not canonical (its reverse complement is smaller): count without --no-canonical");
        if (count == 0) fail_at(i, "k-mer " + letters(p) + " has count 0: count files hold k-mers seen at least once");
        if (count < o_.min_count || count > o_.max_count) continue;
        if (kept != i) {  // slots below i only: k-mer i - 1 is still in place for the next round
          copy_kmer_bytes(b.kmer_at(kept), p.data(), b.bytes);
          b.counts[kept] = count;
        }
        ++kept;
      }
      assign_kmer_bytes(last_, b.kmer(b.n - 1));  // in place: nothing was moved onto the last slot
      read_ += b.n;
      kept_ += kept;
      b.n = kept;
      if (kept) return true;
    }
    return false;
  }
  const std::string& name() const { return in_->name(); }
  [[noreturn]] void fail(const std::string& what) const {
    in_->fail(what);
    std::abort();  // not reached: fail throws
  }
  unsigned k() const { return k_; }
  unsigned declared_k() const { return in_->declared_k(); }
  std::optional<bool> declared_canonical() const { return in_->declared_canonical(); }
  uint64_t read() const { return read_; }
  uint64_t kept() const { return kept_; }
  uint64_t bytes_read() const { return in_->bytes_read(); }
  std::optional<CountFileReader::Place> place() const { return in_->place(); }

 private:
  void check(const KmerCount& r) {
    const std::string_view kmer = r.kmer;
    if (read_ == 0) {
      if (kmer.empty()) in_->fail("empty k-mer");
      k_ = static_cast<unsigned>(kmer.size());
      check_first_k();
    } else if (kmer.size() != last_.size()) {
      in_->fail("k-mer of " + std::to_string(kmer.size()) + " bases, the first has " + std::to_string(last_.size()));
    }
    if (!letters_checked_) check_letters(kmer);
    if (read_ > 0 && kmer <= last_)
      in_->fail(std::string(kmer == last_ ? "k-mer repeated (" : "k-mers out of order (") + printable(kmer) +
                " after " + printable(last_) + "): inputs must be sorted and distinct, as count writes them");
    if (o_.canonical && !is_canonical_text(kmer))
      in_->fail("k-mer " + printable(kmer) +
                " is not canonical (its reverse complement is smaller): count without --no-canonical");
    if (r.count == 0) in_->fail("k-mer " + printable(kmer) + " has count 0: count files hold k-mers seen at least once");
  }

  // An error at k-mer i of the batch just read (KFF), named by its place in the file.
  [[noreturn]] void fail_at(size_t i, const std::string& what) const {
    throw InputError(in_->name() + ": k-mer " + std::to_string(read_ + i + 1) + ": " + what);
  }
  std::string letters(std::string_view p) const { return packed_kmer_letters(p.data(), k_); }
  void check_first_k() const {
    if (o_.expected_k && k_ != o_.expected_k)
      in_->fail("k-mer of " + std::to_string(k_) + " bases, but -k is " + std::to_string(o_.expected_k));
    if (k_ > o_.max_k)
      in_->fail("k-mer of " + std::to_string(k_) + " bases: " + o_.who + " takes k from 1 to " + std::to_string(o_.max_k));
  }

  // Letters A, C, G, T; a histogram row (digits) is the usual slip.
  void check_letters(std::string_view kmer) const {
    for (const char c : kmer) {
      if (kAcgt[static_cast<unsigned char>(c)]) continue;
      if (kmer.find_first_not_of("0123456789") == std::string_view::npos)
        in_->fail(quoted(kmer) + " is a number, not a k-mer: this looks like a histogram (COUNT FREQUENCY)" +
                  o_.histogram_hint);
      in_->fail("k-mer " + printable(kmer) + " holds a letter other than A, C, G, T");
    }
  }

  static std::string quoted(std::string_view text) {
    std::string q(1, '\'');
    q.append(printable(text)).push_back('\'');
    return q;
  }

  std::unique_ptr<CountFileReader> in_;
  SortedCountsOptions o_;
  bool letters_checked_;  // KFF: 2-bit codes are A, C, G, T by construction
  std::string last_;     // the record before, as read (letters, or packed)
  unsigned k_ = 0;
  uint64_t read_ = 0, kept_ = 0;
};

class DirectStream final : public SortedCounts {
 public:
  DirectStream(const std::string& path, const SortedCountsOptions& o) : r_(path, o) {}
  bool next(std::string_view& kmer, uint64_t& count) override { return r_.next(kmer, count); }
  bool next_packed_batch(PackedBatch& batch) override { return r_.next_packed_batch(batch, kBatchKmers); }
  const std::string& name() const override { return r_.name(); }
  [[noreturn]] void fail(const std::string& what) const override { r_.fail(what); }
  unsigned k() const override { return r_.k(); }
  uint64_t read() const override { return r_.read(); }
  uint64_t kept() const override { return r_.kept(); }
  uint64_t bytes_read() const override { return r_.bytes_read(); }
  unsigned declared_k() const override { return r_.declared_k(); }
  std::optional<bool> declared_canonical() const override { return r_.declared_canonical(); }
  std::optional<CountFileReader::Place> place() const override { return r_.place(); }

 private:
  CheckedReader r_;
};

// Parsed k-mers handed from the parsing thread to the merge: k-mers of
// `k` bases end to end and their counts, or packed; or the parser's error.
struct Batch {
  std::string bases;
  std::vector<uint64_t> counts;
  unsigned k = 0;
  PackedBatch packed;  // instead, when the reader is read packed
  std::exception_ptr error;
};

class ThreadedStream final : public SortedCounts {
 public:
  ThreadedStream(const std::string& path, const SortedCountsOptions& o)
      : r_(path, o), packed_(o.packed), declared_k_(r_.declared_k()) {  // before the parser reads on
    for (size_t i = 0; i < kBatches; ++i) empty_.push(std::make_unique<Batch>());
    thread_ = detail::start_thread([this] { parse(); }, 0, 1);
  }
  ~ThreadedStream() override {
    empty_.abort();
    full_.abort();
    thread_.join();
  }
  bool next(std::string_view& kmer, uint64_t& count) override {
    if (packed_) throw std::logic_error("SortedCounts::next on a reader opened packed");
    while (!cur_ || at_ == cur_->counts.size()) {
      if (cur_) empty_.push(std::move(cur_));
      if (!take()) return false;
      at_ = 0;
    }
    kmer = std::string_view(cur_->bases).substr(at_ * cur_->k, cur_->k);
    count = cur_->counts[at_++];
    return true;
  }
  // The parser's batch given whole; the caller's goes back to it.
  bool next_packed_batch(PackedBatch& batch) override {
    if (!packed_) throw std::logic_error("SortedCounts::next_packed_batch on a reader opened for letters");
    if (cur_) empty_.push(std::move(cur_));
    if (!take()) return false;
    std::swap(batch, cur_->packed);
    return true;
  }
  const std::string& name() const override { return r_.name(); }
  [[noreturn]] void fail(const std::string& what) const override { throw InputError(r_.name() + ": " + what); }
  unsigned k() const override { return r_.k(); }
  uint64_t read() const override { return r_.read(); }
  uint64_t kept() const override { return r_.kept(); }
  uint64_t bytes_read() const override { return bytes_.load(std::memory_order_relaxed); }
  // As the parser last saw it (it stores it before the end reaches next()).
  unsigned declared_k() const override { return declared_k_.load(std::memory_order_relaxed); }
  // The header's, read when the file was opened and never written after.
  std::optional<bool> declared_canonical() const override { return r_.declared_canonical(); }
  std::optional<CountFileReader::Place> place() const override { return std::nullopt; }  // the parser is ahead

 private:
  bool take() {
    if (!full_.pop(cur_)) return false;
    if (cur_->error) std::rethrow_exception(cur_->error);
    return true;
  }
  void parse() {
    std::unique_ptr<Batch> b;
    try {
      bool more = true;
      while (more && empty_.pop(b)) {
        b->bases.clear();
        b->counts.clear();
        std::string_view kmer;
        uint64_t count = 0;
        if (packed_) {
          more = r_.next_packed_batch(b->packed, kBatchKmers);
        } else {
          while (b->bases.size() < kBatchBases && (more = r_.next(kmer, count))) {
            b->k = static_cast<unsigned>(kmer.size());
            b->bases.append(kmer);
            b->counts.push_back(count);
          }
        }
        bytes_.store(r_.bytes_read(), std::memory_order_relaxed);
        declared_k_.store(r_.declared_k(), std::memory_order_relaxed);
        if (packed_ ? more : !b->counts.empty()) full_.push(std::move(b));
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
  const bool packed_;
  std::atomic<uint64_t> bytes_{0};  // r_'s bytes read, as of the last batch
  std::atomic<unsigned> declared_k_;  // r_'s declared k, as of the last batch
  detail::HandOff<Batch> empty_, full_;
  std::unique_ptr<Batch> cur_;
  size_t at_ = 0;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<SortedCounts> open_sorted_counts(const std::string& path, const SortedCountsOptions& options) {
  if (options.threaded) return std::make_unique<ThreadedStream>(path, options);
  return std::make_unique<DirectStream>(path, options);
}

}  // namespace kmerbloom
