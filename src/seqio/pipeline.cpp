#include "seqio/pipeline.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>

#include "seqio/paths.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom {

void ReadSetOptions::validate(unsigned max_k, bool k_checked_elsewhere) const {
  if (inputs.empty()) throw std::invalid_argument("no input files");
  if (!k_checked_elsewhere && (k < 1 || k > max_k))
    throw std::invalid_argument("-k must be between 1 and " + std::to_string(max_k) + ", got " + std::to_string(k));
  if (threads < 1) throw std::invalid_argument("--threads must be at least 1");
  if (batch_bases < 1) throw std::invalid_argument("batch size must be at least 1 base");
}

bool ReadSetOptions::has_stream_input() const {
  return std::any_of(inputs.begin(), inputs.end(), [](const std::string& p) { return is_stream(p); });
}

namespace {

// A bounded hand-off between the reader and the workers: `free` holds empty
// batches, `full` holds parsed ones.
struct BatchQueue {
  explicit BatchQueue(size_t slots) {
    for (size_t i = 0; i < slots; ++i) {
      auto b = std::make_unique<RecordBatch>();
      b->keep_quality = false;  // no stage on this pipeline reads qualities
      free.push(std::move(b));
    }
  }
  void abort() {
    free.abort();
    full.abort();
  }
  detail::HandOff<RecordBatch> free, full;
};

}  // namespace

void run_pipeline(const std::vector<std::string>& inputs, const PipelineOptions& options,
                  const BatchWork& work, PipelineProgress* progress) {
  const unsigned workers = options.workers == 0 ? 1 : options.workers;
  // A BGZF input's inflating threads: one inflates about 0.7 GB/s of FASTQ
  // (htslib, measured), a worker takes about 0.2 GB/s, so one for every four
  // workers; below two, the reader inflates it itself (docs/scale.md).
  const unsigned inflate_threads = options.inflate_threads ? options.inflate_threads : (workers + 3) / 4;
  BatchQueue queue(std::max<size_t>(options.batches, workers + 2));
  detail::FirstError error;

  std::vector<std::thread> pool;
  pool.reserve(workers);
  try {
    for (unsigned id = 0; id < workers; ++id) {
      pool.push_back(detail::start_thread(
          [&, id] {
            try {
              std::unique_ptr<RecordBatch> batch;
              while (queue.full.pop(batch)) {
                work(*batch, id);
                queue.free.push(std::move(batch));
              }
            } catch (...) {
              error.set(std::current_exception());
              queue.abort();
            }
          },
          id, workers));
    }
  } catch (...) {  // the threads already running stop; the caller gets the reason
    queue.abort();
    for (auto& t : pool) t.join();
    throw;
  }

  try {
    uint64_t serial = 0, done_bytes = 0;
    bool stopped = false;
    for (size_t f = 0; f < inputs.size() && !stopped; ++f) {
      SequenceReader reader(inputs[f], inflate_threads);
      if (options.piece_k)
        reader.set_pieces(std::max<uint64_t>(options.batch_bases / 4, options.piece_k), options.piece_k - 1);
      if (progress) {
        progress->file_index = static_cast<unsigned>(f);
        progress->raw_total += reader.raw_size();
      }
      for (;;) {
        std::unique_ptr<RecordBatch> batch;
        if (!queue.free.pop(batch)) {  // a worker failed
          stopped = true;
          break;
        }
        if (!reader.next_batch(*batch, options.batch_bases)) {
          queue.free.push(std::move(batch));
          break;
        }
        batch->serial = serial++;
        batch->file_index = static_cast<uint32_t>(f);
        if (progress) {
          progress->raw_bytes = done_bytes + reader.raw_bytes_read();
          progress->records += batch->size();
          progress->bases += batch->bases;
        }
        queue.full.push(std::move(batch));
      }
      done_bytes += reader.raw_bytes_read();
    }
  } catch (...) {
    error.set(std::current_exception());
    queue.abort();
  }
  queue.full.close();
  for (auto& t : pool) t.join();
  error.rethrow();
}

}  // namespace kmerbloom
