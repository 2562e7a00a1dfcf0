// Spool: blocks of bytes kept in memory while a budget allows, else written to
// a temporary file.
//
// The counter parks what its later stages need (super-k-mers by partition,
// then the sorted solid k-mers of each partition) here, so that the input is
// read only once. Blocks go to memory while the bytes held there stay within
// `memory_budget`; past it, they are appended to one temporary file in `dir`,
// created on the first such block and unlinked at once: it disappears with
// the process however the process ends (success, error, SIGINT, SIGTERM,
// SIGKILL), and nothing is left in `dir`. Blocks bound for the file are
// gathered in a staging buffer of kStagingBytes and written a whole buffer at
// a time, at offsets that are multiples of it: a write of a few KiB at an
// unaligned offset costs a system call and the kernel's zeroing of the page
// it starts; on 3 Gbp of reads, 3 GB went out in 4 KiB pieces and the
// writes took 7% of the run's CPU time. Reads of staged bytes are served
// from the buffer.
//
// Errors: a temporary file that cannot be created or written throws
// SpoolError (an OutputError) naming the directory and, for a full disk, the
// bytes written so far. Thread safety: put(), read(), release() and the
// statistics may be called from any threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/huge_pages.hpp"

namespace kmerbloom {

class SpoolError : public OutputError {
 public:
  SpoolError(const std::string& what, std::string dir, uint64_t written, bool full)
      : OutputError(what), dir_(std::move(dir)), written_(written), full_(full) {}
  const std::string& dir() const { return dir_; }
  uint64_t written() const { return written_; }
  bool disk_full() const { return full_; }

 private:
  std::string dir_;
  uint64_t written_;
  bool full_;
};

struct SpoolOptions {
  std::string dir;             // for the temporary file; empty: $TMPDIR, else /tmp
  uint64_t memory_budget = 0;  // bytes of blocks held in memory at most
  // Testing: the disk counts as full once this many bytes were written.
  uint64_t disk_limit = ~uint64_t{0};
  // Blocks of at most this many bytes are held in slots of this size, from
  // the spool's own pool shared by every thread (and count as a whole slot):
  // a slot freed by one thread holds the next block of any other. With
  // malloc, blocks written by the reading threads and freed while other
  // threads store the solid k-mers sat in different arenas, and the heap grew
  // past the budget (1.34 GB at -M 1G on 5 Gbp of reads). 0: no pool.
  uint32_t slot_bytes = 0;
};

class Spool {
 public:
  static constexpr uint32_t kStagingBytes = 1u << 20;

  // A stored block. Its memory copy, when it has one, is a slot of the pool
  // or owned by the block.
  struct Block {
    uint8_t* memory = nullptr;
    std::unique_ptr<uint8_t[]> owned;
    uint64_t offset = 0;  // in the file, when not in memory
    uint32_t size = 0;
    // Bytes it holds in memory (counted against the budget), or would hold
    // there when it went to the file; 0 once released.
    uint32_t held = 0;
    bool in_memory() const { return memory != nullptr; }
  };

  explicit Spool(SpoolOptions options);
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  // Stores `size` bytes.
  Block put(const void* data, uint32_t size);
  // Copies the block's bytes to out[0, size).
  void read(const Block& block, void* out) const { read(block, 0, block.size, out); }
  // Copies bytes [offset, offset + size) of the block to out[0, size).
  void read(const Block& block, uint32_t offset, uint32_t size, void* out) const;
  // Writes the staged bytes out now (a full disk shows here, not at a later
  // put); the blocks already stored stay valid.
  void flush();
  // flush(), and the staging buffer freed: for a spool that is read from
  // now on (a later put makes a new one).
  void seal();
  // Frees the block's memory (its file bytes stay until the spool closes).
  void release(Block& block);

  const std::string& dir() const { return dir_; }
  uint64_t memory_bytes() const { return memory_.load(std::memory_order_relaxed); }
  uint64_t memory_peak() const { return memory_peak_.load(std::memory_order_relaxed); }
  uint64_t disk_bytes() const { return disk_.load(std::memory_order_relaxed); }
  uint64_t memory_budget() const { return budget_; }
  // The most memory the blocks stored and not yet released would have held
  // at once, had every one stayed in memory: the budget that spills nothing.
  uint64_t footprint_peak() const { return footprint_peak_.load(std::memory_order_relaxed); }

  // The directory temporary files go to: `dir`, else $TMPDIR, else /tmp.
  static std::string resolve_dir(const std::string& dir);
  // Creates and removes a file in resolve_dir(dir), so that a directory that
  // cannot hold one (missing, read-only, not a directory) fails before any
  // input is read rather than at the first spill. Throws SpoolError.
  static void check_dir(const std::string& dir);

 private:
  bool take_memory(uint32_t size);
  // Writes the staging buffer at its offset and empties it. Needs disk_mu_.
  void write_staging();
  // Writes size bytes at `offset` of the file; a failure is a SpoolError.
  void write_at(const void* data, uint64_t size, uint64_t offset);
  [[noreturn]] void fail_write(int error, uint64_t written) const;
  // A new temporary file in dir, already unlinked; `named` is dir in messages.
  static int create_file(const std::string& dir, const std::string& named);
  uint8_t* take_slot();
  void give_slot(uint8_t* slot);

  std::string dir_;
  uint64_t budget_;
  uint64_t disk_limit_;
  uint32_t slot_;
  int fd_ = -1;
  mutable std::mutex disk_mu_;     // the file, disk_ and the staging buffer
  std::vector<uint8_t> staging_;   // the file's bytes from written_ on
  std::atomic<uint64_t> written_{0};  // bytes of the file written out
  std::atomic<uint64_t> memory_{0}, memory_peak_{0}, disk_{0};
  std::atomic<uint64_t> footprint_{0}, footprint_peak_{0};
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<uint8_t[], detail::TableFree>> chunks_;  // the pool: 4 MiB (or 256 slots) each
  std::vector<uint8_t*> free_slots_;
};

}  // namespace kmerbloom
