#include "cli/progress.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <cmath>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/format.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom {
namespace {
std::atomic<bool> g_line_open{false};  // see progress_line_open()
static_assert(std::atomic<bool>::is_always_lock_free);

// Fields joined by two spaces, the highest rank dropped first until the line
// fits `width`.
std::string fit(std::vector<std::pair<std::string, int>> fields, size_t width) {
  auto join = [&] {
    std::string line;
    for (const auto& [text, rank] : fields) {
      if (!line.empty()) line += "  ";
      line += text;
    }
    return line;
  };
  std::string line = join();
  while (line.size() > width && fields.size() > 1) {
    auto drop = std::max_element(fields.begin(), fields.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    fields.erase(drop);
    line = join();
  }
  if (line.size() > width) line.resize(width);
  return line;
}

// "61.2 M/145 M k-mers counted (42%)".
std::string units_field(const ProgressSnapshot& s) {
  std::string t = format_quantity(static_cast<double>(s.units_done));
  if (s.units_total > 0) {
    char pct[16];
    const double share = std::min(1.0, static_cast<double>(s.units_done) / static_cast<double>(s.units_total));
    std::snprintf(pct, sizeof pct, " (%.0f%%)", std::floor(100 * share));
    return t + "/" + format_quantity(static_cast<double>(s.units_total)) + " " + s.unit + pct;
  }
  return t + " " + s.unit;
}

}  // namespace

bool progress_line_open() noexcept { return g_line_open.load(std::memory_order_relaxed); }

std::string format_progress(const ProgressSnapshot& s, size_t width) {
  // Fields in display order with a rank: the highest rank goes first when
  // the line is too long.
  std::vector<std::pair<std::string, int>> fields;
  fields.emplace_back(s.pass, 0);
  const double secs = s.elapsed > 0 ? s.elapsed : 0;
  if (!s.unit.empty()) {
    fields.emplace_back(units_field(s), 1);
    if (secs >= 0.05) fields.emplace_back(format_quantity(static_cast<double>(s.units_done) / secs) + "/s", 5);
    fields.emplace_back(format_duration(secs) + " elapsed", 4);
    if (s.units_done > 0 && s.units_done < s.units_total && secs >= 1.0)
      fields.emplace_back(format_duration(secs * static_cast<double>(s.units_total - s.units_done) /
                                          static_cast<double>(s.units_done)) + " left",
                          2);
    return fit(fields, width);
  }
  auto as_bytes = [](uint64_t v) { return format_quantity(static_cast<double>(v)) + (v < 1000 ? " B" : "B"); };
  std::string bytes = as_bytes(s.bytes_done);
  if (s.bytes_total > 0) {
    const double share = std::min(1.0, static_cast<double>(s.bytes_done) / static_cast<double>(s.bytes_total));
    char pct[16];
    std::snprintf(pct, sizeof pct, " (%.0f%%)", std::floor(100 * share));
    bytes += '/';
    bytes += as_bytes(s.bytes_total);
    bytes += pct;
  } else {
    bytes += " read";
  }
  fields.emplace_back(bytes, 1);
  if (secs >= 0.05) {
    fields.emplace_back(format_quantity(static_cast<double>(s.reads) / secs) + " reads/s", 5);
    fields.emplace_back(format_quantity(static_cast<double>(s.kmers) / secs) + " k-mers/s", 6);
  }
  fields.emplace_back(format_duration(secs) + " elapsed", 4);
  if (s.bytes_total > 0 && s.bytes_done >= s.bytes_total) {
    fields.emplace_back("finishing", 2);  // all read; the workers drain the last batches
  } else if (s.bytes_total > 0 && s.bytes_done > 0 && secs >= 1.0) {
    const double left = secs * static_cast<double>(s.bytes_total - s.bytes_done) / static_cast<double>(s.bytes_done);
    fields.emplace_back(format_duration(left) + " left", 2);
  }
  return fit(fields, width);
}

bool progress_wanted(FILE* out, int force) {
  if (force != 0) return force > 0 && out != nullptr;
  return out != nullptr && ::isatty(::fileno(out)) == 1;
}

ProgressMeter::ProgressMeter(FILE* out, bool enabled, ProgressOptions options)
    : out_(out), enabled_(enabled && out != nullptr), options_(options) {
  if (!enabled_) return;
  terminal_ = options_.style == ProgressStyle::terminal ||
              (options_.style == ProgressStyle::automatic && ::isatty(::fileno(out_)) == 1);
}

ProgressMeter::~ProgressMeter() { stop(); }

void ProgressMeter::start_pass(std::string name, const PipelineProgress* progress, uint64_t total_bytes) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  pass_ = std::move(name);
  progress_ = progress;
  total_override_ = total_bytes;
  reads0_ = progress ? progress->records.load() : 0;
  bases0_ = progress ? progress->bases.load() : 0;
  raw_total0_ = progress ? progress->raw_total.load() : 0;
  pass_start_ = std::chrono::steady_clock::now();
  if (!thread_.joinable()) thread_ = detail::start_thread([this] { run(); }, 0, 1);
}

