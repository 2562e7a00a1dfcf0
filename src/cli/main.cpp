// kmerbloom: parse the command line, run one subcommand, turn errors into one
// line on stderr and an exit code. Nothing else lives here.
#include <cctype>
#include <optional>
#include <csignal>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "subcommand.hpp"
#include "hints.hpp"
#include "common/error.hpp"
#include "common/machine.hpp"
#include "formats/output.hpp"
#include "cli/progress.hpp"

namespace {

// Every signal that ends the process by default and that a user or a job
// scheduler sends: hang-up, Ctrl-C, Ctrl-\, kill, a CPU-time limit (SLURM,
// ulimit -t), a file-size limit, the user signals schedulers send ahead of a
// time limit, an alarm.
constexpr std::pair<int, const char*> kFatalSignals[] = {
    {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
    {SIGXFSZ, "SIGXFSZ"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGALRM, "SIGALRM"},
};

void say(const char* text) {
  if (::write(STDERR_FILENO, text, std::strlen(text)) < 0) {
  }
}

// Removes temporary outputs (those finished and waiting for the run's other
// outputs too: formats/output.hpp's OutputGroup), ends a progress line, says what happened, then
// dies of the same signal (default action) so the exit status is 128+N.
// Only async-signal-safe calls.
extern "C" void on_signal(int sig) {
  kmerbloom::remove_temporary_outputs();
  if (kmerbloom::progress_line_open()) say("\n");
  for (const auto& [number, name] : kFatalSignals)
    if (number == sig) {
      say("kmerbloom: interrupted by ");
      say(name);
      say(kmerbloom::outputs_landed() ? " after its outputs were in place\n" : "; unfinished outputs removed\n");
    }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);  // blocked until the handler returns, then fatal
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigfillset(&sa.sa_mask);  // one handler at a time
  for (const auto& [number, name] : kFatalSignals) {
    struct sigaction old {};
    // A hang-up ignored by whoever started us (nohup) stays ignored. (SIGINT
    // is caught even when ignored: shells ignore it in background jobs.)
    if (number == SIGHUP && sigaction(number, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(number, &sa, nullptr);
  }
}

void fail(const std::string& what) {
  const std::string line = "kmerbloom: error: " + what + "\n";
  if (::write(STDERR_FILENO, line.data(), line.size()) < 0) {
  }
}

// What the parser's own message would hide: a first word that is no
// subcommand, or an option the subcommand does not take (the parser reports
// a missing input before it, and blames the wrong word for a stray -t).
std::optional<std::string> first_unknown_word(const CLI::App& app, const std::vector<std::string>& args,
                                              const std::string& sub_name, const std::vector<std::string>& names) {
  if (sub_name.empty()) {
    if (!args.empty() && !args[0].starts_with("-")) return kmerbloom::cli::unknown_subcommand(args[0], names);
    return std::nullopt;
  }
  const CLI::App* sub = nullptr;
  for (const CLI::App* s : app.get_subcommands({}))
    if (s->get_name() == sub_name) sub = s;
  if (!sub) return std::nullopt;
  std::vector<std::string> options;
  for (const CLI::Option* o : sub->get_options()) {
    for (const auto& l : o->get_lnames()) options.push_back("--" + l);
    for (const auto& n : o->get_snames()) options.push_back("-" + n);
  }
  bool seen_sub = false;
  for (const std::string& a : args) {
    if (!seen_sub) {
      seen_sub = a == sub_name;
      continue;
    }
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || std::isdigit(static_cast<unsigned char>(a[1]))) continue;
    const std::string name = a.starts_with("--") ? a.substr(0, a.find('=')) : a.substr(0, 2);
    if (!sub->get_option_no_throw(name) && !app.get_option_no_throw(name))  // -fq: named whole, not as -f
      return kmerbloom::cli::unknown_option(a.substr(0, a.find('=')), sub_name, options);
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kmerbloom;
  std::signal(SIGPIPE, SIG_IGN);
  install_signal_handlers();
  cli::set_command_line(argc, argv);

  CLI::App app{"kmerbloom: solid k-mers from sequencing reads, with a Bloom filter in front of an exact counter"};
  app.set_version_flag("--version", std::string("kmerbloom ") + KMERBLOOM_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // -q / -v may follow the subcommand
  int verbosity = 0;
  app.add_flag_callback("-q,--quiet", [&] { verbosity = -1; }, "Print errors only");
  app.add_flag_callback("-v,--verbose", [&] { verbosity = 1; }, "Print details (sizing decisions, passes)");

  cli::Action action;
  auto bind = [&](const char* name, const char* help, cli::Action (*setup)(CLI::App&)) {
    CLI::App* sub = app.add_subcommand(name, help);
    cli::Action a = setup(*sub);
    // Also here, so that `kmerbloom SUB --help` lists them.
    sub->add_flag_callback("-q,--quiet", [&] { verbosity = -1; }, "Print errors only (no summary, no progress)");
    sub->add_flag_callback("-v,--verbose", [&] { verbosity = 1; },
                           "Print details on stderr (sizing decisions, Bloom layers, passes)");
    sub->callback([&action, a] { action = a; });
  };
  bind("count", "Count canonical k-mers and report the solid ones", cli::setup_count);
  bind("estimate", "Estimate distinct k-mers (F0) and the low histogram rows (f1, f2, ...) in one sampled pass",
       cli::setup_estimate);
  bind("filter", "Keep the reads worth assembling: digital normalization, weak k-mer trimming", cli::setup_filter);
  bind("build", "Build a Bloom filter file (.kbf) of the k-mers of reads", cli::setup_build);
  bind("query", "Fraction of each read's k-mers found in a filter file (contamination screen)", cli::setup_query);
  bind("merge", "Union (or intersection) of filter files of the same shape", cli::setup_merge);
  bind("info", "Parameters, layers, fill and estimated false-positive rate of a filter file", cli::setup_info);
  bind("merge-counts", "Merge sorted KMER<TAB>COUNT files (or histograms), summing equal k-mers",
       cli::setup_merge_counts);
  bind("bin", "Scatter step for a cluster: one chunk of reads into minimizer bins that count takes as input",
       cli::setup_bin);
  bind("report", "HTML report (k-mer spectrum, Bloom filter, memory, time) from count --stats", cli::setup_report);
  bind("sets", "Union, intersection, difference or subtraction of sorted k-mer count files (streaming)",
       cli::setup_sets);
  bind("qv", "Assembly consensus quality (QV) and k-mer completeness against the reads' k-mer counts, as Merqury",
       cli::setup_qv);
  bind("hetmers", "Het-mer pairs of a count file, binned for smudgeplot (ploidy)", cli::setup_hetmers);
  bind("index", "Index a sorted count file for random look-ups (COUNTS.kbi)", cli::setup_index);
  bind("lookup", "Counts of given k-mers, or of each sequence's k-mers, from an indexed count file",
       cli::setup_lookup);
  bind("profile", "Genome length, heterozygosity, repeats and error rate fitted to a k-mer histogram (GenomeScope's model)",
       cli::setup_profile);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::vector<std::string> args(argv + 1, argv + argc);
    std::string sub_name;
    std::vector<std::string> names;
    for (const CLI::App* s : app.get_subcommands({})) {
      names.push_back(s->get_name());
      if (sub_name.empty() && std::find(args.begin(), args.end(), s->get_name()) != args.end()) sub_name = s->get_name();
    }
    fail(first_unknown_word(app, args, sub_name, names).value_or(cli::explain_parse_error(e.what(), sub_name, names)));
    for (const std::string& hint : cli::peer_hints(args, sub_name)) std::fprintf(stderr, "%s\n", hint.c_str());
    std::fprintf(stderr, "Run kmerbloom %s--help for usage.\n", sub_name.empty() ? "" : (sub_name + " ").c_str());
    return cli::kExitUsage;
  }

  cli::setup_logging(verbosity);
  try {
    read_cpu_features(std::getenv("KMERBLOOM_CPU"));  // a bad value is a usage error, named
    // Every output of the run lands when the run has succeeded, together;
    // an error or a signal before leaves none of them (formats/output.hpp).
    OutputGroup outputs;
    const int status = action();
    if (status == cli::kExitOk) outputs.commit();
    return status;
  } catch (const InputError& e) {
    fail(e.what());
    return cli::kExitInput;
  } catch (const OutputError& e) {
    fail(e.what());
    return cli::kExitOutput;
  } catch (const BudgetError& e) {
    fail(e.what());
    return cli::kExitBudget;
  } catch (const std::invalid_argument& e) {
    fail(e.what());
    return cli::kExitUsage;
  } catch (const std::bad_alloc&) {
    fail("out of memory");
    return cli::kExitError;
  } catch (const std::exception& e) {
    fail(e.what());
    return cli::kExitError;
  }
}
