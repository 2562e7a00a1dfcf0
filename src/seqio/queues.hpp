// Hand-offs between the threads of a pipeline (pipeline.cpp, the filter
// stages of normalize/filter_stages.cpp). Private to the library. Items move as
// std::unique_ptr<T>; every member may be called from any thread.
#pragma once

#include <pthread.h>

#include <csignal>
#include <atomic>
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
#include <vector>

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

// The one ordered hand-off. Items (T has a uint64_t `serial`) arrive from
// several threads in any order and leave in serial order 0, 1, 2, ... Two
// ways out, never mixed on one object:
// - pop(serial): a consumer thread of its own takes them in turn (the filter's
//   decider);
// - deliver(item, emit): the thread that completes the next items in line
//   runs emit on each of them, in order, under the lock (query's writer).
// With a window W, push and deliver wait while the item is W or more ahead of
// the next one to leave, so memory stays bounded when the way out is slow;
// this cannot deadlock as long as the producers take their work in serial
// order (a FIFO of batches), since the item next in line never waits.
template <class T>
class SerialOrder {
 public:
  explicit SerialOrder(uint64_t window = std::numeric_limits<uint64_t>::max()) : window_(window) {}

  // False, with the item dropped, when aborted.
  bool push(std::unique_ptr<T> item) {
    std::unique_lock lock(mu_);
    return admit(lock, std::move(item));
  }
  // Pushes item, then runs emit(const T&) on every item now next in line. An
  // exception from emit aborts the order and is rethrown.
  template <class Emit>
  void deliver(std::unique_ptr<T> item, Emit&& emit) {
    std::unique_lock lock(mu_);
    if (!admit(lock, std::move(item))) return;
    try {
      for (auto it = pending_.find(next_); it != pending_.end(); it = pending_.find(next_)) {
        emit(static_cast<const T&>(*it->second));
        pending_.erase(it);
        ++next_;
      }
    } catch (...) {
      aborted_ = true;
      cv_.notify_all();
      throw;
    }
    cv_.notify_all();
  }
  // `total` items were produced in all: pop(total) and beyond return false.
  void finish(uint64_t total) {
    std::lock_guard lock(mu_);
    total_ = total;
    cv_.notify_all();
  }
  // Stop now: every waiting and later push, deliver and pop returns.
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
    next_ = serial + 1;
    cv_.notify_all();
    return true;
  }

 private:
  bool admit(std::unique_lock<std::mutex>& lock, std::unique_ptr<T> item) {
    const uint64_t s = item->serial;
    cv_.wait(lock, [&] { return aborted_ || s - next_ < window_ || s < next_; });
    if (aborted_) return false;
    pending_.emplace(s, std::move(item));
    cv_.notify_all();
    return true;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, std::unique_ptr<T>> pending_;
  uint64_t next_ = 0, window_;
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
// `ulimit -v`), throws std::runtime_error naming the thread and what to do;
// the caller then stops and joins the threads already running, so nothing
// terminates the process. The thread holds every signal
// but the faults a thread raises itself, so that a user's or a scheduler's
// signal reaches the thread that started the run (the command line's
// handler, and formats/output.hpp's OutputGroup::commit, which holds them
// while it renames).
template <class F>
std::thread start_thread(F&& fn, unsigned index, unsigned count) {
  sigset_t held, old;
  sigfillset(&held);
  for (const int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&held, fault);
  pthread_sigmask(SIG_BLOCK, &held, &old);  // the new thread inherits the mask
  struct Restore {  // the caller's mask, however the start ends (std::bad_alloc too)
    const sigset_t& old;
    ~Restore() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }
  } restore{old};
  try {
    return std::thread(std::forward<F>(fn));
  } catch (const std::system_error& e) {
    // No -t is named: which count would start depends on what the run
    // holds by then (under ulimit -v, -t 1000 started 118 threads and the
    // -t 117 it was advised started 50).
    throw std::runtime_error("cannot start thread " + std::to_string(index + 1) + " of " + std::to_string(count) + " (" +
                             e.code().message() +
                             "): the system refused a thread or its stack (a limit such as ulimit -u or ulimit -v); "
                             "give fewer threads or more memory");
  }
}

// Holds the threads a run starts until every one has started or one could
// not: a thread that cannot start is then the run's error, not what the
// threads started before it met meanwhile (under ulimit -v, a started
// worker's allocation failing first made the error "out of memory").
class StartGate {
 public:
  void wait() const { open_.wait(false); }
  void open() {
    open_ = true;
    open_.notify_all();
  }

 private:
  std::atomic<bool> open_{false};
};

// Runs work(id) for every id below n: id 0 on the calling thread, the others
// on threads started by start_thread, once all have started (StartGate). When
// one throws, or a thread cannot start, stop() is called (once or more) so
// that the others end early; every thread is joined, then the first
// exception is rethrown.
template <class Work, class Stop>
void run_on_threads(unsigned n, Work&& work, Stop&& stop) {
  FirstError error;
  StartGate gate;
  auto guarded = [&](unsigned id) {
    gate.wait();
    try {
      work(id);
    } catch (...) {
      error.set(std::current_exception());
      stop();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(n > 0 ? n - 1 : 0);
  try {
    for (unsigned id = 1; id < n; ++id) threads.push_back(start_thread([&guarded, id] { guarded(id); }, id, n));
  } catch (...) {
    error.set(std::current_exception());
    stop();
  }
  gate.open();
  if (threads.size() + 1 == std::max(n, 1u)) guarded(0);
  for (std::thread& t : threads) t.join();
  error.rethrow();
}

}  // namespace kmerbloom::detail
