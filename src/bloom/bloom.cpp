#include "bloom/bloom.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <math.h>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "common/machine.hpp"
#include "kmer/hash.hpp"

namespace kmerbloom {
namespace {

using detail::all_positions;
using detail::load_relaxed;

// fill[x] = how many of the `blocks` 64-byte blocks at w have x bits set
// (x in 0..512). The popcount runs on the CPU's own instruction where it has
// one: one portable binary holds the loop twice, and cpu_features
// (common/machine.hpp) chooses once (the baseline x86-64 build would
// otherwise call a software popcount).
__attribute__((always_inline)) inline void count_fill(const uint64_t* w, uint64_t blocks, uint64_t* fill) noexcept {
  std::fill(fill, fill + BlockedBloom::kBlockBits + 1, uint64_t{0});
  for (uint64_t b = 0; b < blocks; ++b, w += BlockedBloom::kWordsPerBlock) {
    unsigned set = 0;
    for (unsigned i = 0; i < BlockedBloom::kWordsPerBlock; ++i)
      set += static_cast<unsigned>(__builtin_popcountll(load_relaxed(w[i])));
    ++fill[set];
  }
}

void block_fill_baseline(const uint64_t* w, uint64_t blocks, uint64_t* fill) noexcept { count_fill(w, blocks, fill); }

#if defined(__x86_64__)
__attribute__((target("popcnt"))) void block_fill_popcnt(const uint64_t* w, uint64_t blocks, uint64_t* fill) noexcept {
  count_fill(w, blocks, fill);
}
#endif

void block_fill(const uint64_t* w, uint64_t blocks, uint64_t* fill) noexcept {
#if defined(__x86_64__)
  if (cpu_features().popcnt) return block_fill_popcnt(w, blocks, fill);
#endif
  block_fill_baseline(w, blocks, fill);
}

// FPR of a blocked layout with k hashes as a function of lambda (keys per
// block): sum_j Poisson(j; lambda) g(j), g(j) = E[(X/B)^k] after k*j throws.
// g is extended lazily with the occupancy recurrence (see bloom.hpp).
class BlockFprModel {
 public:
  explicit BlockFprModel(unsigned k) : k_(k), occ_(BlockedBloom::kBlockBits + 1, 0.0) {
    occ_[0] = 1.0;
    pow_.resize(BlockedBloom::kBlockBits + 1);
    for (unsigned x = 0; x <= BlockedBloom::kBlockBits; ++x)
      pow_[x] = std::pow(static_cast<double>(x) / BlockedBloom::kBlockBits, k);
    g_.push_back(0.0);  // no key in the block: never a false positive
  }

  double fpr(double lambda) {
    if (lambda <= 0) return 0.0;
    const double spread = 12.0 * std::sqrt(lambda) + 12.0;
    const auto lo = static_cast<size_t>(std::max(0.0, std::floor(lambda - spread)));
    const auto hi = static_cast<size_t>(std::ceil(lambda + spread));
    extend(hi);
    const double log_lambda = std::log(lambda);
    // Poisson mass outside [lo, hi] is below 1e-25: ignored.
    double sum = 0;
    int sign = 0;  // lgamma_r: std::lgamma writes the global signgam, a race between counting threads
    for (size_t j = lo; j <= hi; ++j) {
      const double jd = static_cast<double>(j);
      sum += std::exp(jd * log_lambda - lambda - ::lgamma_r(jd + 1.0, &sign)) * g_[j];
    }
    return std::min(1.0, sum);
  }

 private:
  void extend(size_t jmax) {
    constexpr double B = BlockedBloom::kBlockBits;
    while (g_.size() <= jmax) {
      if (saturated_) {
        g_.push_back(1.0);
        continue;
      }
      for (unsigned t = 0; t < k_; ++t) {  // one more key: k more throws
        for (size_t x = std::min<size_t>(throws_ + 1, BlockedBloom::kBlockBits); x >= 1; --x)
          occ_[x] = occ_[x] * (static_cast<double>(x) / B) +
                    occ_[x - 1] * ((B - static_cast<double>(x - 1)) / B);
        occ_[0] = 0.0;
        ++throws_;
      }
      double g = 0;
      for (size_t x = 0; x <= BlockedBloom::kBlockBits; ++x) g += occ_[x] * pow_[x];
      g_.push_back(g);
      saturated_ = g > 1.0 - 1e-15;
    }
  }

