#include "estimate/cardinality.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>

#include "kmer/hash.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {

namespace {

constexpr uint64_t kFirstCapacity = 1024;

uint32_t saturating_add(uint32_t a, uint32_t b) {
  const uint32_t s = a + b;
  return s < a ? std::numeric_limits<uint32_t>::max() : s;
}

}  // namespace

double KmerSpectrumEstimate::row_relative_std_error(unsigned i) const {
  if (exact) return 0;
  if (i >= sampled_f.size() || sampled_f[i] == 0) return std::numeric_limits<double>::infinity();
  return std::sqrt((1 - sampling_rate) / static_cast<double>(sampled_f[i]));
}

KmerSampler::KmerSampler(uint32_t cap_log2) : cap_log2_(cap_log2) {
  if (cap_log2 < kMinCapLog2 || cap_log2 > kMaxCapLog2)
    throw std::invalid_argument("sample size must be 2^" + std::to_string(kMinCapLog2) + " to 2^" +
                                std::to_string(kMaxCapLog2) + " keys, got 2^" + std::to_string(cap_log2));
  cap_ = uint64_t{1} << cap_log2;
  slots_.assign(std::min(kFirstCapacity, 2 * cap_), Slot{0, 0});
  mask_ = slots_.size() - 1;
}

uint64_t KmerSampler::bytes() const { return sizeof(*this) + slots_.capacity() * sizeof(Slot); }

KmerSampler::Slot& KmerSampler::find(uint64_t hash) {
  // Sampled hashes have their top s bits clear, so the slot comes from the low bits.
  for (uint64_t i = hash & mask_;; i = (i + 1) & mask_) {
    Slot& slot = slots_[i];
    if (slot.hash == hash || slot.hash == 0) return slot;
  }
}

void KmerSampler::flush() {
  const unsigned n = queued_;
  queued_ = 0;
  for (unsigned i = 0; i < n; ++i)
    if (queue_[i] <= limit_) add_count(queue_[i], 1);  // the limit may have dropped since it was queued
}

void KmerSampler::add_count(uint64_t hash, uint32_t n) {
  if (hash == 0) {
    const bool seen = zero_count_ != 0;
    zero_count_ = saturating_add(zero_count_, n);
    if (seen) return;
  } else {
    if (2 * (used_ + 1) > slots_.size() && slots_.size() < 2 * cap_) grow();
    Slot& slot = find(hash);
    if (slot.hash == hash) {
      slot.count = saturating_add(slot.count, n);
      return;
    }
    slot.hash = hash;
    slot.count = n;
    ++used_;
  }
  if (sampled_keys() > cap_) deepen();
}

void KmerSampler::grow() {
  std::vector<Slot, detail::TableAllocator<Slot>> old(2 * slots_.size(), Slot{0, 0});
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Slot& s : old)
    if (s.hash != 0) find(s.hash) = s;
}

void KmerSampler::drop_above_limit() {
  // Backward-shift deletion (Knuth, Algorithm R): a hole only moves forward,
  // so every entry is checked at least once, in place, without a second table.
  for (uint64_t i = 0; i < slots_.size(); ++i) {
    while (slots_[i].hash > limit_) {
      uint64_t hole = i, j = i;
      for (;;) {
        j = (j + 1) & mask_;
        if (slots_[j].hash == 0) break;
        const uint64_t home = slots_[j].hash & mask_;
        if (((j - home) & mask_) >= ((j - hole) & mask_)) {  // the hole lies on j's probe path
          slots_[hole] = slots_[j];
          hole = j;
        }
      }
      slots_[hole] = Slot{0, 0};
      --used_;
    }
  }
}

void KmerSampler::deepen() {
  uint64_t kept = sampled_keys();
  while (kept > cap_) {
    ++depth_;
    limit_ >>= 1;
    kept = zero_count_ != 0;
    for (const Slot& s : slots_) kept += s.hash != 0 && s.hash <= limit_;
  }
  drop_above_limit();
}

void KmerSampler::merge(const KmerSampler& other) {
  if (&other == this || other.queued_ != 0) {
    KmerSampler copy = other;
    copy.flush();
    merge(copy);
    return;
  }
  flush();
  total_ += other.total_;
  if (other.depth_ > depth_) {
    depth_ = other.depth_;
    limit_ = other.limit_;
    drop_above_limit();
  }
  if (other.zero_count_ != 0) add_count(0, other.zero_count_);
  for (const Slot& s : other.slots_)
    if (s.hash != 0 && s.hash <= limit_) add_count(s.hash, s.count);  // limit_ may shrink as we go
}

