#include "normalize/count_min_sketch.hpp"

#include <cmath>
#include <cstring>
#include <math.h>
#include <limits>
#include <stdexcept>
#include <string>

namespace kmerbloom {

CountMinSketch::CountMinSketch(uint64_t blocks) {
  if (blocks == 0 || blocks > kMaxBlocks)
    throw std::invalid_argument("CountMinSketch: block count " + std::to_string(blocks) + " not in [1, " +
                                std::to_string(kMaxBlocks) + "]");
  // Zeroing touches every page now, as the first adds would.
  const auto bytes = static_cast<size_t>(blocks * kBlockBytes);
  counters_.reset(static_cast<uint8_t*>(detail::table_alloc(bytes)));
  std::memset(counters_.get(), 0, bytes);
  blocks_ = blocks;
}

uint64_t CountMinSketch::blocks_for_keys(uint64_t keys) noexcept {
  const double b = std::ceil(static_cast<double>(keys) / kKeysPerBlock);
  if (b < 1) return 1;
  if (b > static_cast<double>(kMaxBlocks)) return kMaxBlocks;
  return static_cast<uint64_t>(b);
}

double CountMinSketch::expected_collision_rate(uint64_t keys, uint64_t blocks) noexcept {
  if (blocks == 0) return 1;
  const double lambda = static_cast<double>(keys) / static_cast<double>(blocks);
  if (lambda <= 0) return 0;
  // Sum the Poisson terms around the mean until they no longer matter.
  const auto hi = static_cast<unsigned>(lambda + 12 * std::sqrt(lambda) + 30);
  double sum = 0;
  const double empty = 1.0 - 1.0 / kRowWidth;
  int sign = 0;  // lgamma_r: std::lgamma writes the global signgam, not thread-safe
  for (unsigned j = 1; j <= hi; ++j) {
    const double lp = -lambda + j * std::log(lambda) - ::lgamma_r(j + 1.0, &sign);
    sum += std::exp(lp) * std::pow(1.0 - std::pow(empty, j), kRows);
  }
  return std::min(sum, 1.0);
}

CountMinSketch::Fill CountMinSketch::fill() const noexcept {
  Fill f;
  uint64_t row_zero[kRows] = {};
  double rate_sum = 0;
  const uint8_t* c = counters_.get();
  for (uint64_t b = 0; b < blocks_; ++b, c += kBlockBytes) {
    double p = 1;
    for (unsigned r = 0; r < kRows; ++r) {
      unsigned nz = 0;
      for (unsigned i = 0; i < kRowWidth; ++i) {
        const uint8_t x = c[r * kRowWidth + i];
        nz += x != 0;
        f.saturated += x == kMaxCount;
      }
      f.nonzero += nz;
      row_zero[r] += kRowWidth - nz;
      p *= static_cast<double>(nz) / kRowWidth;
    }
    rate_sum += p;
  }
  f.collision_rate = blocks_ ? rate_sum / static_cast<double>(blocks_) : 0;
  const double width = static_cast<double>(blocks_) * kRowWidth;
  const double per_key = std::log1p(-1.0 / width);
  double keys = 0;
  for (unsigned r = 0; r < kRows; ++r) {
    if (row_zero[r] == 0) {
      keys = std::numeric_limits<double>::infinity();
      break;
    }
    keys += std::log(static_cast<double>(row_zero[r]) / width) / per_key;
  }
  f.keys = std::isinf(keys) ? keys : keys / kRows;
  return f;
}

}  // namespace kmerbloom