  unsigned k_;
  std::vector<double> occ_;  // P(X = x set bits) after throws_ throws
  std::vector<double> pow_;  // (x/B)^k
  std::vector<double> g_;    // g_[j] = E[(X/B)^k | j keys]
  size_t throws_ = 0;
  bool saturated_ = false;
};

// Cache-line aligned, on huge pages from 2 MiB (huge_pages.hpp). Zeroing
// touches every page, as the first inserts would.
uint64_t* allocate_words(uint64_t blocks) {
  const auto bytes = static_cast<size_t>(blocks * BlockedBloom::kBlockBytes);
  void* p = detail::table_alloc(bytes);
  std::memset(p, 0, bytes);
  return static_cast<uint64_t*>(p);
}

}  // namespace

// ----------------------------------------------------------------- BlockedBloom

BlockedBloom::BlockedBloom(uint64_t blocks, unsigned hashes) {
  if (blocks == 0 || blocks > kMaxBlocks)
    throw std::invalid_argument("BlockedBloom: block count " + std::to_string(blocks) +
                                " not in [1, " + std::to_string(kMaxBlocks) + "]");
  if (hashes == 0 || hashes > kMaxHashes)
    throw std::invalid_argument("BlockedBloom: hash count " + std::to_string(hashes) +
                                " not in [1, " + std::to_string(kMaxHashes) + "]");
  words_.reset(allocate_words(blocks));
  blocks_ = blocks;
  hashes_ = hashes;
}

double BlockedBloom::expected_fpr(uint64_t n, uint64_t blocks, unsigned hashes) {
  if (blocks == 0 || hashes == 0 || hashes > kMaxHashes)
    throw std::invalid_argument("BlockedBloom::expected_fpr: bad shape");
  // One model per hash count and thread: building it is the costly part.
  thread_local std::map<unsigned, BlockFprModel> models;
  auto it = models.try_emplace(hashes, hashes).first;
  return it->second.fpr(static_cast<double>(n) / static_cast<double>(blocks));
}

namespace {

// For k = 1..kMaxHashes, the largest lambda (keys per block) with
// fpr(lambda) <= p, found by bisection (0: none); computed once per p, since
// a counter sizes hundreds of filters at the same rate.
using MaxLambdas = std::array<double, BlockedBloom::kMaxHashes + 1>;
const MaxLambdas& max_lambdas(double p) {
  static std::mutex mu;
  static std::map<double, MaxLambdas> cache;
  std::lock_guard lock(mu);
  auto [it, fresh] = cache.try_emplace(p);
  if (!fresh) return it->second;
  MaxLambdas& out = it->second;
  out.fill(0.0);
  unsigned best = 0;  // the k with the most keys per block so far
  for (unsigned k = 1; k <= BlockedBloom::kMaxHashes; ++k) {
    // The block count is unimodal in k: stop well past the maximum.
    if (best != 0 && k >= best + 4) break;
    BlockFprModel model(k);
    double lo = 0.0;
    double hi = 1.0;
    while (model.fpr(hi) <= p && hi < 1e6) {
      lo = hi;
      hi *= 2;
    }
    for (int i = 0; i < 60 && hi - lo > 1e-12 * hi; ++i) {
      const double mid = 0.5 * (lo + hi);
      (model.fpr(mid) <= p ? lo : hi) = mid;
    }
    out[k] = lo;
    if (lo > 0.0 && (best == 0 || lo > out[best])) best = k;
  }
  return out;
}

}  // namespace

BlockedBloom::Shape BlockedBloom::shape_for_capacity(uint64_t n, double p) {
  if (!(p > 0.0 && p < 1.0))
    throw std::invalid_argument("BlockedBloom::for_capacity: fpr " + std::to_string(p) +
                                " not in (0, 1)");
  const double keys = static_cast<double>(std::max<uint64_t>(n, 1));
  const MaxLambdas& lambdas = max_lambdas(p);
  Shape best{std::numeric_limits<uint64_t>::max(), 0};
  for (unsigned k = 1; k <= kMaxHashes; ++k) {
    // fpr grows with lambda: keys / blocks <= lambdas[k] keeps it <= p.
    const double lo = lambdas[k];
    if (lo <= 0.0) continue;
    const double want = std::ceil(keys / lo);
    if (want > static_cast<double>(kMaxBlocks)) continue;
    const auto blocks = std::max<uint64_t>(1, static_cast<uint64_t>(want));
    if (blocks < best.blocks) best = {blocks, k};
    // The block count is unimodal in k: stop well past the minimum.
    if (best.hashes != 0 && k >= best.hashes + 4) break;
  }
  if (best.hashes == 0)
    throw std::invalid_argument("BlockedBloom::for_capacity: " + std::to_string(n) +
                                " keys at fpr " + std::to_string(p) + " exceed the size limit");
  return best;
}

BlockedBloom BlockedBloom::for_capacity(uint64_t n, double p) {
  const Shape s = shape_for_capacity(n, p);
  return BlockedBloom(s.blocks, s.hashes);
}

BlockedBloom::BlockedBloom(const BlockedBloom& other)
    : blocks_(other.blocks_), hashes_(other.hashes_) {
  if (blocks_ != 0) {
    words_.reset(allocate_words(blocks_));
    std::memcpy(words_.get(), other.words_.get(), static_cast<size_t>(bytes()));
  }
}

BlockedBloom& BlockedBloom::operator=(const BlockedBloom& other) {
  if (this != &other) {
    BlockedBloom copy(other);
    *this = std::move(copy);
  }
  return *this;
}

BlockedBloom::BlockedBloom(BlockedBloom&& other) noexcept
    : words_(std::move(other.words_)), blocks_(other.blocks_), hashes_(other.hashes_) {
  other.blocks_ = 0;
  other.hashes_ = 0;
}

BlockedBloom& BlockedBloom::operator=(BlockedBloom&& other) noexcept {
  words_ = std::move(other.words_);
  blocks_ = other.blocks_;
  hashes_ = other.hashes_;
  other.blocks_ = 0;
  other.hashes_ = 0;
  return *this;
}

// contains keeps its early exit (test_and_set's branch-free block sweep is
// in block.hpp): fewer instructions per key let more keys' cache misses
// overlap, which matters more on large filters (1 GiB: 128 vs 250-300 ns
// branchless) than the mispredictions in cache (17 vs 12 ns).
bool BlockedBloom::test_and_set(uint64_t h) noexcept {
  return detail::block_test_and_set<false>(words_.get() + block_of(h) * kWordsPerBlock, h, hashes_);
}

bool BlockedBloom::contains(uint64_t h) const noexcept {
  const uint64_t* block = words_.get() + block_of(h) * kWordsPerBlock;
  return all_positions(h, hashes_, [&](unsigned pos) {
    return (load_relaxed(block[pos >> 6]) & (uint64_t{1} << (pos & 63))) != 0;
  });
}

uint64_t BlockedBloom::bits_set() const noexcept {
  std::array<uint64_t, kBlockBits + 1> fill;
  block_fill(words_.get(), blocks_, fill.data());
  uint64_t total = 0;
  for (unsigned x = 0; x <= kBlockBits; ++x) total += fill[x] * x;
  return total;
}

double BlockedBloom::estimated_keys() const noexcept {
  if (blocks_ == 0) return 0.0;
  const double m = static_cast<double>(bits());
  const double x = static_cast<double>(bits_set());
  if (x >= m) return std::numeric_limits<double>::infinity();
  const double per_key_in_block = 1.0 - std::pow(1.0 - 1.0 / kBlockBits, hashes_);
  return std::log1p(-x / m) / std::log1p(-per_key_in_block / static_cast<double>(blocks_));
}

double BlockedBloom::estimated_fpr() const noexcept {
  if (blocks_ == 0) return 0.0;
  double pow_table[kBlockBits + 1];
  for (unsigned x = 0; x <= kBlockBits; ++x)
    pow_table[x] = std::pow(static_cast<double>(x) / kBlockBits, hashes_);
  std::array<uint64_t, kBlockBits + 1> fill;
  block_fill(words_.get(), blocks_, fill.data());
  double sum = 0;
  for (unsigned x = 0; x <= kBlockBits; ++x) sum += static_cast<double>(fill[x]) * pow_table[x];
  return sum / static_cast<double>(blocks_);
}

void BlockedBloom::check_same_shape(const BlockedBloom& other, const char* op) const {
  if (blocks_ != other.blocks_)
    throw std::invalid_argument(std::string("BlockedBloom::") + op + ": block count differs (" +
                                std::to_string(blocks_) + " vs " + std::to_string(other.blocks_) + ")");
  if (hashes_ != other.hashes_)
    throw std::invalid_argument(std::string("BlockedBloom::") + op + ": hash count differs (" +
                                std::to_string(hashes_) + " vs " + std::to_string(other.hashes_) + ")");
}

void BlockedBloom::union_with(const BlockedBloom& other) {
  check_same_shape(other, "union_with");
  uint64_t* dst = words_.get();
  const uint64_t* src = other.words_.get();
  for (uint64_t i = 0, n = blocks_ * kWordsPerBlock; i < n; ++i) dst[i] |= src[i];
}

void BlockedBloom::intersect_with(const BlockedBloom& other) {
  check_same_shape(other, "intersect_with");
  uint64_t* dst = words_.get();
  const uint64_t* src = other.words_.get();
  for (uint64_t i = 0, n = blocks_ * kWordsPerBlock; i < n; ++i) dst[i] &= src[i];
}

void BlockedBloom::clear() noexcept {
  if (blocks_ != 0) std::memset(words_.get(), 0, static_cast<size_t>(bytes()));
}

// --------------------------------------------------------------- ScalableBloom

void ScalableBloomParams::validate() const {
  if (initial_capacity == 0)
    throw std::invalid_argument("ScalableBloomParams: initial_capacity must be >= 1");
  if (!(fpr > 0.0 && fpr < 1.0))
    throw std::invalid_argument("ScalableBloomParams: fpr " + std::to_string(fpr) + " not in (0, 1)");
  if (!(growth >= 1.25 && growth <= 16.0))
    throw std::invalid_argument("ScalableBloomParams: growth " + std::to_string(growth) +
                                " not in [1.25, 16]");
  if (!(tightening > 0.0 && tightening < 1.0))
    throw std::invalid_argument("ScalableBloomParams: tightening " + std::to_string(tightening) +
                                " not in (0, 1)");
  if (!(first_share >= 0.0 && first_share < 1.0))
    throw std::invalid_argument("ScalableBloomParams: first_share " + std::to_string(first_share) +
                                " not in [0, 1)");
}

uint64_t ScalableBloomParams::layer_capacity(size_t i) const {
  const double n0 = static_cast<double>(initial_capacity);
  const double di = static_cast<double>(i);
  const double c = i == 0 ? n0 : linear_growth ? n0 * growth * di : n0 * std::pow(growth, di);
  constexpr double kCap = 4.0e18;  // saturate instead of overflowing
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::min(std::ceil(c), kCap)));
}

