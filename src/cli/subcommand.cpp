#include "subcommand.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <stdexcept>
#include <thread>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "count/spool.hpp"
#include "formats/count_writer.hpp"
#include "formats/output.hpp"

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

RunInfo run_info(const char* command, const std::vector<std::string>& inputs, const RunClock& clock) {
  return {.command = command,
          .command_line = saved_command_line(),
          .inputs = inputs,
          .wall_seconds = clock.wall_seconds(),
          .cpu_seconds = RunClock::cpu_seconds(),
          .peak_memory_bytes = RunClock::peak_rss_bytes()};
}

uint64_t parse_memory_size(const std::string& text, const std::string& option) {
  const std::string want = option + " wants a memory size such as 500M or 4G";
  if (text.find_first_not_of(" \t") == std::string::npos)
    throw std::invalid_argument(want + ", got an empty value (an unset variable?)");
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() == 2 && unit.back() == 'I') unit.pop_back();
  const int shift = unit.empty() || unit == "B" ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : unit == "T" ? 40 : -1;
  if (used == 0 || shift < 0 || !(v > 0) || !std::isfinite(v) || text[0] == '-' || text[0] == '+')
    throw std::invalid_argument(want + ", got '" + text + "'");
  const double bytes = std::ldexp(v, shift);
  if (bytes < 1 || bytes > 1e18) throw std::invalid_argument(want + ", got '" + text + "' (out of range)");
  return static_cast<uint64_t>(bytes);
}

std::vector<NamedPath> named_inputs(const std::vector<std::string>& paths) {
  std::vector<NamedPath> out;
  for (const auto& p : paths) out.push_back({"input", p});
  return out;
}

void check_outputs_first(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs,
                         const std::optional<std::string>& tmp_dir) {
  const NamedPath* stdin_reader = nullptr;
  for (const NamedPath& in : inputs) {
    if (in.path != "-") continue;
    if (stdin_reader)
      throw std::invalid_argument((stdin_reader->option == in.option ? in.option + " - is given twice"
                                                                     : stdin_reader->option + " and " + in.option +
                                                                           " both read standard input (-)") +
                                  ": it can be read once, the second would find it empty; give a file");
    stdin_reader = &in;
  }
  check_output_paths(inputs, outputs);
  for (const NamedPath& out : outputs) {
    if (out.path.empty()) continue;  // not asked for
    try {
      check_output_file(out.path);
    } catch (const OutputError& e) {
      throw OutputError(out.option + " " + e.what());
    }
  }
  if (tmp_dir) {
    try {
      Spool::check_dir(*tmp_dir);
    } catch (const SpoolError& e) {
      throw OutputError((tmp_dir->empty() ? "" : "--tmp-dir ") + std::string(e.what()));
    }
  }
}

int ProgressFlags::force(const std::string& output) const {
  return output == "-" && ::isatty(STDOUT_FILENO) ? -1 : force();
}

void add_progress_flags(CLI::App& sub, ProgressFlags& flags) {
  CLI::Option* on =
      sub.add_flag("--progress", flags.on, "Show the progress line on stderr even when it is not a terminal");
  sub.add_flag("--no-progress", flags.off, "Never show the progress line")->excludes(on);
}

void refuse_terminal_stdout(const CLI::Option& output, const std::string& path, const char* what) {
  if (output.count() > 0 || path != "-" || !::isatty(STDOUT_FILENO)) return;
  throw std::invalid_argument(std::string("no -o given, and standard output is a terminal: ") + what +
                              " would scroll past; give -o FILE (or -o - to print them there)");
}

std::string count_output_format(const CLI::Option& format_option, const std::string& format, const std::string& path) {
  return format_option.count() > 0 ? format : count_format_named_by(path);
}

CLI::Option* add_count_format_option(CLI::App& sub, std::string& format) {
  return sub
      .add_option("--format", format,
                  count_format_names() + ": KMER<TAB>COUNT, >COUNT then KMER, or the k-mer file format of KMC; default: the one "
                         "-o's name says (.kff; .fa, .fasta, .fna; with .gz too), else tsv")
      ->check(CLI::IsMember(std::vector<std::string>(kCountFormats.begin(), kCountFormats.end())));
}

void write_json(const std::string& path, const nlohmann::json& j) {
  OutputFile out(path);
  out.write(j.dump(2));
  out.put('\n');
  out.commit();
}

void ReadSetArgs::settle(ReadSetOptions& o) const {
  if (max_memory) o.max_memory = parse_memory_size(*max_memory, "-M/--max-memory");
  if (no_canonical_option) o.canonical = !no_canonical;
}

std::optional<std::string> given_tmp_dir(const ReadSetOptions& o) {
  if (o.tmp_dir.empty()) return std::nullopt;
  return o.tmp_dir;
}

void add_read_set_options(CLI::App& sub, ReadSetOptions& o, ReadSetArgs& args, const ReadSetHelp& help) {
  o.threads = default_threads();
  CLI::Option* inputs = sub.add_option("inputs", o.inputs, help.inputs);
  if (help.inputs_required) inputs->required();
  args.k_option = sub.add_option("-k,--kmer-size", o.k, help.k);
  if (help.k_shows_default) args.k_option->capture_default_str();
  sub.add_option("-t,--threads", o.threads, "Worker threads (default: all cores)")->capture_default_str();
  if (help.no_canonical) args.no_canonical_option = sub.add_flag("--no-canonical", args.no_canonical, help.no_canonical);
  if (help.max_memory) {
    CLI::Option* m = sub.add_option("-M,--max-memory", args.max_memory, help.max_memory);
    if (help.max_memory_default) m->default_str(help.max_memory_default);
  }
  if (help.tmp_dir) sub.add_option("--tmp-dir", o.tmp_dir, "Directory for temporary files (default: $TMPDIR, else /tmp)");
}

}  // namespace kmerbloom::cli
