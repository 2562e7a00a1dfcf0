// Hand-offs between the threads of a pipeline (pipeline.cpp, the filter
// stages of normalize/filter_stages.cpp). Private to the library. Items move as
// std::unique_ptr<T>; every member may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

namespace kmerbloom::detail {

// A FIFO between two stages. pop() waits; it returns false once the channel
// is closed and drained, or at once when aborted.
template <class T>
class HandOff {
 public:
  void push(std::unique_ptr<T> item) {
    std::lock_guard lock(mu_);
    q_.push_back(std::move(item));
    cv_.notify_one();
  }
  bool pop(std::unique_ptr<T>& out) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return aborted_ || closed_ || !q_.empty(); });
    if (aborted_ || q_.empty()) return false;
    out = std::move(q_.front());
    q_.pop_front();
    return true;
  }
  // No more pushes: pop() drains what is queued, then returns false.
  void close() { set(closed_); }
  // Stop now: every waiting and later pop() returns false.
  void abort() { set(aborted_); }

 private:
  void set(bool& flag) {
    std::lock_guard lock(mu_);
    flag = true;
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<T>> q_;
  bool closed_ = false, aborted_ = false;
};

// Items (T has a uint64_t `serial`) arrive in any order and leave in serial
// order 0, 1, 2, ...: the re-ordering point in front of a stage that must see
// the input in order.
template <class T>
class SerialOrder {
 public:
  void push(std::unique_ptr<T> item) {
    std::lock_guard lock(mu_);
    const uint64_t s = item->serial;
    pending_.emplace(s, std::move(item));
    cv_.notify_all();
  }
  // `total` items were produced in all: pop(total) and beyond return false.
  void finish(uint64_t total) {
    std::lock_guard lock(mu_);
    total_ = total;
    cv_.notify_all();
  }
  void abort() {
    std::lock_guard lock(mu_);
    aborted_ = true;
    cv_.notify_all();
  }
  // Waits for item `serial`; false when there is none (end, or aborted).
  bool pop(uint64_t serial, std::unique_ptr<T>& out) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return aborted_ || serial >= total_ || pending_.count(serial); });
    const auto it = pending_.find(serial);
    if (aborted_ || it == pending_.end()) return false;
    out = std::move(it->second);
    pending_.erase(it);
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, std::unique_ptr<T>> pending_;
  uint64_t total_ = std::numeric_limits<uint64_t>::max();
  bool aborted_ = false;
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

// Starts thread `index` (0-based) of `count` running fn. When the system
// refuses (a thread limit, no memory for its stack: `-t 1000` under
// `ulimit -v`), throws std::runtime_error saying how many threads could start
// and what to do; the caller then stops and joins the threads already
// running, so nothing terminates the process.
template <class F>
std::thread start_thread(F&& fn, unsigned index, unsigned count) {
  try {
    return std::thread(std::forward<F>(fn));
  } catch (const std::system_error& e) {
    throw std::runtime_error("cannot start thread " + std::to_string(index + 1) + " of " + std::to_string(count) +
                             " (" + e.code().message() + "): give fewer threads (-t " +
                             std::to_string(index > 1 ? index - 1 : 1) + " or less) or more memory");
  }
}

}  // namespace kmerbloom::detail
