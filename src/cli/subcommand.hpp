// Helpers every subcommand shares: run accounting, logging set-up, exit codes, the options
// several subcommands take.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "seqio/paths.hpp"
#include "seqio/pipeline.hpp"
#include "report/run_stats.hpp"

namespace kmerbloom::cli {

// Exit codes, documented in README.md ("Errors and exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,      // anything not listed below
  kExitUsage = 2,      // bad command line
  kExitInput = 3,      // unreadable or malformed input
  kExitOutput = 4,     // output could not be written
  kExitBudget = 5,     // the memory budget (-M) cannot be met
};

// Wall clock, CPU time and peak memory of the process since construction.
class RunClock {
 public:
  RunClock();
  double wall_seconds() const;
  static double cpu_seconds();
  static uint64_t peak_rss_bytes();

 private:
  std::chrono::steady_clock::time_point start_;
};

// The exact command line, shell-quoted where needed.
std::string command_line(int argc, char** argv);
void set_command_line(int argc, char** argv);
const std::string& saved_command_line();

// -q / -v / default verbosity for the spdlog logger on stderr.
void setup_logging(int verbosity);

unsigned default_threads();

// What ran and what it cost so far, for the statistics
// (report/run_stats.hpp): the command, the saved command line, the inputs,
// wall and CPU time, peak memory.
RunInfo run_info(const char* command, const std::vector<std::string>& inputs, const RunClock& clock);

// A memory size for -M and the like: a number (decimals allowed) and an
// optional binary unit K, M, G or T (KB, KiB, MB ... alike; case ignored),
// plain bytes without a unit. An empty text (an unset shell variable) or
// anything else throws std::invalid_argument naming `option` (exit 2).
uint64_t parse_memory_size(const std::string& text, const std::string& option);

// Positional inputs for check_outputs_first, each named "input".
std::vector<NamedPath> named_inputs(const std::vector<std::string>& paths);

// Every check of where a command reads and writes, before it reads a byte:
// two inputs on standard input, outputs that would replace an input or each
// other (check_output_paths, exit 2), then each output that cannot be created where it goes
// (check_output_file) and, for commands that spill (tmp_dir set, "" meaning
// $TMPDIR or /tmp), a temporary directory that cannot hold a file (exit 4).
// Messages name the option and the path.
void check_outputs_first(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs,
                         const std::optional<std::string>& tmp_dir = std::nullopt);

// Which read-set options (seqio/pipeline.hpp) a subcommand takes, and the
// help texts that differ between subcommands; nullptr leaves an option out.
struct ReadSetHelp {
  const char* inputs = "FASTA/FASTQ files, plain, gzip or BGZF; - reads stdin";
  bool inputs_required = true;
  const char* k = "k-mer length, 1 to 255";
  bool k_shows_default = true;
  const char* no_canonical = nullptr;  // --no-canonical
  const char* max_memory = nullptr;    // -M/--max-memory
  const char* max_memory_default = nullptr;
  bool tmp_dir = false;                // --tmp-dir
};

// What the read-set options parse into beside ReadSetOptions itself.
struct ReadSetArgs {
  bool no_canonical = false;
  std::optional<std::string> max_memory;  // unset: the options' default; "": an error
  CLI::Option* k_option = nullptr;
  CLI::Option* no_canonical_option = nullptr;
  // After parsing: the memory size and strandedness into o.
  void settle(ReadSetOptions& o) const;
};

// Declares the read-set options on sub, once for every subcommand: the
// inputs (positional), -k, -t (default: all cores) and those `help` names.
void add_read_set_options(CLI::App& sub, ReadSetOptions& o, ReadSetArgs& args, const ReadSetHelp& help);

// For commands that spill only now and then (build, filter): the --tmp-dir
// to check when one was given, none otherwise.
std::optional<std::string> given_tmp_dir(const ReadSetOptions& o);

// Refuses (std::invalid_argument, exit 2) to write `what` to a terminal when
// -o was not given: millions of lines would scroll past. -o - still prints.
void refuse_terminal_stdout(const CLI::Option& output, const std::string& path, const char* what);

// --format for a k-mer count output (count, sets): one of kCountFormats
// (formats/count_writer.hpp). count_output_format then gives --format's value
// when it was given, else the one the output's name says
// (count_format_named_by).
CLI::Option* add_count_format_option(CLI::App& sub, std::string& format);
std::string count_output_format(const CLI::Option& format_option, const std::string& format, const std::string& path);

// --progress and --no-progress, as every subcommand with a progress line
// declares them; force() is RunProgress's force.
struct ProgressFlags {
  bool on = false, off = false;
  int force() const { return on ? 1 : off ? -1 : 0; }
  // The same for a run that writes `output` as it goes: never a line when
  // that is standard output on a terminal, where the data would break into it.
  int force(const std::string& output) const;
};
void add_progress_flags(CLI::App& sub, ProgressFlags& flags);

// Writes json (pretty) to path atomically.
void write_json(const std::string& path, const nlohmann::json& j);

}  // namespace kmerbloom::cli
