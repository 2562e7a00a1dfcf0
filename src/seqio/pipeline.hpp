// The read -> work pipeline every subcommand runs on.
//
// One reader thread parses the input files in order and hands batches of
// whole records (sized in bases, as minimap2 does) to worker threads through a
// bounded queue; memory stays bounded by workers + 2 batches (one being
// filled, one per worker, one waiting). Batches hold names and sequences:
// qualities are checked, not kept. Each batch
// carries a serial number so that a stage which must keep input order can.
// An exception in the reader or in any worker stops the pipeline; the first
// one is rethrown by run_pipeline once every thread has joined.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/bases.hpp"
#include "seqio/reader.hpp"

namespace kmerbloom {

// The reads a command takes and how it reads them: the fields every
// command's options share (CountOptions, BinOptions, BuildOptions,
// QueryOptions, EstimateOptions, ReadFilterOptions derive from it), so that
// a command running another (build's count, filter's estimate) hands its read
// set over in one assignment. Each command sets its own defaults.
struct ReadSetOptions {
  std::vector<std::string> inputs;  // paths, "-" for stdin
  unsigned k = 31;
  bool canonical = true;
  unsigned threads = 1;
  uint64_t batch_bases = 4u << 20;  // bases per batch
  uint64_t max_memory = 0;          // bytes; 0 = no budget
  std::string tmp_dir = {};         // temporary files; empty: $TMPDIR, else /tmp

  ReadSetOptions& read_set() { return *this; }
  const ReadSetOptions& read_set() const { return *this; }
  // Throws std::invalid_argument naming the first bad field: no inputs, k
  // outside 1..max_k (unless checked elsewhere: query's k against its filter),
  // no thread, empty batches.
  void validate(unsigned max_k, bool k_checked_elsewhere = false) const;
  // True if some input cannot be read twice (stdin, a FIFO, a device: is_stream).
  bool has_stream_input() const;
};

struct PipelineOptions {
  unsigned workers = 1;
  uint64_t batch_bases = 4u << 20;  // bases per batch
  // Stages that read k-mers only: records longer than a quarter of a batch
  // come in pieces overlapping by k - 1 bases (SequenceReader::set_pieces),
  // so that a batch stays within twice batch_bases whatever the records.
  // 0: whole records.
  unsigned piece_k = 0;
  // Batches in flight, read or being read (at least workers + 2, the
  // default): the reader shares the cores with the workers, and a deeper
  // queue keeps them busy while the scheduler holds it back.
  size_t batches = 0;
  // Threads inflating a BGZF input beside the reader (0: one for every four
  // workers; 1: the reader inflates it itself). Plain gzip is inflated by
  // the reader.
  unsigned inflate_threads = 0;
};

// Progress as the reader sees it, readable from any thread.
struct PipelineProgress {
  std::atomic<uint64_t> raw_bytes{0};   // input bytes consumed (compressed where compressed)
  std::atomic<uint64_t> raw_total{0};   // sum of input sizes known so far, 0 when unknown
  std::atomic<uint64_t> records{0};
  std::atomic<uint64_t> bases{0};
  std::atomic<unsigned> file_index{0};
  // A pass that reads no input (partitions counted, sorted runs merged)
  // counts its own work: units_done of units_total, in `unit` (a string
  // literal such as "k-mers counted"); nullptr while a pass reads input.
  std::atomic<uint64_t> units_done{0};
  std::atomic<uint64_t> units_total{0};
  std::atomic<const char*> unit{nullptr};
};

// One worker's state on cache lines of its own: the workers' entries of a
// vector would share lines, and every write of one would evict the others'
// (count's input sums, written once a read, took 11% of its scan's samples).
template <class T>
struct alignas(64) PerWorker {
  T value{};
};

// What went in, summed over all worker threads (k-mers: occurrences the
// workers extracted).
struct InputSummary {
  uint64_t reads = 0;
  uint64_t bases = 0;
  uint64_t bases_skipped = 0;  // non-ACGT bases
  uint64_t kmers = 0;          // k-mer occurrences
  // Adds record i of b: a read where it starts one, and the bases no piece
  // before it held. Returns how many of those are not ACGTU.
  uint64_t add_record(const RecordBatch& b, size_t i) {
    const std::string_view seq = b.new_bases(i);
    const uint64_t other = count_non_acgt(seq);
    reads += b.starts_read(i);
    bases += seq.size();
    bases_skipped += other;
    return other;
  }
  void add(const InputSummary& o) {
    reads += o.reads;
    bases += o.bases;
    bases_skipped += o.bases_skipped;
    kmers += o.kmers;
  }
};

// work(batch, worker_id) is called concurrently from `workers` threads,
// worker_id in [0, workers). It must not keep references into the batch.
using BatchWork = std::function<void(const RecordBatch&, unsigned worker_id)>;

// Reads every input in order and runs work on each batch. Throws InputError
// for bad input, or whatever work threw.
void run_pipeline(const std::vector<std::string>& inputs, const PipelineOptions& options,
                  const BatchWork& work, PipelineProgress* progress = nullptr);

}  // namespace kmerbloom
