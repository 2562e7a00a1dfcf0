// kmerbloom filter: options, output files, statistics. The work is
// filter_reads (normalize/read_filter.hpp).
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "subcommand.hpp"
#include "formats/count_file.hpp"
#include "formats/output.hpp"
#include "cli/progress.hpp"
#include "normalize/read_filter.hpp"
#include "seqio/paths.hpp"

namespace kmerbloom::cli {
namespace {

struct FilterArgs {
  ReadFilterOptions opt;
  std::string output = "-";
  std::string output2;
  std::string stats;
  bool no_normalize = false;
  bool drop_weak = false;
  bool trim_weak = false;
  ReadSetArgs reads;
  CLI::Option* min_count_option = nullptr;  // to tell whether -c was given
  CLI::Option* output_option = nullptr;     // and -o
  bool unpaired = false;
  ProgressFlags progress;
};

// Two paths that differ only in one '1' against a '2' (reads_R1.fq.gz and
// reads_R2.fq.gz): the mates of one library.
bool mate_names(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  size_t differ = 0, at = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) ++differ, at = i;
  return differ == 1 && a[at] == '1' && b[at] == '2';
}

// Mates filtered apart lose each other; one file given as both mates is a typo.
void check_mates(const FilterArgs& a) {
  const std::vector<std::string>& in = a.opt.inputs;
  if (in.size() != 2 || a.opt.interleaved) return;
  if (!a.output2.empty() && same_file(in[0], in[1]))
    throw std::invalid_argument(in[0] + " and " + in[1] + " are the same file, given as mate 1 and mate 2 (-O): "
                                "give the R2 file second");
  if (a.output2.empty() && !a.unpaired && mate_names(in[0], in[1]))
    throw std::invalid_argument(in[0] + " and " + in[1] +
                                " look like the mates of one library, but no -O was given: filtered as single reads, "
                                "kept reads would lose their mates. Give -O FILE for the kept mates 2 (pairs are kept "
                                "or dropped together), or --unpaired to filter them as single reads");
}

int run_filter(FilterArgs& a) {
  RunClock clock;
  ReadFilterOptions& o = a.opt;
  o.normalize = !a.no_normalize;
  a.reads.settle(o);
  if (a.drop_weak && a.trim_weak) throw std::invalid_argument("--drop-weak and --trim-weak exclude each other");
  o.weak = a.drop_weak ? WeakMode::drop : a.trim_weak ? WeakMode::trim : WeakMode::none;
  if (o.weak == WeakMode::none && a.min_count_option->count() > 0)
    throw std::invalid_argument("-c/--min-count applies to weak k-mers only: add --drop-weak or --trim-weak "
                                "(normalization alone is set with -C/--target-coverage)");
  if (!a.output2.empty()) {
    if (o.interleaved)
      o.split_mates = true;
    else
      o.paired_files = true;
    if (a.output2 == a.output) throw std::invalid_argument("-o and -O name the same output: " + a.output);
  }
  // k from the --solid file when -k is not given, as qv and hetmers take theirs.
  if (!o.solid_path.empty() && o.solid_path != "-" && a.reads.k_option->count() == 0) {
    const auto in = open_count_file(o.solid_path);
    KmerCount first;
    if (in->declared_k() != 0)
      o.k = in->declared_k();
    else if (in->next(first) && !first.kmer.empty())
      o.k = static_cast<unsigned>(first.kmer.size());
  }
  o.validate();  // before any output file is created
  std::vector<NamedPath> ins = named_inputs(o.inputs);
  ins.push_back({"--solid", o.solid_path});
  check_outputs_first(ins, {{"-o", a.output}, {"-O", a.output2}, {"--stats", a.stats}}, given_tmp_dir(o));
  check_mates(a);
  refuse_terminal_stdout(*a.output_option, a.output, "the kept reads");

  OutputFile out1(a.output);
  std::unique_ptr<OutputFile> out2;
  if (!a.output2.empty()) out2 = std::make_unique<OutputFile>(a.output2);
  const ReadFilterSink sink = [&](unsigned stream, std::string_view text) {
    (stream == 0 || !out2 ? out1 : *out2).write(text);
  };
  RunProgress progress(a.progress.force(a.output), o.k, input_bytes_total(o.inputs));
  const auto hooks = progress.hooks<ReadFilterHooks>();
  const ReadFilterResult r = filter_reads(o, sink, hooks);
  progress.stop();

  if (!a.stats.empty()) {
    const std::vector<std::string> outputs =
        a.output2.empty() ? std::vector<std::string>{a.output} : std::vector<std::string>{a.output, a.output2};
    write_json(a.stats, filter_stats_json(run_info("filter", o.inputs, clock), o, r, outputs));
  }
  if (out2) out2->commit();
  out1.commit();
  const double pct = r.in.reads ? 100.0 * double(r.out.reads) / double(r.in.reads) : 0.0;
  spdlog::info("{} of {} reads kept ({:.1f}%): {} above coverage, {} weak, {} short; {} trimmed; in {:.1f} s",
               r.out.reads, r.in.reads, pct, r.above_coverage.reads, r.weak.reads, r.short_reads.reads,
               r.trimmed_reads, clock.wall_seconds());
  if (r.sketch.used)
    spdlog::debug("sketch {} bytes, estimated collision rate {:.4f}", r.sketch.bytes, r.sketch.fill.collision_rate);
  return kExitOk;
}

}  // namespace

