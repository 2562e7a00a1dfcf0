// kmerbloom bin: the scatter step of counting on a cluster. One chunk of the
// reads, read once, into a bin file of super-k-mers by minimizer bin; count
// then takes bin files as its input (src/count/bins.hpp).
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "cli/progress.hpp"
#include "subcommand.hpp"
#include "seqio/paths.hpp"
#include "count/bins.hpp"

namespace kmerbloom::cli {
namespace {

struct BinArgs {
  ProgressFlags progress;
  BinOptions opt;
  ReadSetArgs reads;
};

int run_bin(BinArgs& a) {
  RunClock clock;
  a.reads.settle(a.opt);
  a.opt.validate();
  check_outputs_first(named_inputs(a.opt.inputs), {{"-o", a.opt.output}}, a.opt.tmp_dir);
  RunProgress progress(a.progress.force(), a.opt.k, input_bytes_total(a.opt.inputs));
  const auto hooks = progress.hooks<CountHooks>(false);
  const BinResult r = write_bins(a.opt, hooks);
  progress.stop();
  if (r.input.kmers == 0)
    spdlog::warn("warning: no k-mers in {} reads (empty input, or every read shorter than k = {})", r.input.reads,
                 a.opt.k);
  spdlog::info("{} reads, {} k-mers into {} bins ({} bytes, the largest bin {} k-mers, {} temporary bytes) in {:.1f} s",
               r.input.reads, r.input.kmers, r.bins, r.bytes, r.largest_bin_kmers, r.spool.disk_bytes,
               clock.wall_seconds());
  return kExitOk;
}

}  // namespace

Action setup_bin(CLI::App& sub) {
  auto a = std::make_shared<BinArgs>();
  sub.footer(
      "Scatter by input, gather by bin: bin each chunk of the reads (a file, or a few) in its own job, then "
      "`kmerbloom count CHUNK*.kbin --partition I/N` counts bins I, I+N, I+2N, ... of every chunk, and "
      "`kmerbloom merge-counts` joins the N outputs into what one count of all the reads writes. Bin every "
      "chunk with the same -k, --bins and strandedness.");
  add_read_set_options(sub, a->opt, a->reads,
                       {.no_canonical = "k-mers as read, not canonical (count needs it too)",
                        .max_memory = "Memory budget, e.g. 2G or 500M: the binned data beyond it goes to temporary files",
                        .tmp_dir = true});
  sub.add_option("-o,--output", a->opt.output, "Bin file to write (.kbin)")->required();
  sub.add_option("--bins", a->opt.bins,
                 "Minimizer bins (default 1024 for k <= 31, more for longer k); the same for every chunk");
  add_progress_flags(sub, a->progress);
  return [a] { return run_bin(*a); };
}

}  // namespace kmerbloom::cli
