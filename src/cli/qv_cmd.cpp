// kmerbloom qv: an assembly's QV, per-sequence QV, k-mer completeness and
// spectra-cn table against the k-mer counts of its reads, in Merqury's files.
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "cli/progress.hpp"
#include "subcommand.hpp"
#include "formats/output.hpp"
#include "seqio/paths.hpp"
#include "profile/assembly_qv.hpp"
#include "profile/qv_plot.hpp"
#include "profile/qv_files.hpp"
#include "report/report.hpp"

namespace kmerbloom::cli {
namespace {

struct QvArgs {
  std::string plot, report;  // the copy-number spectrum as SVG, or in an HTML page
  ProgressFlags progress;
  QvOptions opt;
  std::string prefix;
  std::optional<std::string> max_memory;
  std::string stats, sample;
  bool no_per_sequence = false, no_multiqc = false;
};

// What a user should know about a run that succeeded: shown on stderr and kept in --stats.
std::vector<std::string> qv_warnings(const QvArgs& a, const QvResult& r) {
  std::vector<std::string> w;
  if (r.read_min_count > 1)
    w.push_back("the read counts in " + a.opt.read_counts + " start at count " + std::to_string(r.read_min_count) +
                ": they were counted with a minimum, so read k-mers seen fewer times are absent; assembly k-mers "
                "among them count as errors (the QV is a lower bound) and the solid threshold comes from a cut "
                "histogram; count the reads with -c 1 for Merqury's numbers");
  // An assembly far from its reads: most of its k-mers absent from them and
  // most of their solid k-mers absent from it (another genome, another sample).
  if (r.asm_kmers && r.solid_distinct && 2 * r.missing > r.asm_kmers && 2 * r.solid_in_asm < r.solid_distinct)
    w.push_back("the assembly is far from its reads: " + std::to_string(r.missing) + " of its " +
                std::to_string(r.asm_kmers) + " k-mers are absent from them, and it holds " +
                std::to_string(r.solid_in_asm) + " of their " + std::to_string(r.solid_distinct) +
                " solid k-mers: are they reads of this genome?");
  if (!r.threshold_given && r.solid_threshold == 0)
    w.push_back("the read histogram has no valley: every read k-mer is taken as solid; give --solid-threshold");
  return w;
}

nlohmann::json multiqc_qv(const std::string& sample, const nlohmann::json& figures) {
  nlohmann::json row = nlohmann::json::object();
  for (const char* key : {"qv", "error_rate", "completeness_percent"})
    if (figures.at(key).is_number()) row[key] = figures.at(key);  // at(): a renamed key throws
  return multiqc_general_stats_section(
      "kmerbloom_qv", "kmerbloom qv", "assembly QV and k-mer completeness from kmerbloom qv",
      {{"qv", "QV", "consensus quality from read k-mers (Merqury's QV)", "{:,.1f}"},
       {"error_rate", "Error rate", "base error rate implied by the QV", "{:.2e}"},
       {"completeness_percent", "% k-mer completeness", "share of the reads' solid k-mers found in the assembly",
        "{:,.2f}"}},
      sample, row);
}

int run_qv(QvArgs& a) {
  RunClock clock;
  if (a.max_memory) a.opt.max_memory = parse_memory_size(*a.max_memory, "-M/--max-memory");
  a.opt.per_sequence = !a.no_per_sequence;
  a.opt.validate();
  const std::string name = assembly_name(a.opt.assembly);
  std::vector<NamedPath> outs;
  for (const std::string& p : qv_file_paths(a.prefix, name, a.opt.per_sequence)) outs.push_back({"-o", p});
  outs.push_back({"--stats", a.stats});
  outs.push_back({"--plot", a.plot});
  outs.push_back({"--report", a.report});
  std::optional<MultiqcPaths> mqc;
  if (!a.stats.empty() && a.stats != "-" && !a.no_multiqc) {
    mqc = multiqc_paths(a.stats);
    if (!a.sample.empty()) mqc->sample = a.sample;
    outs.push_back({"--stats (its MultiQC file; --no-multiqc writes none)", mqc->general_stats});
  }
  check_outputs_first({{"assembly", a.opt.assembly}, {"--reads", a.opt.read_counts}}, outs, a.opt.tmp_dir);

  // k only estimates k-mers per second from bases: the read counts tell it later.
  RunProgress progress(a.progress.force(), a.opt.k ? a.opt.k : 31, input_bytes_total({a.opt.assembly}));
  const auto hooks = progress.hooks<QvHooks>();
  const QvResult r = assess_assembly(a.opt, hooks);
  progress.stop();
  const std::vector<std::string> warnings = qv_warnings(a, r);
  for (const std::string& w : warnings) spdlog::warn("warning: {}", w);
  spdlog::info("solid read k-mers: count > {} ({}): {} of {} distinct", r.solid_threshold,
               r.threshold_given ? "--solid-threshold" : "first valley of the read histogram, as Merqury picks it",
               r.solid_distinct, r.read_distinct);

  write_qv_files(r, a.prefix, name);
  if (!a.plot.empty()) {
    OutputFile svg(a.plot);
    svg.write(spectra_cn_svg(r));
    svg.commit();
  }
  if (!a.report.empty()) {
    OutputFile html(a.report);
    html.write(qv_report_html(name, r));
    html.commit();
  }
  const nlohmann::json figures = qv_figures_json(r, name);
  if (!a.stats.empty()) {
    const RunInfo run = run_info("qv", {a.opt.assembly, a.opt.read_counts}, clock);
    nlohmann::json j = run_head_json(run);
    j.update(figures);
    j["warnings"] = warnings;
    write_json(a.stats, with_run_costs(std::move(j), run));
    if (mqc) write_json(mqc->general_stats, multiqc_qv(mqc->sample, figures));
  }
  const double qv = phred_qv(kmer_error_rate(r.missing, r.asm_kmers, r.k));
  spdlog::info("{}: QV {} ({} of {} {}-mers missing from the reads), completeness {}% ({} of {} solid), in {:.1f} s",
               name, awk_number(qv), r.missing, r.asm_kmers, r.k,
               r.solid_distinct ? awk_number(100.0 * static_cast<double>(r.solid_in_asm) /
                                             static_cast<double>(r.solid_distinct))
                                : "na",
               r.solid_in_asm, r.solid_distinct, clock.wall_seconds());
  return kExitOk;
}

}  // namespace

Action setup_qv(CLI::App& sub) {
  auto a = std::make_shared<QvArgs>();
  a->opt.threads = default_threads();
  sub.footer(
      "Writes PREFIX.qv, PREFIX.NAME.qv (per sequence), PREFIX.completeness.stats, PREFIX.NAME.spectra-cn.hist and "
      "PREFIX.NAME.only.hist as Merqury's spectra-cn.sh does; NAME is the assembly's file name without .fa/.fasta "
      "and .gz. k is the read counts' k. Definitions: docs/qv.md.");
  sub.add_option("assembly", a->opt.assembly, "Assembly FASTA (or FASTQ), plain or gzip; read twice, so not stdin")
      ->required();
  sub.add_option("-r,--reads", a->opt.read_counts,
                 "K-mer counts of the reads, sorted, every k-mer (count -c 1 or merge-counts; TSV or KFF, kmc -okff)")
      ->required();
  sub.add_option("-o,--output", a->prefix, "Prefix of the output files")->required();
  sub.add_option("-k,--kmer-size", a->opt.k, "Check that the read counts have this k (default: take theirs)");
  sub.add_option("-t,--threads", a->opt.threads, "Worker threads (default: all cores)")->capture_default_str();
  sub.add_option("-M,--max-memory", a->max_memory,
                 "Memory budget, e.g. 2G or 500M: the assembly's count spills beyond it, and the per-sequence QV may "
                 "keep missing k-mers in a quarter of it, the count gets the rest (exit 5 when either needs more)");
  sub.add_option("--tmp-dir", a->opt.tmp_dir, "Directory for temporary files (default: $TMPDIR, else /tmp)");
  sub.add_option("--solid-threshold", a->opt.solid_threshold,
                 "Read k-mers seen more than this many times are solid (default: the first valley of the read "
                 "histogram, as Merqury chooses it)");
  sub.add_flag("--no-per-sequence", a->no_per_sequence,
               "Skip the per-sequence QV (PREFIX.NAME.qv) and its second read of the assembly");
  sub.add_option("--stats", a->stats, "Write the figures and run statistics as JSON");
  sub.add_option("--sample", a->sample, "Sample name in the MultiQC file written beside --stats");
  sub.add_flag("--no-multiqc", a->no_multiqc, "Do not write the MultiQC custom content file beside --stats");
  sub.add_option("--plot", a->plot, "Write the copy-number spectrum (Merqury's spectra-cn plot) as SVG");
  sub.add_option("--report", a->report, "Write QV, completeness and the copy-number spectrum as a self-contained HTML page");
  add_progress_flags(sub, a->progress);
  return [a] { return run_qv(*a); };
}

}  // namespace kmerbloom::cli
