// The single read of the input: every read is cut into super-k-mers, which
// go 2-bit packed into their minimizer's partition, in the spool.
//
// Spooled format. A partition is a list of spool blocks; a block holds
// fragments, each an 8-byte header {serial of the input batch, fragment
// number within that batch and partition, payload bytes} and its payload:
// records of one length byte (k-mers less one: the record holds k - 1 + n
// bases for its n k-mers, 1 <= n <= kMaxSuperKmerKmers), in a tagged store
// one byte of tag (minimizer_place), and the bases packed four to a byte,
// first base in the top bits. Which worker took which
// batch, and so the order of the blocks, depends on the threads; sorting a
// partition's fragments by (serial, number) gives back input order, so a
// partition is counted in the same order whatever the thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "count/plan.hpp"
#include "count/spool.hpp"
#include "seqio/pipeline.hpp"

namespace kmerbloom::detail {

// Before each fragment: a batch's super-k-mers of one partition, in a block
// of at most kMaxBlockBytes. 8 bytes, where 16 took 7% of the bytes spooled
// on 25x pairs (a fragment a batch and partition: some 250 k-mers).
struct FragmentHeader {
  uint32_t serial;  // the batch's
  uint16_t number;  // in the batch
  uint16_t bytes;   // of payload
};
static_assert(sizeof(FragmentHeader) == 8);
inline constexpr uint32_t kMaxBlockBytes = 1u << 16;

// Every partition's blocks. Thread-safe. A tagged store's records carry
// their minimizer's tag, so that a partition can be counted in sweeps that
// each skip the others' records without decoding them (CountPlan::tagged).
class PartitionStore {
 public:
  PartitionStore(uint32_t partitions, Spool& spool, bool tagged = false);
  bool tagged() const { return tagged_; }
  void add_block(uint32_t p, const uint8_t* data, uint32_t size);
  // Moves partition p's blocks out (the store forgets them).
  std::vector<Spool::Block> take(uint32_t p);
  uint64_t bytes(uint32_t p) const { return parts_[p].bytes; }
  uint32_t partitions() const { return static_cast<uint32_t>(parts_.size()); }
  Spool& spool() { return spool_; }

 private:
  struct Part {
    std::mutex mu;
    std::vector<Spool::Block> blocks;
    uint64_t bytes = 0;
  };
  Spool& spool_;
  std::vector<Part> parts_;
  bool tagged_;
};

// One worker's write buffers, one per partition, flushed to the store when
// full and at the end. The buffers are one arena and a partition's state is
// one record: adding a super-k-mer touches two cache lines, its record and
// its buffer's end (a vector and four arrays a partition took 0.2 ns a base
// more, on 150 bp reads, of the writer's 2 ns beside the minimizer scan's 3.6).
// Not thread-safe: one per worker.
class PartitionWriter {
 public:
  PartitionWriter(PartitionStore& store, uint32_t block_bytes, unsigned k);
  void begin_batch(uint64_t serial);
  // Appends a super-k-mer (bases ACGTU, either case) to partition p; its
  // minimizer's tag goes with it when the store is tagged.
  void add(uint32_t p, std::string_view bases, uint8_t tag = 0);
  void end_batch();
  // Flushes every buffer; the writer is then empty.
  void finish();
  // K-mer occurrences added per partition.
  std::vector<uint64_t> kmers() const;

 private:
  struct Part {
    uint32_t used = 0;    // bytes in the buffer
    uint32_t open = 0;    // offset of the open fragment's header + 1, 0 when none
    uint32_t number = 0;  // next fragment number in this batch
    uint64_t kmers = 0;
  };
  uint8_t* buffer(uint32_t p) { return arena_.get() + size_t{p} * block_bytes_; }
  void close(uint32_t p);
  void flush(uint32_t p);

  PartitionStore& store_;
  uint32_t block_bytes_;
  unsigned k_;
  bool tagged_;
  uint64_t serial_ = 0;
  std::unique_ptr<uint8_t[]> arena_;  // partitions x block_bytes, untouched until used
  std::vector<Part> parts_;
  std::vector<uint32_t> touched_;  // partitions with a fragment in this batch
};

// A partition read back: its bytes and its fragments in input order.
struct LoadedPartition {
  std::vector<uint8_t> data;
  bool tagged = false;  // records carry a tag byte
  struct Fragment {
    uint64_t serial;
    uint32_t number;
    uint32_t bytes;
    uint64_t offset;  // payload offset in data
  };
  std::vector<Fragment> fragments;
};

// Reads partition p back (freeing its spool memory) into `out`.
void load_partition(PartitionStore& store, uint32_t p, LoadedPartition& out);

// The sweep (0..sweeps-1, sweeps <= 256) of a record's tag.
inline uint32_t tag_sweep(uint8_t tag, uint32_t sweeps) { return (uint32_t{tag} * sweeps) >> 8; }

// f(code, length) for each record of the partition (k-mers of length k), in
// input order: `code` points to length bases packed four to a byte. Of a
// tagged partition, only the records of sweep `sweep` of `sweeps` (by
// tag_sweep); the others are stepped over, not decoded.
template <class F>
void for_each_record(const LoadedPartition& part, unsigned k, F&& f, uint32_t sweeps = 1, uint32_t sweep = 0) {
  const unsigned head = part.tagged ? 2 : 1;
  const bool select = part.tagged && sweeps > 1;
  for (const LoadedPartition::Fragment& fr : part.fragments) {
    const uint8_t* p = part.data.data() + fr.offset;
    const uint8_t* end = p + fr.bytes;
    while (p < end) {
      const unsigned len = k + p[0];
      const bool take = !select || tag_sweep(p[1], sweeps) == sweep;
      p += head;
      if (take) f(p, len);
      p += (len + 3) / 4;
    }
  }
}

// The single read: every read of o.inputs cut into super-k-mers, into the
// store's plan.partitions partitions. Returns k-mer occurrences per
// partition; adds reads and bases to `sum`. A full temporary disk is a
// SpoolError that says how much more is needed.
std::vector<uint64_t> scatter_input(const CountOptions& o, const CountPlan& plan, PartitionStore& store,
                                    PipelineProgress& progress, InputSummary& sum);

}  // namespace kmerbloom::detail
