#include "kmerbloom/normalize/gated_sketch.hpp"

#include <algorithm>
#include <cmath>

namespace kmerbloom {

GatedSketchPlan plan_gated_sketch(uint64_t repeated_keys, uint64_t once_keys, uint64_t max_bytes) {
  GatedSketchPlan p;
  p.repeated_keys = repeated_keys;
  p.once_keys = once_keys;
  p.gate_keys = std::max<uint64_t>(repeated_keys + once_keys, 1);
  p.sketch_keys = repeated_keys + static_cast<uint64_t>(std::llround(kGateFpr * static_cast<double>(once_keys)));
  p.gate = BlockedBloom::shape_for_capacity(p.gate_keys, kGateFpr);
  p.sketch_blocks = CountMinSketch::blocks_for_keys(p.sketch_keys);
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
  p.gate_fpr = BlockedBloom::expected_fpr(p.gate_keys, p.gate.blocks, p.gate.hashes);
  // Leaks follow the gate's rate as it is, which a cap raises.
  const uint64_t leaked = static_cast<uint64_t>(std::llround(p.gate_fpr * static_cast<double>(once_keys)));
  p.collision_rate = CountMinSketch::expected_collision_rate(repeated_keys + leaked, p.sketch_blocks);
  return p;
}

GatedSketch::GatedSketch(const GatedSketchPlan& plan)
    : gate_(plan.gate.blocks, plan.gate.hashes), sketch_(plan.sketch_blocks) {}

}  // namespace kmerbloom