Action setup_filter(CLI::App& sub) {
  auto a = std::make_shared<FilterArgs>();
  add_read_set_options(
      sub, a->opt, a->reads,
      {.inputs = "FASTA/FASTQ files (plain, gzip or BGZF; - reads stdin); R1 R2 with -O",
       .max_memory =
           "Upper bound on the abundance sketch and its gate together: 500M, 4G (K, M, G, T: binary units; plain bytes)",
       .max_memory_default = "1G",
       .tmp_dir = true});  // for the first pass of --drop-weak / --trim-weak
  a->output_option = sub.add_option("-o,--output", a->output,
                                    "Kept reads (mate 1 with -O); - is stdout (not a terminal unless given), a name "
                                    "ending in .gz is gzip-compressed")
                         ->capture_default_str();
  sub.add_option("-O,--output2", a->output2,
                 "Kept mate 2 reads: makes two inputs paired files (read in lockstep), or splits --interleaved input");
  sub.add_flag("--unpaired", a->unpaired,
               "Two inputs named like mates (R1, R2) are filtered as single reads, without -O");
  sub.add_flag("--interleaved", a->opt.interleaved, "Input records alternate mate 1, mate 2; pairs kept together");
  sub.add_option("-C,--target-coverage", a->opt.target_coverage,
                 "Digital normalization: keep a read while the median abundance of its k-mers is below this")
      ->capture_default_str();
  sub.add_flag("--no-normalize", a->no_normalize, "No digital normalization (with --drop-weak or --trim-weak)");
  sub.add_flag("--drop-weak", a->drop_weak, "Drop reads holding a k-mer seen fewer than --min-count times");
  sub.add_flag("--trim-weak", a->trim_weak, "Cut reads before their first k-mer seen fewer than --min-count times");
  a->min_count_option = sub.add_option("-c,--min-count", a->opt.min_count,
                                       "Weak k-mers occur fewer times than this (with --drop-weak or --trim-weak)")
                            ->capture_default_str();
  sub.add_option("--solid", a->opt.solid_path,
                 "Solid k-mers from `kmerbloom count` (TSV, FASTA or KFF, .gz too; KMC's -okff too) instead of a first pass");
  sub.add_option("--expected", a->opt.expected_kmers,
                 "K-mers expected to be counted twice or more; sizes the abundance sketch (default: estimated)");
  sub.add_option("--stats", a->stats, "Write run statistics as JSON");
  add_progress_flags(sub, a->progress);
  return [a] { return run_filter(*a); };
}

}  // namespace kmerbloom::cli
