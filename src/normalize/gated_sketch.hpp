// GatedSketch: k-mer abundances for digital normalization in memory that
// grows with the k-mers seen at least twice, not with the input.
//
// A Bloom filter gate (BlockedBloom, bloom.hpp) in front of a CountMinSketch
// (count_min_sketch.hpp), as `kmerbloom count` keeps singletons out of its
// table. The first sighting of a k-mer only sets its bits in the gate; from
// the second on, the k-mer is counted in the sketch, and its abundance is
// 1 + the sketch's estimate (at most kMaxCount). K-mers seen once, mostly
// sequencing errors and most of the distinct k-mers of a read set, take
// about 7 gate bits each and no sketch counter.
//
// Errors. Never under-counts (the gate has no false negatives, the sketch
// never under-counts). A k-mer never seen reads 1 or more with probability
// the gate's false-positive rate; such a false positive also sends the k-mer
// to the sketch one sighting early (its count reads one high), and adds a
// key to the sketch: the "leaked" keys the sizing counts in.
//
// The gate is not keyed by the k-mer hash h itself but by rotl(h, 32), so that
// gate block and sketch block (both taken from the high bits) are independent.
//
// Sizing (plan_gated_sketch, the rule `kmerbloom filter` uses; the numbers
// are the caller's):
//   gate keys   = repeated + once
//   sketch keys = repeated + leaked, leaked = once * (the gate's model rate
//                 averaged over its fill from 0 to the gate keys)
// where `repeated` is the number of distinct k-mers expected to be counted at
// least twice and `once` the k-mers expected to be counted once. The gate is
// the smallest BlockedBloom with model rate <= kGateFpr at the gate keys; the
// sketch has CountMinSketch::blocks_for_keys(sketch keys) blocks (6 keys per
// block: model collision rate 1.6%). A k-mer seen once meets the gate at its
// fill of the moment, so fewer leak than the final rate says (on the 4-hash
// gate, about a third). kGateFpr = 5% is near the memory optimum:
// a lower rate costs 1.44 gate bits per key for each halving, a higher one
// sketch blocks (10.7 bytes) for the leaked keys. When the two exceed
// max_bytes, both shrink by the same factor (and the model rates, which the
// plan reports, rise).
//
// Thread safety: none inside; const members may run concurrently with each
// other, add() needs exclusive access (filter_reads calls it from its single
// ordered stage). Memory: owns the gate and the sketch (see their headers).
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

// The sizing rule above. Gate and sketch are each at least min_part_bytes
// (a small input then sees next to no collisions), then max_bytes caps
// gate + sketch (at least 2 blocks).
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