double ScalableBloomParams::layer_fpr(size_t i) const {
  if (first_share > 0) {
    if (i == 0) return fpr * first_share;
    return fpr * (1.0 - first_share) * (1.0 - tightening) * std::pow(tightening, static_cast<double>(i - 1));
  }
  return fpr * (1.0 - tightening) * std::pow(tightening, static_cast<double>(i));
}

ScalableBloom::ScalableBloom(const ScalableBloomParams& params) : params_(params) {
  params_.validate();
  const uint64_t cap = params_.layer_capacity(0);
  const double target = params_.layer_fpr(0);
  slots_[0] = std::make_unique<Layer>(BlockedBloom::for_capacity(cap, target), cap, target, 0);
  nlayers_.store(1, std::memory_order_release);
}

ScalableBloom ScalableBloom::from_layers(const ScalableBloomParams& params,
                                         std::vector<RestoredLayer> layers) {
  params.validate();
  if (layers.empty() || layers.size() > kMaxLayers)
    throw std::invalid_argument("ScalableBloom::from_layers: layer count " +
                                std::to_string(layers.size()) + " not in [1, " +
                                std::to_string(kMaxLayers) + "]");
  ScalableBloom chain;
  chain.params_ = params;
  for (size_t i = 0; i < layers.size(); ++i) {
    RestoredLayer& l = layers[i];
    if (l.filter.blocks() == 0)
      throw std::invalid_argument("ScalableBloom::from_layers: layer " + std::to_string(i) +
                                  " is empty");
    chain.slots_[i] =
        std::make_unique<Layer>(std::move(l.filter), l.capacity, l.target_fpr, l.keys);
  }
  chain.nlayers_.store(layers.size(), std::memory_order_release);
  return chain;
}

