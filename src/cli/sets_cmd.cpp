// kmerbloom sets: union, intersection, difference and counter subtraction of
// sorted k-mer count files, as one streaming merge (profile/set_ops.hpp).
#include <algorithm>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "common/format.hpp"
#include "cli/progress.hpp"
#include "subcommand.hpp"
#include "seqio/paths.hpp"
#include "formats/count_writer.hpp"
#include "formats/histogram_file.hpp"
#include "profile/set_ops.hpp"
#include "profile/set_stats.hpp"
#include "report/report.hpp"

namespace kmerbloom::cli {
namespace {

struct SetsArgs {
  ProgressFlags progress;
  std::string op;
  std::vector<std::string> inputs;
  std::string output = "-";
  CLI::Option* output_option = nullptr;  // to tell whether -o was given
  std::string format = "tsv";
  CLI::Option* format_option = nullptr;  // to tell whether --format was given
  std::string counts = "auto";
  std::string histo, stats, sample;
  bool no_multiqc = false, no_canonical = false, like_kmc_tools = false;
  CLI::Option *min_option = nullptr, *max_option = nullptr, *cap_option = nullptr;  // given or not
  SetOpOptions opt;
};

// Every output with the option that names it, the MultiQC file beside --stats included.
std::vector<NamedPath> outputs_of(const SetsArgs& a) {
  std::vector<NamedPath> outs{{"-o", a.output}, {"--histo", a.histo}, {"--stats", a.stats}};
  if (!a.stats.empty() && a.stats != "-" && !a.no_multiqc)
    outs.push_back({"--stats (its MultiQC file; --no-multiqc writes none)", multiqc_paths(a.stats).general_stats});
  return outs;
}

void write_summaries(const SetsArgs& a, const SetOpResult& r, uint64_t capped, const RunClock& clock) {
  if (!a.histo.empty()) write_histogram(a.histo, r.histogram);
  if (a.stats.empty()) return;
  const nlohmann::json stats = set_stats_json(run_info("sets", a.inputs, clock), a.opt, r, a.output, capped);
  write_json(a.stats, stats);
  if (a.stats != "-" && !a.no_multiqc) {
    MultiqcPaths mqc = multiqc_paths(a.stats);
    if (!a.sample.empty()) mqc.sample = a.sample;
    write_json(mqc.general_stats, set_multiqc_general_stats(mqc.sample, stats));
  }
}

// KMC users type -okff or -ocsum, which the parser reads as -o kff, -o csum.
void refuse_kmc_output_spelling(const std::string& output) {
  for (const char* v : {"kff", "kmc", "csum", "cmin", "cmax", "cleft", "cright"})
    if (output == v)
      throw std::invalid_argument(
          "-o " + output + ": KMC's -o" + output + "? kmerbloom sets writes " +
          (output == "cleft"    ? std::string("--counts first")
           : output == "cright" ? std::string("--counts last")
           : output[0] == 'c'   ? "--counts " + output.substr(1)
                                : std::string("--format kff")) +
          " (a file named " + output + " is written with -o ./" + output + ")");
}

int run_sets(SetsArgs& a) {
  RunClock clock;
  refuse_kmc_output_spelling(a.output);
  a.format = count_output_format(*a.format_option, a.format, a.output);
  a.opt.op = parse_set_op(a.op);
  a.opt.counts = parse_count_mode(a.counts);
  a.opt.validate(a.inputs.size());
  check_outputs_first(named_inputs(a.inputs), outputs_of(a));
  refuse_terminal_stdout(*a.output_option, a.output, "the k-mers");
  SetOperation op(a.inputs, a.opt);
  // Canonical or not: as the KFF inputs declare, which --no-canonical may
  // not contradict; as --no-canonical says for text inputs.
  if (a.no_canonical && op.canonical().value_or(false))
    throw std::invalid_argument("--no-canonical, but the KFF inputs declare canonical k-mers (their headers say so)");
  const auto out = open_count_writer(a.format, a.output,
                                     {.k = op.k() ? op.k() : 31,
                                      .canonical = !a.no_canonical && op.canonical().value_or(true),
                                      .min_count = a.opt.presence ? 1 : a.opt.min_count,
                                      .max_count = a.opt.presence ? 1 : std::min(a.opt.max_count, a.opt.cap)});
  RunProgress progress(a.progress.force(a.output), op.k() ? op.k() : 31, 0);
  progress.pass(a.op + ": merging the inputs");
  progress.units("bytes read", input_bytes_total(a.inputs));
  const SetOpResult r = op.run(*out, &progress.counters);
  progress.stop();
  out->finish();
  const uint64_t capped = out->counts_capped();
  if (capped)
    spdlog::warn("warning: {}: {} k-mers have counts above {} (sums of the inputs' counts), written as {}: KMC's "
                 "counters are 32-bit and kmc_tools would misread a wider count; TSV holds them exactly",
                 a.output, capped, kKffMaxCount, kKffMaxCount);
  write_summaries(a, r, capped, clock);
  uint64_t in = 0;
  for (const auto& i : r.inputs) in += i.kmers;
  spdlog::info("{} of {}: {} k-mers read, {} written (k = {}), in {:.1f} s", a.op, plural(r.inputs.size(), "file"), in,
               r.kmers_out, r.k, clock.wall_seconds());
  return kExitOk;
}

}  // namespace

Action setup_sets(CLI::App& sub) {
  auto a = std::make_shared<SetsArgs>();
  a->opt.threads = default_threads();
  sub.footer(
      "Inputs are exact k-mer sets sorted by k-mer, as count and merge-counts write them (TSV, FASTA form or KFF, "
      "kmc -okff's too; plain or gzip). union: k-mers of any input; intersect: of every input; diff: of the first "
      "input and no other, the first's counts; subtract: the first's count minus the others', kept when above zero. "
      "The input count range applies to every input first, -c/-U to the result. Memory does not grow with the sets. "
      "See docs/sets.md.");
  sub.add_option("operation", a->op, "union, intersect, diff or subtract")
      ->required()
      ->check(CLI::IsMember({"union", "intersect", "diff", "subtract"}));
  sub.add_option("inputs", a->inputs, "Sorted k-mer count files (TSV, FASTA form or KFF), plain or gzip; - is stdin")
      ->required();
  a->output_option = sub.add_option("-o,--output", a->output, "Result; - is stdout, a name ending in .gz is gzip-compressed")
                        ->capture_default_str();
  a->format_option = add_count_format_option(sub, a->format);
  sub.add_option("--counts", a->counts,
                 "How counts of a k-mer in several inputs combine: union sum (auto), min or max; intersect min "
                 "(auto), max, sum, first or last (KMC's -ocleft, -ocright)")
      ->check(CLI::IsMember({"auto", "sum", "min", "max", "first", "last"}))
      ->capture_default_str();
  sub.add_option("--input-min-count", a->opt.input_min,
                 "Leave out each input's k-mers counted less often (KMC's -ci on inputs)")
      ->capture_default_str();
  sub.add_option("--input-max-count", a->opt.input_max,
                 "Leave out each input's k-mers counted more often (KMC's -cx on inputs)");
  a->min_option = sub.add_option("-c,-L,--min-count", a->opt.min_count, "Write result k-mers whose count is at least this")
                      ->capture_default_str();
  a->max_option = sub.add_option("-U,--max-count", a->opt.max_count, "Write result k-mers whose count is at most this");
  a->cap_option = sub.add_option("--cap", a->opt.cap,
                                 "Write result counts above this as this, before -c/-U (KMC's -cs on the output)");
  sub.add_flag("--like-kmc-tools", a->like_kmc_tools,
               "kmc_tools simple's defaults for the result: -c the input minimum, -U the input maximum, --cap 255 "
               "(each unless given): the k-mers kmc_tools gives for the same -ci/-cx/-cs (docs/sets.md)");
  sub.add_flag("--presence", a->opt.presence, "Write count 1 for every k-mer of the result (after -c/-U)");
  sub.add_option("--histo", a->histo, "Write the histogram of the result's counts (COUNT FREQUENCY, as count --histo)");
  sub.add_option("--histo-max", a->opt.histo_max, "Last dense histogram row; one more row holds all higher counts")
      ->default_val(10000)
      ->capture_default_str();
  sub.add_option("--stats", a->stats, "Write run statistics as JSON (inputs, operation, k-mers in and out)");
  sub.add_option("--sample", a->sample,
                 "Sample name in the MultiQC file written beside --stats (default: its file name)");
  sub.add_flag("--no-multiqc", a->no_multiqc, "Do not write the MultiQC custom content file beside --stats");
  sub.add_flag("--no-canonical", a->no_canonical,
               "The inputs hold k-mers as read, not canonical (recorded in a KFF output's header; KFF inputs say so "
               "themselves, and a mix is refused)");
  sub.add_option("-t,--threads", a->opt.threads,
                 "Threads (default: all cores): the first N - 1 inputs are parsed on threads of their own, feeding the "
                 "merge; the output is the same for any N")
      ->capture_default_str();
  add_progress_flags(sub, a->progress);
  return [a] {
    if (!a->histo.empty() && a->opt.histo_max < 1)
      throw std::invalid_argument("--histo-max must be at least 1: a histogram of no rows (count refuses 0 too)");
    if (a->histo.empty()) a->opt.histo_max = 0;
    if (a->like_kmc_tools) {  // kmc_tools gives its output the inputs' range and caps counts at 255
      if (!a->min_option->count()) a->opt.min_count = a->opt.input_min;
      if (!a->max_option->count()) a->opt.max_count = a->opt.input_max;
      if (!a->cap_option->count()) a->opt.cap = 255;
    }
    return run_sets(*a);
  };
}

}  // namespace kmerbloom::cli
