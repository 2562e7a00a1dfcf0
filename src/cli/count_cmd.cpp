// kmerbloom count: options, outputs (k-mers, histogram, statistics).
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "subcommand.hpp"
#include "count/counter.hpp"
#include "count/bins.hpp"
#include "formats/count_writer.hpp"
#include "formats/histogram_file.hpp"
#include "cli/progress.hpp"
#include "seqio/paths.hpp"
#include "profile/genome_model.hpp"
#include "profile/genome_plot.hpp"
#include "report/report.hpp"
#include "report/spectrum.hpp"

namespace kmerbloom::cli {
namespace {

struct CountArgs {
  CountOptions opt;
  std::string output = "-";
  std::string format = "tsv";
  CLI::Option* format_option = nullptr;  // to tell whether --format was given
  std::string histo, stats;
  ReadSetArgs reads;  // -M unset: no budget
  bool no_gate = false;
  bool one_pass_retired = false;
  std::string partition;
  std::string report, plot;
  unsigned ploidy = 0;  // --ploidy: fit the genome profile into --stats and --report
  ProgressFlags progress;
  std::string sample;
  bool no_multiqc = false;
  CLI::Option* output_option = nullptr;  // to tell whether -o was given
};

// What a user should know about a run that succeeded: no reads, no k-mers,
// a plan far larger than the input needed. Shown on stderr and kept in the
// statistics.
std::vector<std::string> run_warnings(const CountArgs& a, const CountResult& r) {
  std::vector<std::string> w;
  const std::string k = std::to_string(a.opt.k);
  if (r.input.reads == 0) {
    w.push_back("the input holds no reads: every output is empty");
  } else if (r.input.kmers == 0) {
    w.push_back("no k-mers in " + std::to_string(r.input.reads) + " reads: every read is shorter than k = " + k +
                " or has no " + k + " A/C/G/T bases in a row; try a smaller -k");
  }
  if (a.opt.partitions > 1 && a.format == "fasta")
    w.push_back("--format fasta with --partition: neither sort -m nor merge-counts gathers FASTA partitions; "
                "count the partitions as TSV (the default) to gather them");
  const double found = std::max<double>(static_cast<double>(r.distinct), 1.0);
  if (r.sizing.source == "--expected" && static_cast<double>(a.opt.expected_kmers) > 10 * found &&
      r.sizing.planned_bytes > (uint64_t{64} << 20))
    w.push_back("--expected " + std::to_string(a.opt.expected_kmers) + " is " +
                std::to_string(static_cast<uint64_t>(static_cast<double>(a.opt.expected_kmers) / found)) +
                " times the " + std::to_string(r.distinct) + " distinct k-mers found: " +
                std::to_string(r.sizing.planned_bytes >> 20) +
                " MiB were planned for them; leave --expected out to size from the input");
  return w;
}

void parse_partition(const std::string& text, CountOptions& o) {
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    size_t used = 0;
    const unsigned long i = std::stoul(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("");
    const unsigned long n = std::stoul(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1 || n < 1 || n > 65536 || i >= n) throw std::invalid_argument("");
    o.partition = static_cast<uint32_t>(i);
    o.partitions = static_cast<uint32_t>(n);
  } catch (const std::exception&) {
    throw std::invalid_argument("--partition wants I/N with 0 <= I < N <= 65536, got '" + text + "'");
  }
}

// MultiQC files beside --stats, but for a partition of a scattered count:
// a partition is no sample (merge-counts --stats writes the gathered one's).
bool writes_multiqc(const CountArgs& a) {
  return !a.stats.empty() && a.stats != "-" && !a.no_multiqc && a.opt.partitions <= 1;
}

// Refuses outputs that would replace an input or each other (exit 2), or that
// cannot be created, and a temporary directory that cannot hold a file (exit
// 4), before anything is read or written.
void check_outputs(const CountArgs& a) {
  std::vector<NamedPath> outs{{"-o", a.output}, {"--histo", a.histo}, {"--stats", a.stats},
                              {"--report", a.report}, {"--plot", a.plot}};
  if (writes_multiqc(a)) {
    const MultiqcPaths mqc = multiqc_paths(a.stats);
    const char* label = "--stats (its MultiQC file; --no-multiqc writes none)";
    outs.push_back({label, mqc.general_stats});
    outs.push_back({label, mqc.spectrum});
  }
  check_outputs_first(named_inputs(a.opt.inputs), outs, a.opt.tmp_dir);
  refuse_terminal_stdout(*a.output_option, a.output, "the k-mers");
}

// The options that need more than parsing: the partition, the memory budget,
// strandedness, and what bin files say.
void settle_options(CountArgs& a) {
  if (!a.partition.empty()) parse_partition(a.partition, a.opt);
  a.reads.settle(a.opt);
  take_bin_shape(a.opt, a.reads.k_option->count() > 0, a.reads.no_canonical_option->count() > 0);
  if (a.no_gate) a.opt.gate = GateMode::none;
  if (a.one_pass_retired)
    spdlog::warn("warning: --one-pass is retired and ignored: the exact count reads the input once at the same cost "
                 "(docs/count.md)");
}

// The statistics, their MultiQC files, the report and the plot.
void write_summaries(const CountArgs& a, const CountResult& r, const RunClock& clock,
                     const std::vector<std::string>& pass_names) {
  if (a.stats.empty() && a.report.empty() && a.plot.empty() && !a.ploidy) return;
  // The spectrum, analysed once for the statistics, the report and the plot:
  // the last row holds every count above --histo-max, row 1 may be estimated.
  SpectrumOptions so;
  so.total_kmers = r.input.kmers;
  so.last_row_overflow = true;
  const SpectrumAnalysis spectrum = analyze_spectrum(r.histogram, so);
  if (!spectrum.reliable)
    for (const std::string& w : spectrum.warnings) spdlog::warn("warning: the k-mer spectrum is not reliable: {}", w);
  nlohmann::json stats =
      count_stats_json(run_info("count", a.opt.inputs, clock), a.opt, r, spectrum, pass_names, run_warnings(a, r));
  std::string profile_section;
  if (a.ploidy) {
    const GenomeProfile p = fit_genome_profile(r.histogram, profile_options_from_stats(stats, r.histogram, a.ploidy));
    stats["profile"] = profile_json(p);
    if (!a.report.empty()) profile_section = profile_report_section(r.histogram, p);
    if (p.fitted)
      spdlog::info("genome profile (ploidy {}): {} haploid, heterozygosity {:.3f}%, k-mer coverage {:.1f}x, model fit {:.1f}%",
                   a.ploidy, format_bases(p.genome_length), 100 * p.heterozygosity, p.kmer_coverage, 100 * p.model_fit);
    else
      spdlog::warn("warning: genome profile (ploidy {}) not fitted: {}", a.ploidy, p.verdict);
  }
  if (!a.stats.empty()) write_json(a.stats, stats);
  if (writes_multiqc(a)) {
    MultiqcPaths mqc = multiqc_paths(a.stats, a.opt.inputs);
    if (!a.sample.empty()) mqc.sample = a.sample;
    write_json(mqc.general_stats, multiqc_general_stats(mqc.sample, stats));
    write_json(mqc.spectrum, multiqc_spectrum(mqc.sample, stats, r.histogram));
  }
  if (!a.report.empty()) write_report_html(stats, r.histogram, spectrum, a.report, profile_section);
  if (!a.plot.empty()) write_spectrum_svg(stats, r.histogram, spectrum, a.plot);
}

int run_count(CountArgs& a) {
  RunClock clock;
  a.format = count_output_format(*a.format_option, a.format, a.output);
  a.opt.output = a.output;  // the library writes it
  a.opt.output_format = a.format;
  settle_options(a);
  a.opt.validate();  // before any output file is created
  check_outputs(a);

  // Progress on stderr: on a terminal unless -q, or as forced.
  RunProgress progress(a.progress.force(), a.opt.k, input_bytes_total(a.opt.inputs));
  bool meter_running = true;

  auto hooks = progress.hooks<CountHooks>();
  hooks.output_begins = [&] {  // counting is over: clear the line before any k-mer reaches a terminal
    if (meter_running) {
      progress.stop();
      meter_running = false;
    }
  };
  const CountResult r = count_kmers(a.opt, hooks);
  progress.stop();
  for (const std::string& w : run_warnings(a, r)) spdlog::warn("warning: {}", w);

  if (!a.histo.empty()) write_histogram(a.histo, r.histogram);
  write_summaries(a, r, clock, progress.pass_names());
  const std::string range = a.opt.max_count == std::numeric_limits<uint32_t>::max()
                                ? "count >= " + std::to_string(a.opt.min_count)
                                : "count " + std::to_string(a.opt.min_count) + " to " + std::to_string(a.opt.max_count);
  spdlog::info("{} reads, {} k-mers, {} distinct, {} reported ({}) in {:.1f} s", r.input.reads, r.input.kmers,
               r.distinct, r.solid, range, clock.wall_seconds());
  if (r.spool.disk_bytes)
    spdlog::info("{} went to temporary files in {}; -M {} would have kept it in memory", format_megabytes(r.spool.disk_bytes),
                 r.spool.dir, format_memory_option(r.spool.hold_budget));
  return kExitOk;
}

}  // namespace

Action setup_count(CLI::App& sub) {
  auto a = std::make_shared<CountArgs>();
  add_read_set_options(
      sub, a->opt, a->reads,
      {.inputs = "FASTA/FASTQ files, plain, gzip or BGZF; - reads stdin; or bin files of kmerbloom bin",
       .k = "k-mer length, 1 to 255 (bin files: theirs)",
       .no_canonical = "Count k-mers as read, not canonical",
       .max_memory = "Memory budget, e.g. 2G or 500M (K, M, G, T: binary units): buffers are planned to fit it, the "
                     "partitions' data beyond it goes to temporary files; too small for the buffers is exit 5",
       .tmp_dir = true});
  a->output_option =
      sub.add_option("-o,--output", a->output,
                     "Solid k-mers; - is stdout (not a terminal unless given), a name ending in .gz is gzip-compressed")
          ->capture_default_str();
  a->format_option = add_count_format_option(sub, a->format);
  sub.add_option("-c,-L,--min-count", a->opt.min_count, "Report k-mers seen at least this often")->capture_default_str();
  sub.add_option("-U,--max-count", a->opt.max_count, "Report k-mers seen at most this often")->capture_default_str();
  sub.add_option("--histo", a->histo, "Write the k-mer histogram (jellyfish histo form: COUNT FREQUENCY)");
  sub.add_option("--histo-max", a->opt.histo_max, "Last dense histogram row; one more row holds all higher counts")
      ->capture_default_str();
  sub.add_option("--stats", a->stats, "Write run statistics as JSON");
  sub.add_option("--sample", a->sample,
                 "Sample name in the MultiQC files written beside --stats (default: the reads' name, reads.fq.gz: "
                 "reads, x_R1 x_R2: x; from stdin, the --stats file's name without .json, .stats)");
  sub.add_flag("--no-multiqc", a->no_multiqc, "Do not write the MultiQC custom content files beside --stats");
  sub.add_option("--report", a->report,
                 "Write a self-contained HTML report: k-mer spectrum, genome size, Bloom filter, memory, time");
  sub.add_option("--plot", a->plot, "Write the k-mer spectrum plot as SVG");
  sub.add_option("--ploidy", a->ploidy,
                 "Fit the genome profile at this ploidy (1 to 6) into --stats (\"profile\") and --report, as kmerbloom "
                 "profile does")
      ->check(CLI::Range(1, 6));
  add_progress_flags(sub, a->progress);
  sub.add_option("--expected", a->opt.expected_kmers, "Expected number of distinct k-mers (sizes the tables)");
  // Retired: the exact count reads the input once at the same cost; the flag
  // stays accepted (with a warning) so that pipelines that pass it still run.
  sub.add_flag("--one-pass", a->one_pass_retired, "Retired: counts are always exact")->group("");
  sub.add_flag("--no-gate", a->no_gate, "Count every k-mer in the exact table, no Bloom filter (more memory)");
  sub.add_option("--fpr", a->opt.fpr,
                 "Bloom filters' target false-positive rate (default 0.03)");
  sub.add_option("--partition", a->partition,
                 "I/N: count only partition I (0-based) of N disjoint k-mer partitions, for scatter/gather; on bin files "
                 "(kmerbloom bin) the bins I, I+N, I+2N, ...");
  sub.add_option("--bloom-growth", a->opt.bloom_growth,
                 "Capacity ratio of successive Bloom layers, 1.25 to 16 (layers are added only when the first fills)")
      ->check(CLI::Range(1.25, 16.0))
      ->capture_default_str();
  return [a] { return run_count(*a); };
}

}  // namespace kmerbloom::cli
