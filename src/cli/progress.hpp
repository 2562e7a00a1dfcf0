// A live progress line for long work, drawn from a PipelineProgress.
//
// ProgressMeter owns one thread that, every interval, reads the pipeline's
// atomic counters and redraws a single line on the FILE* it was given:
//
//   pass 1: reading the input into 256 partitions  48.1 MB/162 MB (29%)  1.21 M reads/s  145 M k-mers/s  0:12 elapsed  0:28 left
//   pass 2: counting the partitions  61.2 M/145 M k-mers counted (42%)  20.4 M/s  0:03 elapsed  0:04 left
//
// On a terminal the line is redrawn in place ("\r", erase to end of line) and
// cleared by stop(); when forced on elsewhere (a log file) it prints plain
// lines, less often. Nothing is drawn before the first interval has passed,
// so short runs stay silent. The library never decides to print by itself:
// the caller passes the FILE* and whether the meter is enabled
// (progress_wanted() gives the usual choice: on only if it is a terminal).
//
// Thread safety: start_pass and print_above may be called from any thread
// while the meter's thread draws (one mutex orders them); stop and the
// destructor from one thread. The PipelineProgress is only read.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/format.hpp"
#include "seqio/pipeline.hpp"

namespace kmerbloom {

enum class ProgressStyle {
  automatic,  // terminal if the FILE* is a terminal, else lines
  terminal,   // one line redrawn in place, cleared at the end
  lines,      // a new plain line at each update (logs)
};

struct ProgressOptions {
  unsigned k = 31;                                 // k-mers are estimated as bases - reads * (k - 1)
  std::chrono::milliseconds interval{500};         // redraw period in terminal style
  std::chrono::milliseconds line_interval{10000};  // period of plain lines
  ProgressStyle style = ProgressStyle::automatic;
  unsigned width = 0;  // maximum line width; 0 = the terminal's width (80 if unknown)
};

// One reading of the counters, relative to the start of the pass.
struct ProgressSnapshot {
  std::string pass;
  uint64_t bytes_done = 0;   // input bytes read in this pass (compressed size when compressed)
  uint64_t bytes_total = 0;  // input bytes of the pass, 0 when unknown (pipes): no percentage
  uint64_t reads = 0;
  uint64_t bases = 0;
  uint64_t kmers = 0;  // estimated from bases and reads
  double elapsed = 0;  // seconds since the pass started
  // A pass that reads no input: units_done of units_total `unit` (the
  // line shows these instead of bytes and reads); unit empty otherwise.
  std::string unit;
  uint64_t units_done = 0, units_total = 0;
};

// The text of the progress line (no control characters), at most `width`
// characters: the least important fields are dropped first.
std::string format_progress(const ProgressSnapshot& s, size_t width = 200);

// Whether to show progress on `out`: force > 0 on, force < 0 off, 0 only if
// out is a terminal.
bool progress_wanted(FILE* out, int force);

// True while some meter's terminal line is on screen without its newline;
// safe to call from a signal handler (one lock-free atomic load), which then
// ends the line before writing its own.
bool progress_line_open() noexcept;

class ProgressMeter {
 public:
  // out is not owned and must outlive the meter. A disabled meter does nothing.
  ProgressMeter(FILE* out, bool enabled, ProgressOptions options = {});
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // A new pass begins (the first call starts the thread). progress must stay
  // valid until the next start_pass or stop. Counters are taken relative to
  // their values now, so the same PipelineProgress may serve several passes.
  // total_bytes overrides progress->raw_total (which only counts the files
  // opened so far); 0 = use raw_total.
  void start_pass(std::string name, const PipelineProgress* progress, uint64_t total_bytes = 0);
  // Clears the line, runs emit (which may write a log line to the same
  // stream), then redraws: log messages never mix with the progress line.
  void print_above(const std::function<void()>& emit);
  // Stops the thread and clears the line. Idempotent.
  void stop();

  bool enabled() const { return enabled_; }
  bool terminal() const { return terminal_; }

 private:
  void run();
  void draw_locked();
  void clear_locked();
  ProgressSnapshot snapshot_locked() const;

  FILE* out_;
  bool enabled_;
  bool terminal_ = false;
  ProgressOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool shown_ = false;  // a terminal line is on screen
  std::thread thread_;

  // The current pass, guarded by mu_.
  std::string pass_;
  const PipelineProgress* progress_ = nullptr;
  uint64_t total_override_ = 0;
  uint64_t reads0_ = 0, bases0_ = 0, raw_total0_ = 0;
  std::chrono::steady_clock::time_point pass_start_;
};

// What a subcommand shows while it runs: a meter on stderr when it is a
// terminal (force > 0: always, < 0: never; -q silences it), the counters its
// passes update, and the hooks that start each pass and print log lines
// above the progress line. stop() before writing to a terminal.
// KMERBLOOM_PROGRESS_MS sets the redraw period (default 500 ms).
class RunProgress {
 public:
  RunProgress(int force, unsigned k, uint64_t input_total);
  PipelineProgress counters;
  // Starts the pass on the meter (its name at -v), and keeps its name.
  void pass(const std::string& name);
  // The pass just begun reads no sequences: its progress is units_done of
  // `total` `unit` (a string literal, "bytes read"), which the library sets.
  void units(const char* unit, uint64_t total);
  void log(const std::string& text);   // at -v
  void info(const std::string& text);  // at the default level
  void stop() { meter_.stop(); }
  // The library's hooks (CountHooks, FilterHooks, ReadFilterHooks, QvHooks:
  // progress, log, info, pass) wired to this meter; with_info false leaves
  // info unset, for commands that keep the library's notes to themselves.
  template <class Hooks>
  Hooks hooks(bool with_info = true) {
    Hooks h;
    h.progress = &counters;
    h.log = [this](const std::string& s) { log(s); };
    if (with_info) h.info = [this](const std::string& s) { info(s); };
    h.pass = [this](const std::string& s) { pass(s); };
    return h;
  }
  const std::vector<std::string>& pass_names() const { return names_; }

 private:
  ProgressMeter meter_;
  uint64_t input_total_;
  std::vector<std::string> names_;
};

}  // namespace kmerbloom
