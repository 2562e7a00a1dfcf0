// GatedSketch: k-mer abundances for digital normalization in memory that
// grows with the k-mers seen at least twice, not with the input.
//
// A BlockedBloom gate (bloom/bloom.hpp) in front of a CountMinSketch
// (normalize/count_min_sketch.hpp): the first sighting of a k-mer only sets its
// gate bits, later ones are counted in the sketch; abundance = 1 + the sketch's
// estimate (at most kMaxCount). Never under-counts. The error model and the
// sizing rule of plan_gated_sketch: docs/normaliser-sketch.md.
//
// Thread safety: none inside; const members may run concurrently with each
// other, add() needs exclusive access. Memory: owns the gate and the sketch.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "bloom/bloom.hpp"
#include "normalize/count_min_sketch.hpp"

namespace kmerbloom {

struct GatedSketchPlan {
  uint64_t repeated_keys = 0;  // design: distinct k-mers counted at least twice
  uint64_t once_keys = 0;      // design: distinct k-mers counted once
  uint64_t gate_keys = 0;      // repeated + once
  uint64_t sketch_keys = 0;    // repeated + leaked (once * the gate's mean rate over its fill)
  BlockedBloom::Shape gate;    // blocks, hashes
  uint64_t sketch_blocks = 0;
  bool capped = false;         // max_bytes made it smaller than the rule
  double gate_fpr = 0;         // model false-positive rate at the design keys
  double collision_rate = 0;   // model sketch collision rate at the design keys

  [[nodiscard]] uint64_t gate_bytes() const { return gate.blocks * BlockedBloom::kBlockBytes; }
  [[nodiscard]] uint64_t sketch_bytes() const { return sketch_blocks * CountMinSketch::kBlockBytes; }
  [[nodiscard]] uint64_t bytes() const { return gate_bytes() + sketch_bytes(); }
};

inline constexpr double kGateFpr = 0.05;

// The sizing rule (docs/normaliser-sketch.md). Gate and sketch are each at
// least min_part_bytes (a small input then sees next to no collisions), then
// max_bytes caps gate + sketch (at least 2 blocks).
GatedSketchPlan plan_gated_sketch(uint64_t repeated_keys, uint64_t once_keys, uint64_t max_bytes,
                                  uint64_t min_part_bytes = 0);

class GatedSketch {
 public:
  static constexpr unsigned kMaxCount = CountMinSketch::kMaxCount;

  // Zeroed gate and sketch of the plan's shapes. Throws std::invalid_argument
  // on a zero or oversized shape, std::bad_alloc if memory is short.
  explicit GatedSketch(const GatedSketchPlan& plan);

  // Estimated count of the key, in [0, kMaxCount].
  [[nodiscard]] unsigned estimate(uint64_t h) const noexcept {
    if (!gate_.contains(gate_key(h))) return 0;
    const unsigned s = sketch_.estimate(h);
    return s < kMaxCount ? s + 1 : kMaxCount;
  }
  // Counts one more occurrence: the first in the gate, the others in the
  // sketch.
  void add(uint64_t h) noexcept {
    if (gate_.test_and_set(gate_key(h))) sketch_.add(h);
  }
  // Hints the CPU to load the key's gate and sketch blocks.
  void prefetch(uint64_t h) const noexcept {
    gate_.prefetch(gate_key(h));
    sketch_.prefetch(h);
  }

  [[nodiscard]] const BlockedBloom& gate() const noexcept { return gate_; }
  [[nodiscard]] const CountMinSketch& sketch() const noexcept { return sketch_; }
  [[nodiscard]] uint64_t bytes() const noexcept { return gate_.bytes() + sketch_.bytes(); }

 private:
  static uint64_t gate_key(uint64_t h) noexcept { return std::rotl(h, 32); }

  BlockedBloom gate_;
  CountMinSketch sketch_;
};

}  // namespace kmerbloom
