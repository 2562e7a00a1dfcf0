// kmerbloom merge-counts: gather step of scatter/gather counting. Merges
// sorted KMER<TAB>COUNT files (count --partition I/N outputs, or counts of
// chunks of the reads), summing equal k-mers; or adds up histograms.
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "common/format.hpp"
#include "cli/progress.hpp"
#include "subcommand.hpp"
#include "seqio/paths.hpp"
#include "formats/count_writer.hpp"
#include "formats/histogram_file.hpp"
#include "count/merge_counts.hpp"
#include "kbf/kbf.hpp"
#include "report/report.hpp"
#include "report/spectrum.hpp"
#include "report/stats.hpp"

namespace kmerbloom::cli {
namespace {

struct MergeCountsArgs {
  ProgressFlags progress;
  std::vector<std::string> inputs;
  std::string output = "-";
  CLI::Option* output_option = nullptr;  // to tell whether -o was given
  uint64_t min_count = 1;
  bool histo = false;
  bool stats = false;
  std::string sample;
  bool no_multiqc = false;
};

// Statistics of count --partition runs, gathered into those of the whole.
// The MultiQC files that count writes beside each statistics file
// (S_mqc.json, S_spectrum_mqc.json) come along with a glob such as
// part*.json: they are skipped, and said so.
int gather_stats(const MergeCountsArgs& a, const RunClock& clock) {
  std::vector<nlohmann::json> parts;
  std::vector<std::string> names;
  for (const auto& p : a.inputs) {
    nlohmann::json j = read_stats_file(p);
    if (j.is_object() && j.contains("plot_type") && j.contains("data")) {
      spdlog::info("{}: MultiQC custom content, not statistics: skipped", p);
      continue;
    }
    parts.push_back(std::move(j));
    names.push_back(p);
  }
  if (parts.empty()) throw std::invalid_argument("no statistics among the inputs, only MultiQC files");
  const nlohmann::json g = gather_count_stats(parts, names);
  write_json(a.output, g);
  if (a.output != "-" && !a.no_multiqc) {  // as count --stats writes them, for the whole
    MultiqcPaths mqc = multiqc_paths(a.output);
    if (!a.sample.empty()) mqc.sample = a.sample;
    const std::vector<uint64_t> histogram = embedded_histogram(g, a.output);
    write_json(mqc.general_stats, multiqc_general_stats(mqc.sample, g));
    write_json(mqc.spectrum, multiqc_spectrum(mqc.sample, g, histogram));
  }
  spdlog::info("{} statistics gathered, in {:.1f} s", parts.size(), clock.wall_seconds());
  return kExitOk;
}

int run_merge_counts(const MergeCountsArgs& a) {
  RunClock clock;
  if (a.min_count < 1) throw std::invalid_argument("--min-count must be at least 1");
  if (a.histo && a.min_count != 1) throw std::invalid_argument("--min-count does not apply to --histo");
  if (!a.stats && (!a.sample.empty() || a.no_multiqc))
    throw std::invalid_argument("--sample and --no-multiqc apply to --stats only");
  if (a.stats && (a.histo || a.min_count != 1))
    throw std::invalid_argument("--stats gathers statistics: --histo and --min-count do not apply");
  std::vector<NamedPath> outs{{"-o", a.output}};
  if (a.stats && a.output != "-" && !a.no_multiqc) {
    const MultiqcPaths mqc = multiqc_paths(a.output);
    outs.push_back({"-o (its MultiQC file; --no-multiqc writes none)", mqc.general_stats});
    outs.push_back({"-o (its MultiQC file; --no-multiqc writes none)", mqc.spectrum});
  }
  check_outputs_first(named_inputs(a.inputs), outs);
  if (!a.stats && !a.histo) refuse_terminal_stdout(*a.output_option, a.output, "the k-mers");
  if (a.stats) return gather_stats(a, clock);
  if (a.histo) {
    HistogramWriter out(a.output);
    const auto rows = sum_histograms(a.inputs);
    for (const auto& [count, freq] : rows) out.add(count, freq);
    out.finish();
    spdlog::info("{} histograms, {} rows, in {:.1f} s", a.inputs.size(), rows.size(), clock.wall_seconds());
    return kExitOk;
  }
  if (const std::string named = count_format_named_by(a.output); named != "tsv")
    throw std::invalid_argument("-o " + a.output + ": merge-counts writes TSV (KMER<TAB>COUNT), not " + named +
                                "; name it otherwise, or write " + named + " with kmerbloom sets union --format " + named);
  const auto out = open_count_writer("tsv", a.output);
  RunProgress progress(a.progress.force(a.output), 31, 0);
  progress.pass("merging the k-mers");
  progress.units("bytes read", input_bytes_total(a.inputs));
  const MergeCountsResult r = merge_count_files(
      a.inputs, a.min_count, [&](std::string_view kmer, uint64_t count) { out->add(kmer, count); }, &progress.counters);
  progress.stop();
  out->finish();
  spdlog::info("{}, {} lines, {} k-mers written (k = {}), in {:.1f} s", plural(a.inputs.size(), "file"), r.lines, r.kmers_out,
               r.k, clock.wall_seconds());
  return kExitOk;
}

}  // namespace

Action setup_merge_counts(CLI::App& sub) {
  auto a = std::make_shared<MergeCountsArgs>();
  sub.footer(
      "Inputs are sorted by k-mer, as count writes them; the output is too. Partitions of one run "
      "(count --partition I/N, same options) are disjoint: their merge equals the unpartitioned output. "
      "Counts of chunks of the reads add up only for k-mers every chunk reported: count chunks with "
      "--min-count 1 and merge with --min-count N.");
  sub.add_option("inputs", a->inputs, "KMER<TAB>COUNT or KFF files (or histograms with --histo), plain or gzip; - is stdin")
      ->required();
  a->output_option =
      sub.add_option("-o,--output", a->output, "Merged file; - is stdout, a name ending in .gz is gzip-compressed")
          ->capture_default_str();
  sub.add_option("-c,--min-count", a->min_count, "Drop k-mers whose summed count is below this")->capture_default_str();
  sub.add_flag("--histo", a->histo,
               "Inputs are histograms (COUNT FREQUENCY, as count --histo or jellyfish histo write): add them row by row");
  sub.add_flag("--stats", a->stats,
               "Inputs are the --stats of count --partition I/N runs: gather them into the statistics of the whole "
               "(summed numbers, summed histogram and its spectrum), which report reads; with the MultiQC files "
               "beside -o, as count --stats writes them");
  sub.add_option("--sample", a->sample, "With --stats: the sample name in the MultiQC files (default: -o's name)");
  sub.add_flag("--no-multiqc", a->no_multiqc, "With --stats: write no MultiQC files");
  add_progress_flags(sub, a->progress);
  return [a] { return run_merge_counts(*a); };
}

}  // namespace kmerbloom::cli
