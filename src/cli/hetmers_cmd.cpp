// kmerbloom hetmers: the het-mer pairs of a count file, binned as
// smudgeplot's plot step reads them (docs/hetmers.md).
#include <filesystem>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "cli/progress.hpp"
#include "subcommand.hpp"
#include "seqio/paths.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/output.hpp"
#include "profile/counted_kmers.hpp"
#include "profile/cutoffs.hpp"
#include "profile/hetmers.hpp"
#include "profile/hetmers_stats.hpp"
#include "profile/smudge_peak.hpp"
#include "profile/smudge_plot.hpp"
#include "report/report.hpp"

namespace kmerbloom::cli {
namespace {

struct HetmersArgs {
  ProgressFlags progress;
  std::string input;
  std::string prefix;
  std::optional<uint64_t> lower;
  std::string upper;  // a count, "quantile", or empty
  unsigned k = 0;
  unsigned threads = default_threads();
  std::string max_memory = "1G";
  std::string tmp_dir;
  bool pairs = false;
  std::string stats;
  bool no_multiqc = false;
  std::string sample;
  std::string plot, report;  // the smudge plot as SVG, or in an HTML page
  std::vector<std::string> reads;  // --reads: count these instead of reading counts

  std::string smu_path() const { return prefix + ".smu"; }
  std::string pairs_path() const { return pairs ? prefix + ".pairs.tsv" : ""; }
  bool multiqc() const { return !stats.empty() && stats != "-" && !no_multiqc; }
};

// -L and -U: given, or chosen from the k-mers' histogram (the file's, or the reads' count) as smudgeplot does.
HetmerCutoffs choose_cutoffs(const HetmersArgs& a, const std::vector<uint64_t>& histogram) {
  HetmerCutoffs c;
  c.lower = a.lower ? *a.lower : smudgeplot_lower_cutoff(histogram);
  c.lower_from = a.lower ? "option" : "histogram";
  const uint64_t limit = c.lower < kMaxPairCoverage ? kMaxPairCoverage - c.lower : 0;
  if (a.upper == "quantile") {
    c.upper = std::min(limit, smudgeplot_upper_cutoff(histogram));
    c.upper_from = "quantile";
  } else if (!a.upper.empty()) {
    c.upper = std::min<uint64_t>(limit, std::stoull(a.upper));
    c.upper_from = "option";
  } else {
    c.upper = limit;
    c.upper_from = "pair limit";
  }
  if (c.lower < 1) throw std::invalid_argument("-L must be at least 1");
  if (c.upper < c.lower)
    throw std::invalid_argument("no count fits: L = " + std::to_string(c.lower) + " > U = " + std::to_string(c.upper) +
                                " (a pair's counts add up to at most " + std::to_string(kMaxPairCoverage) + ")");
  return c;
}

std::string cutoffs_text(const HetmerCutoffs& c) {
  return fmt::format("L = {} ({}), U = {} ({})", c.lower,
               c.lower_from == "option" ? "-L" : "smudgeplot's cutoff L on the k-mers' histogram", c.upper,
               c.upper_from == "option"     ? "-U"
               : c.upper_from == "quantile" ? "smudgeplot's cutoff U, the 99.8% quantile"
                                            : "pairs whose counts add up to more than 1000 are not searched");
}

void check_args(const HetmersArgs& a) {
  if (a.prefix.empty() || a.prefix == "-") throw std::invalid_argument("-o wants a prefix for PREFIX.smu");
  if (!a.upper.empty() && a.upper != "quantile" &&
      (a.upper.size() > 18 || a.upper.find_first_not_of("0123456789") != std::string::npos))
    throw std::invalid_argument("-U wants a count or 'quantile', got '" + a.upper + "'");
  if (a.threads < 1) throw std::invalid_argument("-t must be at least 1");
  if (a.input.empty() == a.reads.empty())
    throw std::invalid_argument(a.reads.empty() ? "hetmers needs a count file, or reads with --reads"
                                                : "give a count file or --reads, not both");
  std::vector<NamedPath> outs{{"-o", a.smu_path()}, {"--pairs", a.pairs_path()}, {"--stats", a.stats},
                              {"--plot", a.plot}, {"--report", a.report}};
  if (a.multiqc()) outs.push_back({"--stats (its MultiQC file; --no-multiqc writes none)",
                                   multiqc_paths(a.stats).general_stats});
  std::vector<NamedPath> ins = named_inputs(a.reads);
  if (!a.input.empty()) ins.push_back({"input", a.input});
  check_outputs_first(ins, outs, a.tmp_dir);
}

int run_hetmers(HetmersArgs& a) {
  RunClock clock;
  check_args(a);
  const uint64_t budget = parse_memory_size(a.max_memory, "-M/--max-memory");
  const unsigned k_reads = a.k ? a.k : 21;  // smudgeplot's k
  RunProgress progress(a.progress.force(), a.reads.empty() ? (a.k ? a.k : 31) : k_reads,
                       a.reads.empty() ? 0 : input_bytes_total(a.reads));
  CountFileKmers file;
  if (!a.reads.empty()) {  // every k-mer of the reads, counted exactly, as `count -c 1` would write them
    CountOptions co;
    co.inputs = a.reads;
    co.k = k_reads;
    co.threads = a.threads;
    co.max_memory = budget;
    co.tmp_dir = a.tmp_dir;
    co.validate();
    auto hooks = progress.hooks<CountHooks>(false);
    hooks.pass = [&](const std::string& s) { progress.pass("counting the reads, " + s); };
    file = count_reads_kmers(co, kMaxPairCoverage - 1, hooks);
  } else {
    progress.pass("reading the counts");
    progress.units("bytes read", input_bytes_total({a.input}));
    file = read_count_file_kmers(a.input, a.k, kMaxPairCoverage - 1, a.tmp_dir, size_t{1} << 16, &progress.counters);
  }
  if (file.records == 0)
    throw InputError((a.reads.empty() ? display_name(a.input) : display_name(a.reads.front())) + ": no k-mers");
  spdlog::debug("read {} k-mers of k = {} in {:.1f} s", format_count(file.records), file.k, clock.wall_seconds());
  const HetmerCutoffs cut = choose_cutoffs(a, file.histogram);
  progress.info(cutoffs_text(cut));
  const std::unique_ptr<CountedKmers> set = select_counts(*file.kept, cut.lower, cut.upper);
  file.kept.reset();
  spdlog::debug("{} k-mers in [{}, {}] at {:.1f} s; search in at most {} on {} threads", format_count(set->size()),
                cut.lower, cut.upper, clock.wall_seconds(), format_megabytes(budget), a.threads);
  std::unique_ptr<OutputFile> pairs;
  if (a.pairs) pairs = std::make_unique<OutputFile>(a.pairs_path());
  HetmerOptions o;
  o.k = file.k;
  o.threads = a.threads;
  o.max_memory = budget;
  o.pairs = pairs.get();
  o.progress = &progress.counters;
  o.pass = [&](const std::string& name) { progress.pass(name); };
  const HetmerResult r = find_hetmers(*set, o);
  progress.stop();
  const SmudgePeak peak = find_smudge_peak(r.grid, cut.lower, r.kmers);
  spdlog::debug("search done at {:.1f} s: {} search units, {} planned", clock.wall_seconds(), r.partitions,
                format_megabytes(r.memory_planned));
  OutputFile smu(a.smu_path());
  write_smu(r.grid, smu);
  smu.commit();
  if (pairs) pairs->commit();
  if (!a.plot.empty()) {
    OutputFile svg(a.plot);
    svg.write(smudge_svg(r.grid, peak, cut.lower));
    svg.commit();
  }
  if (!a.report.empty()) {
    OutputFile html(a.report);
    const std::string name = a.sample.empty() ? std::filesystem::path(a.prefix).filename().string() : a.sample;
    html.write(smudge_report_html(name, r.grid, peak, cut.lower, cut.upper, r.unique_pairs));
    html.commit();
  }
  spdlog::info("{} k-mers of {} in [{}, {}], {} pairs at one base, {} unique ({} with their reverse complements), "
               "{} search units, in {:.1f} s",
               format_count(r.kmers), format_count(file.records), cut.lower, cut.upper, format_count(r.pairs / 2),
               format_count(r.unique_pairs_canonical), format_count(r.unique_pairs), r.partitions,
               clock.wall_seconds());
  if (peak.found)
    spdlog::info("densest smudge: minor share {:.3f} at coverage sum {:.1f}; unique pairs hold {:.2f}% of the k-mers",
                 peak.minor_share, peak.sum, 100 * peak.pair_kmer_share);
  if (peak.ploidy)
    spdlog::info("it suggests {}: ploidy {}, 1n coverage {:.1f}", peak.structure, peak.ploidy, peak.haploid_coverage);
  else
    spdlog::info("no ploidy said: {}", peak.note);
  if (!a.stats.empty()) {
    const HetmerRunFacts facts{.k = file.k, .kmers_in_file = file.records, .memory_budget = budget,
                               .threads = a.threads, .smu_path = a.smu_path(), .pairs_path = a.pairs_path()};
    const nlohmann::json stats = hetmer_stats_json(
        run_info("hetmers", a.reads.empty() ? std::vector<std::string>{a.input} : a.reads, clock), facts, cut, r, peak);
    write_json(a.stats, stats);
    if (a.multiqc()) {
      MultiqcPaths mqc = multiqc_paths(a.stats);
      if (!a.sample.empty()) mqc.sample = a.sample;
      write_json(mqc.general_stats, hetmer_multiqc_json(mqc.sample, stats));
    }
  }
  return kExitOk;
}

}  // namespace

Action setup_hetmers(CLI::App& sub) {
  auto a = std::make_shared<HetmersArgs>();
  sub.footer(
      "Het-mers are pairs of k-mers that differ at one base and are in no other such pair; their two counts, "
      "binned, are smudgeplot's input (PREFIX.smu: MINOR<TAB>MAJOR<TAB>PAIRS, for `smudgeplot all PREFIX.smu`). "
      "The input holds canonical k-mers sorted as count writes them (TSV or KFF, plain or gzip). "
      "See docs/hetmers.md.");
  sub.add_option("counts", a->input, "k-mer counts from count, merge-counts or kmc -okff; - is stdin");
  sub.add_option("--reads", a->reads,
                 "Reads (FASTA/FASTQ, plain or gzip) to count first, every k-mer, instead of a count file (k: -k, "
                 "default 21)");
  sub.add_option("-o,--output", a->prefix, "Output prefix: writes PREFIX.smu (and PREFIX.pairs.tsv)")->required();
  sub.add_option("-L,--lower", a->lower,
                 "Lowest count searched (default: smudgeplot's choice from the k-mers' histogram, at least 10)");
  sub.add_option("-U,--upper", a->upper,
                 "Highest count searched, or 'quantile' for smudgeplot's older 99.8% rule (default: 1000 - L, "
                 "every pair smudgeplot searches)");
  sub.add_option("-k", a->k, "The k the file must have (default: the file's); with --reads, the k to count (default 21)");
  sub.add_option("-t,--threads", a->threads, "Worker threads (default: all cores)");
  sub.add_option("-M,--max-memory", a->max_memory, "Memory for the search (K, M, G suffixes)")->capture_default_str();
  sub.add_option("--tmp-dir", a->tmp_dir, "Directory for temporary files (default: $TMPDIR, else /tmp)");
  sub.add_flag("--pairs", a->pairs, "Also write PREFIX.pairs.tsv: KMER COUNT KMER COUNT per unique pair");
  sub.add_option("--stats", a->stats, "Statistics JSON (and its MultiQC file, NAME_mqc.json)");
  sub.add_flag("--no-multiqc", a->no_multiqc, "With --stats: no MultiQC file");
  sub.add_option("--sample", a->sample, "Sample name in the MultiQC file and the report (default: from the --stats name)");
  sub.add_option("--plot", a->plot, "Write the smudge plot as SVG: coverage sum against the minor share, the densest smudge marked");
  sub.add_option("--report", a->report, "Write the smudge plot and the figures as a self-contained HTML page");
  add_progress_flags(sub, a->progress);
  return [a] { return run_hetmers(*a); };
}

}  // namespace kmerbloom::cli