void ProgressMeter::print_above(const std::function<void()>& emit) {
  if (!enabled_ || !terminal_) {
    emit();
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  const bool was_shown = shown_;
  clear_locked();
  emit();
  std::fflush(out_);
  if (was_shown && !stopping_) draw_locked();
}

void ProgressMeter::stop() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
}

void ProgressMeter::run() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto period = terminal_ ? options_.interval : options_.line_interval;
  while (!stopping_) {
    if (cv_.wait_for(lock, period, [this] { return stopping_; })) break;
    draw_locked();
  }
}

ProgressSnapshot ProgressMeter::snapshot_locked() const {
  ProgressSnapshot s;
  s.pass = pass_;
  s.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - pass_start_).count();
  if (!progress_) return s;
  if (const char* unit = progress_->unit.load(); unit != nullptr) {
    s.unit = unit;
    s.units_done = progress_->units_done.load(std::memory_order_relaxed);
    s.units_total = progress_->units_total.load(std::memory_order_relaxed);
    return s;
  }
  const uint64_t reads = progress_->records.load(), bases = progress_->bases.load();
  s.reads = reads >= reads0_ ? reads - reads0_ : reads;
  s.bases = bases >= bases0_ ? bases - bases0_ : bases;
  // raw_bytes restarts with each pass but keeps the last pass's value until
  // the first batch of the new one is read.
  s.bytes_done = s.reads > 0 ? progress_->raw_bytes.load() : 0;
  const uint64_t raw_total = progress_->raw_total.load();
  s.bytes_total = total_override_ ? total_override_ : raw_total >= raw_total0_ ? raw_total - raw_total0_ : raw_total;
  const uint64_t overlap = s.reads * (options_.k > 0 ? options_.k - 1 : 0);
  s.kmers = s.bases > overlap ? s.bases - overlap : 0;
  return s;
}

void ProgressMeter::draw_locked() {
  if (!progress_ && pass_.empty()) return;
  const ProgressSnapshot s = snapshot_locked();
  if (terminal_) {
    size_t width = options_.width;
    if (width == 0) {
      winsize ws{};
      width = ::ioctl(::fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    }
    // One column short of the edge: a full line would wrap on some terminals.
    std::string line(1, '\r');
    line += format_progress(s, width > 1 ? width - 1 : 1);
    line += "\x1b[K";
    std::fwrite(line.data(), 1, line.size(), out_);
    shown_ = true;
    g_line_open.store(true, std::memory_order_relaxed);
  } else {
    const std::string line = format_progress(s, options_.width ? options_.width : 200) + "\n";
    std::fwrite(line.data(), 1, line.size(), out_);
  }
  std::fflush(out_);
}

void ProgressMeter::clear_locked() {
  if (!shown_) return;
  std::fputs("\r\x1b[K", out_);
  std::fflush(out_);
  shown_ = false;
  g_line_open.store(false, std::memory_order_relaxed);
}

namespace {

// The options of a run's meter: KMERBLOOM_PROGRESS_MS sets the redraw period
// of a terminal (default 500 ms: slow links want more, the tests less).
ProgressOptions run_options(unsigned k) {
  ProgressOptions o;
  o.k = k;
  if (const char* ms = std::getenv("KMERBLOOM_PROGRESS_MS"); ms && std::atoi(ms) > 0)
    o.interval = std::chrono::milliseconds(std::atoi(ms));
  return o;
}

}  // namespace

RunProgress::RunProgress(int force, unsigned k, uint64_t input_total)
    : meter_(stderr,
             progress_wanted(stderr, force) && (force > 0 || spdlog::default_logger()->level() <= spdlog::level::info),
             run_options(k)),
      input_total_(input_total) {}

void RunProgress::pass(const std::string& name) {
  names_.push_back(name);
  meter_.print_above([&] { spdlog::debug("{}", name); });
  meter_.start_pass(name, &counters, input_total_);
}

void RunProgress::units(const char* unit, uint64_t total) {
  counters.units_done = 0;
  counters.units_total = total;
  counters.unit = unit;
}

void RunProgress::log(const std::string& text) {
  meter_.print_above([&] { spdlog::debug("{}", text); });
}

void RunProgress::info(const std::string& text) {
  meter_.print_above([&] { spdlog::info("{}", text); });
}

}  // namespace kmerbloom