ScalableBloom::ScalableBloom(ScalableBloom&& other) noexcept
    : params_(other.params_), slots_(std::move(other.slots_)) {
  nlayers_.store(other.nlayers_.exchange(0), std::memory_order_release);
}

ScalableBloom& ScalableBloom::operator=(ScalableBloom&& other) noexcept {
  if (this != &other) {
    params_ = other.params_;
    slots_ = std::move(other.slots_);
    nlayers_.store(other.nlayers_.exchange(0), std::memory_order_release);
  }
  return *this;
}

ScalableBloom::ScalableBloom() = default;
ScalableBloom::~ScalableBloom() = default;

bool ScalableBloom::test_and_set(uint64_t h) { return test_and_set_in_chain<false>(h); }

bool ScalableBloom::test_and_set_exclusive_slow(uint64_t h) { return test_and_set_in_chain<true>(h); }

template <bool Exclusive>
bool ScalableBloom::test_and_set_in_chain(uint64_t h) {
  for (;;) {
    const size_t n = nlayers_.load(std::memory_order_acquire);
    Layer& newest = *slots_[n - 1];
    const bool full =
        n < kMaxLayers && newest.count.load(std::memory_order_relaxed) >= newest.capacity;
    if (n > 1 || full) {
      // Newest first: its block is then cached for the test_and_set below.
      if (newest.filter.contains(h)) return true;
      for (size_t i = n - 1; i-- > 0;)
        if (slots_[i]->filter.contains(h)) return true;
    }
    if (full) {  // a new key and no room: add a layer, then retry
      grow(n);
      continue;
    }
    if constexpr (Exclusive) {
      if (newest.filter.test_and_set_exclusive(h)) return true;
      newest.count.store(newest.count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    } else {
      if (newest.filter.test_and_set(h)) return true;
      newest.count.fetch_add(1, std::memory_order_relaxed);
    }
    return false;
  }
}

void ScalableBloom::grow(size_t seen_layers) {
  std::lock_guard<std::mutex> lock(grow_mutex_);
  const size_t n = nlayers_.load(std::memory_order_relaxed);
  if (n != seen_layers || n >= kMaxLayers) return;  // another thread grew the chain
  const uint64_t cap = params_.layer_capacity(n);
  const double target = params_.layer_fpr(n);
  slots_[n] = std::make_unique<Layer>(BlockedBloom::for_capacity(cap, target), cap, target, 0);
  nlayers_.store(n + 1, std::memory_order_release);
}

bool ScalableBloom::contains(uint64_t h) const noexcept {
  for (size_t i = nlayers_.load(std::memory_order_acquire); i-- > 0;)
    if (slots_[i]->filter.contains(h)) return true;
  return false;
}

const BlockedBloom& ScalableBloom::layer(size_t i) const {
  if (i >= layers())
    throw std::out_of_range("ScalableBloom::layer: index " + std::to_string(i) + " >= " +
                            std::to_string(layers()));
  return slots_[i]->filter;
}

BloomLayerInfo ScalableBloom::layer_info(size_t i, bool scan_fill) const {
  const BlockedBloom& f = layer(i);
  const Layer& l = *slots_[i];
  return {l.capacity, l.target_fpr, f.bits(), f.hashes(), l.count.load(std::memory_order_relaxed),
          scan_fill ? f.bits_set() : 0, scan_fill ? f.estimated_fpr() : 0.0};
}

uint64_t ScalableBloom::bytes() const noexcept {
  uint64_t total = 0;
  for (size_t i = 0, n = layers(); i < n; ++i) total += slots_[i]->filter.bytes();
  return total;
}

uint64_t ScalableBloom::keys_inserted() const noexcept {
  uint64_t total = 0;
  for (size_t i = 0, n = layers(); i < n; ++i)
    total += slots_[i]->count.load(std::memory_order_relaxed);
  return total;
}

double ScalableBloom::estimated_fpr() const noexcept {
  double pass = 1.0;
  for (size_t i = 0, n = layers(); i < n; ++i) pass *= 1.0 - slots_[i]->filter.estimated_fpr();
  return 1.0 - pass;
}

double ScalableBloom::estimated_keys() const noexcept {
  double total = 0;
  for (size_t i = 0, n = layers(); i < n; ++i) total += slots_[i]->filter.estimated_keys();
  return total;
}

}  // namespace kmerbloom