KmerSpectrumEstimate KmerSampler::estimate(unsigned max_row) const {
  if (max_row < 1) throw std::invalid_argument("the histogram needs at least one row");
  if (queued_ != 0) {
    KmerSampler copy = *this;
    copy.flush();
    return copy.estimate(max_row);
  }
  KmerSpectrumEstimate e;
  e.kmers_total = total_;
  e.sampled_keys = sampled_keys();
  e.sampling_depth = depth_;
  e.sampling_rate = std::ldexp(1.0, -static_cast<int>(depth_));
  e.exact = depth_ == 0;
  e.sampled_f.assign(max_row + 1, 0);
  uint64_t above = 0;
  auto tally = [&](uint32_t c) {
    if (c <= max_row) {
      ++e.sampled_f[c];
    } else {
      ++above;
    }
  };
  if (zero_count_ != 0) tally(zero_count_);
  for (const Slot& s : slots_)
    if (s.hash != 0) tally(s.count);

  const double scale = std::ldexp(1.0, static_cast<int>(depth_));  // exact: a power of two
  e.distinct = static_cast<double>(e.sampled_keys) * scale;
  e.f.resize(max_row + 1);
  for (unsigned i = 1; i <= max_row; ++i) e.f[i] = static_cast<double>(e.sampled_f[i]) * scale;
  e.above_max_row = static_cast<double>(above) * scale;
  if (!e.exact)
    e.relative_std_error = e.sampled_keys ? std::sqrt((1 - e.sampling_rate) / static_cast<double>(e.sampled_keys))
                                          : std::numeric_limits<double>::infinity();
  return e;
}

// ---------------------------------------------------------------------------

void EstimateOptions::validate() const {
  ReadSetOptions::validate(kMaxK);
  if (sample_log2 < KmerSampler::kMinCapLog2 || sample_log2 > KmerSampler::kMaxCapLog2)
    throw std::invalid_argument("--sample-log2 must be between " + std::to_string(KmerSampler::kMinCapLog2) + " and " +
                                std::to_string(KmerSampler::kMaxCapLog2) + ", got " + std::to_string(sample_log2));
  if (max_row < 1 || max_row > 1000000) throw std::invalid_argument("--max-row must be between 1 and 1000000");
}

namespace {

// One worker's state on its own cache lines: the sampler's limit and total are
// touched for every k-mer.
struct alignas(64) WorkerState {
  explicit WorkerState(uint32_t cap_log2) : sampler(cap_log2) {}
  KmerSampler sampler;
  InputSummary input;
};

template <class W>
EstimateResult estimate_with(const EstimateOptions& opt, PipelineProgress* progress) {
  const KmerShape<W> shape(opt.k, opt.canonical);
  std::vector<WorkerState> workers;
  workers.reserve(opt.threads);
  for (unsigned i = 0; i < opt.threads; ++i) workers.emplace_back(opt.sample_log2);

  PipelineOptions popt;
  popt.workers = opt.threads;
  popt.batch_bases = opt.batch_bases;
  popt.piece_k = opt.k;
  run_pipeline(
      opt.inputs, popt,
      [&](const RecordBatch& batch, unsigned id) {
        WorkerState& w = workers[id];
        KmerSampler& sampler = w.sampler;
        for (size_t i = 0; i < batch.size(); ++i) {
          const std::string_view seq = batch.seq(i);
          w.input.add_record(batch, i);
          for_each_kmer(seq, shape, [&](W km) { sampler.add(hash_kmer(km)); });
        }
        sampler.flush();
      },
      progress);

  EstimateResult r;
  KmerSampler& all = workers[0].sampler;
  for (size_t i = 1; i < workers.size(); ++i) all.merge(workers[i].sampler);
  for (const WorkerState& w : workers) {
    r.input.add(w.input);
    r.sampler_bytes += w.sampler.bytes();
  }
  r.spectrum = all.estimate(opt.max_row);
  r.input.kmers = r.spectrum.kmers_total;
  return r;
}

}  // namespace

EstimateResult estimate_kmers(const EstimateOptions& options, PipelineProgress* progress) {
  options.validate();
  return dispatch_kmer_width(options.k, [&]<class W>() { return estimate_with<W>(options, progress); });
}

KmerSpectrumEstimate estimate_kmers(const std::vector<std::string>& inputs, unsigned k, bool canonical,
                                    unsigned threads, PipelineProgress* progress) {
  EstimateOptions opt;
  opt.inputs = inputs;
  opt.k = k;
  opt.canonical = canonical;
  opt.threads = threads;
  return estimate_kmers(opt, progress).spectrum;
}

}  // namespace kmerbloom
