#include "normalize/gated_sketch.hpp"

#include <algorithm>
#include <cmath>

namespace kmerbloom {

namespace {

// BlockedBloom::expected_fpr, but past 200 keys per block (a gate capped far
// below its keys; the exact model costs time linear in the keys per block,
// and the rate is near 1 anyway) the classic (1 - e^{-k n / m})^k.
double gate_rate(uint64_t keys, const BlockedBloom::Shape& gate) {
  const double per_block = static_cast<double>(keys) / static_cast<double>(gate.blocks);
  if (per_block <= 200) return BlockedBloom::expected_fpr(keys, gate.blocks, gate.hashes);
  const double k = gate.hashes;
  return std::pow(1 - std::exp(-k * per_block / BlockedBloom::kBlockBits), k);
}

// Mean model false-positive rate of a gate of this shape while it fills from
// 0 to n keys (midpoint rule over 16 steps): the rate a k-mer seen once
// meets, when the k-mers seen once arrive spread over the input.
double mean_rate_over_fill(uint64_t n, const BlockedBloom::Shape& gate) {
  constexpr int kSteps = 16;
  double sum = 0;
  for (int i = 0; i < kSteps; ++i) {
    const auto keys = static_cast<uint64_t>(std::llround((i + 0.5) / kSteps * static_cast<double>(n)));
    sum += gate_rate(keys, gate);
  }
  return sum / kSteps;
}

uint64_t leaked_keys(uint64_t once, uint64_t gate_keys, const BlockedBloom::Shape& gate) {
  return static_cast<uint64_t>(std::llround(mean_rate_over_fill(gate_keys, gate) * static_cast<double>(once)));
}

}  // namespace

GatedSketchPlan plan_gated_sketch(uint64_t repeated_keys, uint64_t once_keys, uint64_t max_bytes,
                                  uint64_t min_part_bytes) {
  GatedSketchPlan p;
  p.repeated_keys = repeated_keys;
  p.once_keys = once_keys;
  p.gate_keys = std::max<uint64_t>(repeated_keys + once_keys, 1);
  p.gate = BlockedBloom::shape_for_capacity(p.gate_keys, kGateFpr);
  p.sketch_keys = repeated_keys + leaked_keys(once_keys, p.gate_keys, p.gate);
  p.sketch_blocks = CountMinSketch::blocks_for_keys(p.sketch_keys);
  p.gate.blocks = std::max(p.gate.blocks, min_part_bytes / BlockedBloom::kBlockBytes);
  p.sketch_blocks = std::max(p.sketch_blocks, min_part_bytes / CountMinSketch::kBlockBytes);
  const uint64_t floor_bytes = BlockedBloom::kBlockBytes + CountMinSketch::kBlockBytes;
  max_bytes = std::max(max_bytes, floor_bytes);
  if (p.bytes() > max_bytes) {
    p.capped = true;
    const double f = static_cast<double>(max_bytes) / static_cast<double>(p.bytes());
    auto shrink = [f](uint64_t blocks) {
      return std::max<uint64_t>(1, static_cast<uint64_t>(std::floor(f * static_cast<double>(blocks))));
    };
    p.gate.blocks = shrink(p.gate.blocks);
    p.sketch_blocks = shrink(p.sketch_blocks);
  }
  p.gate_fpr = gate_rate(p.gate_keys, p.gate);
  // Leaks follow the gate as it is, which a cap makes more crowded.
  const uint64_t in_sketch = repeated_keys + leaked_keys(once_keys, p.gate_keys, p.gate);
  p.collision_rate = CountMinSketch::expected_collision_rate(in_sketch, p.sketch_blocks);
  return p;
}

GatedSketch::GatedSketch(const GatedSketchPlan& plan)
    : gate_(plan.gate.blocks, plan.gate.hashes), sketch_(plan.sketch_blocks) {}

}  // namespace kmerbloom
