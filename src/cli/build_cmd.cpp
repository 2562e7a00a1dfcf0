// kmerbloom build: a Bloom filter file (.kbf) of the k-mers of reads.
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "common/format.hpp"
#include "cli/progress.hpp"
#include "subcommand.hpp"
#include "seqio/paths.hpp"
#include "kbf/kbf.hpp"

namespace kmerbloom::cli {
namespace {

struct BuildArgs {
  ProgressFlags progress;
  BuildOptions opt;
  std::string output;
  ReadSetArgs reads;
};

int run_build(BuildArgs& a) {
  RunClock clock;
  a.reads.settle(a.opt);
  a.opt.validate();
  check_outputs_first(named_inputs(a.opt.inputs), {{"-o", a.output}}, given_tmp_dir(a.opt));
  RunProgress progress(a.progress.force(), a.opt.k, input_bytes_total(a.opt.inputs));
  const auto hooks = progress.hooks<FilterHooks>();
  const BuildResult r = build_filter(a.opt, hooks);
  progress.stop();
  const BuildStats& s = r.stats;
  if (s.over_capacity)
    spdlog::warn("about {} distinct k-mers, more than the {} the filter was sized for (--expected): estimated "
                 "false-positive rate {:.3g}, target {}",
                 s.keys_inserted, s.capacity, s.estimated_fpr, a.opt.fpr);
  write_filter(a.output, r.filter);
  spdlog::info("{} reads, {} k-mers, {}{} distinct k-mers in the filter{} ({} sizing, {}, {} bytes, estimated "
               "false-positive rate {:.3g}) in {:.1f} s",
               s.input.reads, s.input.kmers, s.keys_estimated ? "about " : "", s.keys_inserted,
               s.keys_estimated ? " (estimated from its bits)" : "", to_string(s.sizing),
               plural(r.filter.filter.layers(), "layer"), r.filter.filter.bytes(), s.estimated_fpr, clock.wall_seconds());
  return kExitOk;
}

}  // namespace

Action setup_build(CLI::App& sub) {
  auto a = std::make_shared<BuildArgs>();
  sub.footer(
      "Filters merge (kmerbloom merge) only if built with the same -k, --expected, --fpr and --min-count: "
      "--expected fixes the shape. The union of filters built on chunks of the reads then equals the filter "
      "built on all of them, bit for bit. Without --expected the filter is sized from the data (one more pass; "
      "a filter that grows on stdin).");
  // --tmp-dir: for the count of --min-count >= 2
  add_read_set_options(sub, a->opt, a->reads, {.no_canonical = "k-mers as read, not canonical", .tmp_dir = true});
  sub.add_option("-o,--output", a->output, "Filter file to write (.kbf)")->required();
  sub.add_option("-c,--min-count", a->opt.min_count,
                 "Only k-mers seen at least this often (>= 2: counted exactly first, as count does)")
      ->capture_default_str();
  sub.add_option("--fpr", a->opt.fpr, "Target false-positive rate")->capture_default_str();
  sub.add_option("--expected", a->opt.expected,
                 "Distinct k-mers the filter is sized for; fixes the shape, so that filters merge "
                 "(default: sized from the data)");
  add_progress_flags(sub, a->progress);
  return [a] { return run_build(*a); };
}

}  // namespace kmerbloom::cli
