// kmerbloom estimate: F0, F1 and the low histogram rows from a one-pass sample
// (ntCard's job), as a TSV table and/or JSON.
#include <cmath>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "cli/progress.hpp"
#include "subcommand.hpp"
#include "seqio/paths.hpp"
#include "formats/output.hpp"
#include "estimate/cardinality.hpp"
#include "kmer/hash.hpp"

namespace kmerbloom::cli {
namespace {

struct EstimateArgs {
  ProgressFlags progress;
  EstimateOptions opt;
  std::string output = "-";
  std::string format = "tsv";
  std::string json;
  ReadSetArgs reads;
};

uint64_t as_count(double x) { return static_cast<uint64_t>(std::llround(x)); }

// ntCard's table, with the histogram rows named f1, f2, ...
void write_table(const std::string& path, const KmerSpectrumEstimate& e) {
  OutputFile out(path);
  out.write("F1\t");
  out.put_uint(e.kmers_total);
  out.write("\nF0\t");
  out.put_uint(as_count(e.distinct));
  out.put('\n');
  for (size_t i = 1; i < e.f.size(); ++i) {
    out.put('f');
    out.put_uint(i);
    out.put('\t');
    out.put_uint(as_count(e.f[i]));
    out.put('\n');
  }
  out.commit();
}

int run_estimate(EstimateArgs& a) {
  RunClock clock;
  a.reads.settle(a.opt);
  a.opt.validate();  // before any output file is created
  check_outputs_first(named_inputs(a.opt.inputs), {{"-o", a.output}, {"--json", a.json}});

  RunProgress progress(a.progress.force(), a.opt.k, input_bytes_total(a.opt.inputs));
  progress.pass("sampling the k-mers");
  const EstimateResult r = estimate_kmers(a.opt, &progress.counters);
  progress.stop();
  const KmerSpectrumEstimate& e = r.spectrum;
  if (a.format == "json") {
    write_json(a.output, estimate_stats_json(run_info("estimate", a.opt.inputs, clock), a.opt, r));
  } else {
    write_table(a.output, e);
  }
  if (!a.json.empty()) write_json(a.json, estimate_stats_json(run_info("estimate", a.opt.inputs, clock), a.opt, r));

  // "+-1.23%", or why there is no such number (a row with too few samples).
  auto error_of = [](double rse) {
    return std::isfinite(rse) ? fmt::format("+-{:.2f}%", 100 * rse) : std::string("too few sampled for an error bar");
  };
  if (e.kmers_total == 0)
    spdlog::warn("warning: no k-mers in {} reads (empty input, or every read shorter than k = {})", r.input.reads,
                 a.opt.k);
  if (e.exact) {
    spdlog::info("{} reads, {} k-mers, {} distinct, {} singletons (exact: every k-mer sampled) in {:.1f} s",
                 r.input.reads, e.kmers_total, as_count(e.distinct), as_count(e.f[1]), clock.wall_seconds());
  } else {
    spdlog::info("{} reads, {} k-mers, ~{} distinct ({}), ~{} singletons ({}), 1 in {} sampled, in {:.1f} s",
                 r.input.reads, e.kmers_total, as_count(e.distinct), error_of(e.relative_std_error),
                 as_count(e.f[1]), error_of(e.row_relative_std_error(1)), uint64_t{1} << e.sampling_depth,
                 clock.wall_seconds());
  }
  return kExitOk;
}

}  // namespace

Action setup_estimate(CLI::App& sub) {
  auto a = std::make_shared<EstimateArgs>();
  add_read_set_options(sub, a->opt, a->reads, {.no_canonical = "Count k-mers as read, not canonical"});
  sub.add_option("-o,--output", a->output, "Estimate table (F1, F0, f1..fN) or JSON; - is stdout")
      ->capture_default_str();
  sub.add_option("--format", a->format, "tsv (NAME<TAB>VALUE rows) or json")
      ->check(CLI::IsMember({"tsv", "json"}))
      ->capture_default_str();
  sub.add_option("--json", a->json, "Also write the estimate with its sampling rate and errors as JSON");
  sub.add_option("--max-row", a->opt.max_row, "Last histogram row reported (f1..fN)")->capture_default_str();
  sub.add_option("--sample-log2", a->opt.sample_log2,
                 "Keep at most 2^N k-mers per thread in the sample (error ~ 2^(-N/2); exact below that)")
      ->capture_default_str();
  add_progress_flags(sub, a->progress);
  return [a] { return run_estimate(*a); };
}

}  // namespace kmerbloom::cli
