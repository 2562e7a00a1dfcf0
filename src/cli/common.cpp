#include "common.hpp"

#include <sys/resource.h>

#include <thread>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "kmerbloom/io/output.hpp"

namespace kmerbloom::cli {

RunClock::RunClock() : start_(std::chrono::steady_clock::now()) {}

double RunClock::wall_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double RunClock::cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

uint64_t RunClock::peak_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (i) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

namespace {
std::string g_command_line;  // set once by main before anything runs
}

void set_command_line(int argc, char** argv) { g_command_line = command_line(argc, argv); }
const std::string& saved_command_line() { return g_command_line; }

void setup_logging(int verbosity) {
  auto logger = spdlog::stderr_logger_mt("kmerbloom");
  logger->set_pattern("[kmerbloom] %v");
  logger->set_level(verbosity < 0 ? spdlog::level::err : verbosity > 0 ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

unsigned default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

nlohmann::json stats_header(const char* command, const std::vector<std::string>& inputs) {
  nlohmann::json j;
  j["tool"] = "kmerbloom";
  j["version"] = KMERBLOOM_VERSION;
  j["command"] = command;
  j["command_line"] = saved_command_line();
  j["inputs"] = inputs;
  return j;
}

void add_run_costs(nlohmann::json& j, const RunClock& clock) {
  j["wall_seconds"] = clock.wall_seconds();
  j["cpu_seconds"] = RunClock::cpu_seconds();
  j["peak_memory_bytes"] = RunClock::peak_rss_bytes();
}

std::vector<NamedPath> named_inputs(const std::vector<std::string>& paths) {
  std::vector<NamedPath> out;
  for (const auto& p : paths) out.push_back({"input", p});
  return out;
}

void write_json(const std::string& path, const nlohmann::json& j) {
  OutputFile out(path);
  out.write(j.dump(2));
  out.put('\n');
  out.commit();
}

}  // namespace kmerbloom::cli
