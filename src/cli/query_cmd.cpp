// kmerbloom query: per read, how many of its k-mers a filter file holds
// (the contamination screen of BioBloom Tools), or a k-mer list's membership.
#include <cstdio>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "cli/progress.hpp"
#include "subcommand.hpp"
#include "seqio/paths.hpp"
#include "formats/output.hpp"
#include "kbf/kbf.hpp"

namespace kmerbloom::cli {
namespace {

struct QueryArgs {
  ProgressFlags progress;
  QueryOptions opt;
  ReadSetArgs reads;
  std::string filter;
  std::string output = "-";
  std::string summary;
  std::string kmers;
};

int run_query(QueryArgs& a) {
  RunClock clock;
  if (a.kmers.empty() == a.opt.inputs.empty())
    throw std::invalid_argument(a.kmers.empty() ? "query needs reads to screen (or --kmers LIST)"
                                                : "give reads or --kmers LIST, not both");
  if (!a.kmers.empty()) a.opt.inputs = {a.kmers};  // validate() wants an input
  a.opt.validate();
  std::vector<NamedPath> ins = named_inputs(a.opt.inputs);
  ins.push_back({"filter", a.filter});
  check_outputs_first(ins, {{"-o", a.output}, {"--summary", a.summary}});
  const LoadedFilter f = open_filter(a.filter);
  check_query_k(f.meta, a.opt.k);

  OutputFile out(a.output);
  QuerySummary s;
  if (!a.kmers.empty()) {
    s = query_kmer_list(f, a.kmers, a.opt.threshold, [&](std::string_view kmer, bool present) {
      out.write(kmer);
      out.write(present ? "\t1\n" : "\t0\n");
    });
  } else {
    out.write("read\tkmers\tkmers_present\tfraction\n");
    RunProgress progress(a.progress.force(a.output), f.meta.k, input_bytes_total(a.opt.inputs));
    progress.pass("screening the reads");
    FilterHooks hooks;
    hooks.progress = &progress.counters;
    s = query_reads(f, a.opt, [&](const ReadHits& r) {
      out.write(r.name);
      out.put('\t');
      out.put_uint(r.kmers);
      out.put('\t');
      out.put_uint(r.present);
      char buf[32];
      const int n = std::snprintf(buf, sizeof buf, "\t%.4f\n", r.fraction());
      out.write(std::string_view(buf, static_cast<size_t>(n)));
    }, hooks);
    progress.stop();
  }
  if (!a.summary.empty())
    write_json(a.summary, query_summary_json(run_info("query", a.kmers.empty() ? a.opt.inputs : std::vector<std::string>{},
                                                      clock),
                                             a.filter, f.meta, s, a.kmers));
  out.commit();
  const char* unit = a.kmers.empty() ? "reads" : "k-mers";
  spdlog::info("{} {}, {} with fraction >= {} ({:.2f}%), mean fraction {:.4f}, {} of {} k-mers present, in {:.1f} s",
               s.reads, unit, s.reads_hit, s.threshold,
               s.reads_with_kmers ? 100.0 * double(s.reads_hit) / double(s.reads_with_kmers) : 0.0, s.mean_fraction,
               s.kmers_present, s.kmers, clock.wall_seconds());
  return kExitOk;
}

}  // namespace

Action setup_query(CLI::App& sub) {
  auto a = std::make_shared<QueryArgs>();
  sub.footer(
      "Output: a TSV with a header, one row per read in input order: read (name up to the first space), kmers, "
      "kmers_present, fraction. With --kmers: KMER<TAB>1 or KMER<TAB>0 per listed k-mer, no header.");
  sub.add_option("filter", a->filter, "Filter file (.kbf) written by kmerbloom build or merge; - reads stdin")->required();
  add_read_set_options(sub, a->opt, a->reads,
                       {.inputs = "FASTA/FASTQ files to screen, plain, gzip or BGZF; - reads stdin",
                        .inputs_required = false,  // or --kmers
                        .k = "Check that the filter's k is this (default: use the filter's k)",
                        .k_shows_default = false});
  sub.add_option("--kmers", a->kmers,
                 "Query a k-mer list instead: one k-mer per line, KMER<TAB>COUNT as count writes it, or a KFF file (.gz or -)");
  sub.add_option("-o,--output", a->output, "Per-read TSV; - is stdout, a name ending in .gz is gzip-compressed")
      ->capture_default_str();
  sub.add_option("--summary", a->summary, "Write the summary as JSON (it always goes to stderr unless -q)");
  sub.add_option("--threshold", a->opt.threshold, "A read is a hit when this fraction of its k-mers is present")
      ->capture_default_str();
  add_progress_flags(sub, a->progress);
  return [a] { return run_query(*a); };
}

}  // namespace kmerbloom::cli
