#include "kmerbloom/pipeline.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace kmerbloom {
namespace {

// A bounded hand-off between the reader and the workers: `free` holds empty
// batches, `full` holds parsed ones. Closing wakes everybody up.
class BatchQueue {
 public:
  explicit BatchQueue(size_t slots) {
    for (size_t i = 0; i < slots; ++i) free_.push_back(std::make_unique<RecordBatch>());
  }

  std::unique_ptr<RecordBatch> take_free() { return pop(free_); }
  std::unique_ptr<RecordBatch> take_full() { return pop(full_); }
  void give_free(std::unique_ptr<RecordBatch> b) { push(free_, std::move(b)); }
  void give_full(std::unique_ptr<RecordBatch> b) { push(full_, std::move(b)); }

  // No more full batches will come; workers drain what is queued, then stop.
  void finish() {
    std::lock_guard lock(mu_);
    finished_ = true;
    cv_.notify_all();
  }
  // Stop now: every waiting call returns nullptr.
  void abort() {
    std::lock_guard lock(mu_);
    aborted_ = true;
    cv_.notify_all();
  }

 private:
  using List = std::deque<std::unique_ptr<RecordBatch>>;

  std::unique_ptr<RecordBatch> pop(List& list) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return aborted_ || !list.empty() || (&list == &full_ && finished_); });
    if (aborted_ || list.empty()) return nullptr;
    auto b = std::move(list.front());
    list.pop_front();
    return b;
  }
  void push(List& list, std::unique_ptr<RecordBatch> b) {
    std::lock_guard lock(mu_);
    list.push_back(std::move(b));
    cv_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  List free_, full_;
  bool finished_ = false, aborted_ = false;
};

// Keeps the first exception thrown by any thread.
class FirstError {
 public:
  void set(std::exception_ptr e) {
    std::lock_guard lock(mu_);
    if (!error_) error_ = std::move(e);
  }
  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mu_;
  std::exception_ptr error_;
};

}  // namespace

void run_pipeline(const std::vector<std::string>& inputs, const PipelineOptions& options,
                  const BatchWork& work, PipelineProgress* progress) {
  const unsigned workers = options.workers == 0 ? 1 : options.workers;
  BatchQueue queue(2 * workers + 2);
  FirstError error;

  std::vector<std::thread> pool;
  pool.reserve(workers);
  for (unsigned id = 0; id < workers; ++id) {
    pool.emplace_back([&, id] {
      try {
        while (auto batch = queue.take_full()) {
          work(*batch, id);
          queue.give_free(std::move(batch));
        }
      } catch (...) {
        error.set(std::current_exception());
        queue.abort();
      }
    });
  }

  try {
    uint64_t serial = 0, done_bytes = 0;
    bool stopped = false;
    for (size_t f = 0; f < inputs.size() && !stopped; ++f) {
      SequenceReader reader(inputs[f]);
      if (progress) {
        progress->file_index = static_cast<unsigned>(f);
        progress->raw_total += reader.raw_size();
      }
      for (;;) {
        auto batch = queue.take_free();
        if (!batch) {  // a worker failed
          stopped = true;
          break;
        }
        if (!reader.next_batch(*batch, options.batch_bases)) {
          queue.give_free(std::move(batch));
          break;
        }
        batch->serial = serial++;
        batch->file_index = static_cast<uint32_t>(f);
        if (progress) {
          progress->raw_bytes = done_bytes + reader.raw_bytes_read();
          progress->records += batch->size();
          progress->bases += batch->bases;
        }
        queue.give_full(std::move(batch));
      }
      done_bytes += reader.raw_bytes_read();
    }
  } catch (...) {
    error.set(std::current_exception());
    queue.abort();
  }
  queue.finish();
  for (auto& t : pool) t.join();
  error.rethrow();
}

}  // namespace kmerbloom
