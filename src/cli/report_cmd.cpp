// kmerbloom report: the HTML report (and the spectrum plot as SVG) from the
// --stats JSON of a count run.
#include <algorithm>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "subcommand.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "profile/genome_model.hpp"
#include "profile/genome_plot.hpp"
#include "report/count_summary.hpp"
#include "report/report.hpp"
#include "report/spectrum.hpp"
#include "report/stats.hpp"

namespace kmerbloom::cli {
namespace {

struct ReportArgs {
  std::string stats;
  std::string output;
  std::string histo;
  std::string plot;
  CLI::Option* output_option = nullptr;  // to tell whether -o was given
};

// A histogram of another run would draw another sample's spectrum under
// these statistics: the k-mers seen twice or more must agree (row 1 may be
// estimated, so it is left out).
void check_same_run(const nlohmann::json& stats, const std::vector<uint64_t>& histogram, const ReportArgs& a) {
  const auto distinct = stats.find(stats_key::kmers_distinct), singletons = stats.find(stats_key::kmers_singleton);
  if (distinct == stats.end() || singletons == stats.end() || !distinct->is_number_unsigned() ||
      !singletons->is_number_unsigned())
    return;
  const uint64_t repeated = distinct->get<uint64_t>() - std::min(distinct->get<uint64_t>(), singletons->get<uint64_t>());
  uint64_t rows = 0;
  for (size_t c = 2; c < histogram.size(); ++c) rows += histogram[c];
  if (rows != repeated)
    throw InputError(a.histo + " holds " + std::to_string(rows) + " k-mers seen twice or more, but " +
                     display_name(a.stats) + " counted " + std::to_string(repeated) +
                     ": they come from different runs; give the histogram of the same run, or leave --histo out "
                     "(the statistics hold their own)");
}

int run_report(ReportArgs a) {
  if (a.output.empty() && a.plot.empty()) a.output = "-";  // like every output of kmerbloom: stdout by default
  check_outputs_first({{"input", a.stats}, {"--histo", a.histo}}, {{"-o", a.output}, {"--plot", a.plot}});
  if (!a.output.empty()) refuse_terminal_stdout(*a.output_option, a.output, "the HTML page");
  const nlohmann::json stats = read_stats_file(a.stats);

  std::vector<uint64_t> histogram;
  if (!a.histo.empty()) {
    histogram = read_histogram_file(a.histo);
  } else {
    histogram = embedded_histogram(stats, a.stats);
  }
  bool any = false;
  for (size_t c = 1; c < histogram.size() && !any; ++c) any = histogram[c] != 0;
  if (!any && !a.plot.empty())
    throw InputError((a.histo.empty() ? a.stats + ": no histogram (histogram.rows)" : a.histo + ": empty histogram") +
                     "; --plot needs one: give --histo PATH");
  check_count_stats(stats, display_name(a.stats));
  if (!a.histo.empty()) check_same_run(stats, histogram, a);
  if (!any) spdlog::warn("{}: no histogram (histogram.rows): the report has no spectrum; give --histo PATH", a.stats);

  const SpectrumAnalysis s = analyze_stats_spectrum(stats, histogram);  // once, for the page, the plot and the log
  // A count run with --ploidy fitted the genome profile: drawn from what it
  // fitted, as count's own report drew it.
  std::string profile_section;
  if (auto p = stats.find("profile"); any && p != stats.end()) {
    try {
      profile_section = profile_report_section(histogram, profile_from_json(*p));
    } catch (const std::invalid_argument& e) {
      throw InputError(a.stats + ": " + e.what());
    }
  }
  if (!a.output.empty()) write_report_html(stats, histogram, s, a.output, profile_section);
  if (!a.plot.empty()) write_spectrum_svg(stats, histogram, s, a.plot);
  if (any) {
    if (s.has_peak)
      spdlog::info("k-mer spectrum: peak coverage {:.1f}x, genome size about {}, {:.1f}% of distinct k-mers erroneous",
                   s.peak_coverage, format_bases(s.genome_size), 100 * s.error_distinct_share);
    for (const auto& w : s.warnings) spdlog::warn("k-mer spectrum: {}", w);
  }
  return kExitOk;
}

}  // namespace

Action setup_report(CLI::App& sub) {
  auto a = std::make_shared<ReportArgs>();
  sub.add_option("stats", a->stats, "Statistics JSON written by kmerbloom count --stats (- reads stdin)")->required();
  a->output_option = sub.add_option(
      "-o,--output", a->output, "Write the self-contained HTML report here (default: stdout, unless --plot alone is asked)");
  sub.add_option("--histo", a->histo,
                 "Histogram in jellyfish histo form (COUNT FREQUENCY lines), instead of the one in the statistics");
  sub.add_option("--plot", a->plot, "Write the k-mer spectrum plot alone as SVG");
  return [a] { return run_report(*a); };
}

}  // namespace kmerbloom::cli
