// Estimating the k-mer spectrum in one pass: distinct k-mers (F0), k-mer
// occurrences (F1, exact) and the low histogram rows (f1 ... f_max) from an
// adaptive distinct sample of the k-mer hashes (the job ntCard does), with a
// relative standard error of about 1/sqrt(sampled keys), 0 when nothing was
// dropped. Feed it hash_kmer() (kmer/hash.hpp). Behind `kmerbloom estimate`
// and the sizing of `build` and `filter`. Method, error and measurements:
// docs/estimate.md.
//
// Thread safety: a KmerSampler is used by one thread at a time; give each
// worker its own and merge() them at the end (the result depends only on the
// multiset of hashes). The library never prints.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/huge_pages.hpp"
#include "seqio/pipeline.hpp"

namespace kmerbloom {

struct KmerSpectrumEstimate {
  uint64_t kmers_total = 0;  // F1: k-mer occurrences added (exact)
  double distinct = 0;       // F0 estimate
  // f[i] = estimated number of distinct k-mers seen exactly i times, for
  // 1 <= i <= max_row; f[0] is always 0.
  std::vector<double> f;
  double above_max_row = 0;             // distinct k-mers seen more than max_row times
  uint64_t sampled_keys = 0;            // distinct hashes in the sample
  std::vector<uint64_t> sampled_f;      // the sample's own histogram, same rows as f
  unsigned sampling_depth = 0;          // s: sampling_rate = 2^-s
  double sampling_rate = 1;             // p, the fraction of distinct k-mers sampled
  double relative_std_error = 0;        // of distinct: sqrt((1 - p) / sampled_keys)
  bool exact = true;                    // p == 1: every number above is a count

  // Binomial relative standard error of f[i]: sqrt((1 - p) / sampled_f[i]),
  // 0 when exact, +infinity when the sample holds no key of that row.
  double row_relative_std_error(unsigned i) const;
};

class KmerSampler {
 public:
  static constexpr uint32_t kMinCapLog2 = 4;
  static constexpr uint32_t kMaxCapLog2 = 30;

  // A sampler holding at most 2^cap_log2 distinct hashes; its table grows to
  // 2^(cap_log2 + 1) 12-byte slots (load <= 1/2), so 24 MiB at the default
  // 2^20, and to less on inputs with fewer distinct k-mers. Counts saturate
  // at 2^32 - 1. Throws std::invalid_argument if cap_log2 is not in
  // [kMinCapLog2, kMaxCapLog2].
  explicit KmerSampler(uint32_t cap_log2 = 20);

  // Adds one occurrence of the k-mer with this hash. The fast path is an
  // increment, a compare and a branch taken with probability 2^-s. A sampled
  // hash is queued with a prefetch of its slot and the queue is applied every
  // kQueue hashes, so that the table's cache misses overlap.
  void add(uint64_t hash) {
    ++total_;
    if (hash <= limit_) [[unlikely]] {
      __builtin_prefetch(slots_.data() + (hash & mask_));
      queue_[queued_++] = hash;
      if (queued_ == kQueue) [[unlikely]]
        flush();
    }
  }

  // Applies the queued hashes to the table. estimate(), merge() and copies
  // work on unflushed samplers too (estimate() then flushes a copy, so call
  // flush() after the last add() to avoid the copy); depth() and
  // sampled_keys() describe the flushed part only.
  void flush();

  // Folds other in: afterwards this sampler is exactly what one sampler would
  // be after both streams (same caps). With different caps the result is
  // still a valid sample at this sampler's cap, at least as deep as other.
  void merge(const KmerSampler& other);

  // The spectrum estimate with histogram rows 1..max_row (max_row >= 1).
  KmerSpectrumEstimate estimate(unsigned max_row = 10) const;

  uint64_t kmers_total() const { return total_; }
  uint64_t sampled_keys() const { return used_ + (zero_count_ != 0); }
  unsigned depth() const { return depth_; }
  uint32_t cap_log2() const { return cap_log2_; }
  // Bytes held, the table included.
  uint64_t bytes() const;

 private:
#pragma pack(push, 4)
  struct Slot {
    uint64_t hash;  // 0 = empty; hash 0 itself is counted in zero_count_
    uint32_t count;
  };
#pragma pack(pop)

  void add_count(uint64_t hash, uint32_t n);    // hash <= limit_
  Slot& find(uint64_t hash);
  void grow();                                  // doubles the table
  void drop_above_limit();                      // removes hashes above limit_, in place
  void deepen();                                // s += 1 until the sample fits

  static constexpr unsigned kQueue = 32;

  uint64_t limit_ = ~uint64_t{0};  // sampled iff hash <= limit_
  uint64_t total_ = 0;
  unsigned queued_ = 0;
  std::array<uint64_t, kQueue> queue_{};
  uint32_t cap_log2_;
  unsigned depth_ = 0;
  uint64_t cap_;              // most keys held after any add
  uint64_t used_ = 0;         // non-empty slots
  uint64_t mask_ = 0;         // slots_.size() - 1
  uint32_t zero_count_ = 0;   // count of hash 0
  std::vector<Slot, detail::TableAllocator<Slot>> slots_;  // power-of-two size, linear probing on the low bits
};

// ---------------------------------------------------------------------------
// The estimate over whole inputs: `kmerbloom estimate` without argv.

struct EstimateOptions : ReadSetOptions {  // threads: workers, each with its own sampler
  uint32_t sample_log2 = 20;      // cap of each sampler
  unsigned max_row = 10;          // histogram rows 1..max_row

  // Throws std::invalid_argument naming the first bad option.
  void validate() const;
};

struct EstimateResult {
  InputSummary input;             // reads, bases, k-mers: exact
  KmerSpectrumEstimate spectrum;  // spectrum.kmers_total == input.kmers
  uint64_t sampler_bytes = 0;     // summed over the workers' samplers
};

// Runs run_pipeline over the inputs, one sampler per worker, and merges them.
// Throws InputError for bad input, std::invalid_argument for bad options.
EstimateResult estimate_kmers(const EstimateOptions& options, PipelineProgress* progress = nullptr);

// Shorthand with the default cap and rows.
KmerSpectrumEstimate estimate_kmers(const std::vector<std::string>& inputs, unsigned k, bool canonical,
                                    unsigned threads, PipelineProgress* progress = nullptr);

}  // namespace kmerbloom
