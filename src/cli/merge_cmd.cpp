// kmerbloom merge: union (or intersection) of filter files of the same shape.
#include <algorithm>
#include <limits>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "subcommand.hpp"
#include "common/format.hpp"
#include "kbf/kbf.hpp"

namespace kmerbloom::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  bool intersect = false;
};

int run_merge(const MergeArgs& a) {
  RunClock clock;
  check_outputs_first(named_inputs(a.inputs), {{"-o", a.output}});
  FilterCombiner combiner(a.intersect ? SetOp::intersection : SetOp::union_of);
  double smallest = std::numeric_limits<double>::infinity();  // the fewest k-mers of an input
  for (const auto& path : a.inputs) {  // one input in memory at a time
    const LoadedFilter f = open_filter(path);
    smallest = std::min(smallest, f.filter.estimated_keys());
    combiner.add(f, display_name(path));
  }
  const LoadedFilter merged = combiner.result();
  write_filter(a.output, merged);
  if (a.intersect)
    // The bits set in every input are also set by different k-mers of each:
    // their count says nothing of the k-mers in common, only that there are
    // no more than the smallest input holds.
    spdlog::info("intersection of {}: at most {:.0f} k-mers in common (the smallest input's); the filter answers "
                 "k-mers present in every input, estimated false-positive rate {:.3g}, in {:.1f} s",
                 plural(a.inputs.size(), "filter"), smallest, merged.filter.estimated_fpr(), clock.wall_seconds());
  else
    spdlog::info("union of {}: about {:.0f} distinct k-mers, estimated false-positive rate {:.3g}, in {:.1f} s",
                 plural(a.inputs.size(), "filter"), merged.filter.estimated_keys(), merged.filter.estimated_fpr(),
                 clock.wall_seconds());
  return kExitOk;
}

}  // namespace

Action setup_merge(CLI::App& sub) {
  auto a = std::make_shared<MergeArgs>();
  sub.footer(
      "Filters must have the same shape: built with the same -k, --expected, --fpr and --min-count "
      "(kmerbloom info shows it); otherwise the error names the parameter that differs.");
  sub.add_option("inputs", a->inputs, "Filter files (.kbf); - reads stdin")->required();
  sub.add_option("-o,--output", a->output, "Merged filter file to write")->required();
  sub.add_flag("--intersect", a->intersect, "Keep the k-mers present in every input (default: in any)");
  return [a] { return run_merge(*a); };
}

}  // namespace kmerbloom::cli
