// kmerbloom profile: genome length, heterozygosity, repeats, read error rate
// and k-mer coverage fitted to a k-mer histogram (GenomeScope 2.0's model).
#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <string_view>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "subcommand.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/histogram_file.hpp"
#include "formats/output.hpp"
#include "profile/genome_model.hpp"
#include "profile/genome_plot.hpp"
#include "report/report.hpp"
#include "report/stats.hpp"

namespace kmerbloom::cli {
namespace {

struct ProfileArgs {
  std::string input, output = "-", stats, plot, report, sample, hetmers;
  unsigned k = 0, ploidy = 2;
  bool no_multiqc = false;
};

nlohmann::json multiqc_profile(const std::string& sample, const nlohmann::json& figures) {
  nlohmann::json row = nlohmann::json::object();
  for (const char* key : {"genome_length", "heterozygosity", "kmer_coverage", "error_rate", "model_fit"}) {
    const nlohmann::json& v = figures.at(key);  // at(): a renamed key throws
    if (!v.is_number()) continue;
    const bool share = std::string_view(key) != "genome_length" && std::string_view(key) != "kmer_coverage";
    row[key] = share ? 100 * v.get<double>() : v.get<double>();
  }
  return multiqc_general_stats_section(
      "kmerbloom_profile", "kmerbloom profile", "genome profile fitted to the k-mer spectrum by kmerbloom profile",
      {{"genome_length", "Genome length", "haploid genome length fitted to the k-mer spectrum", "{:,.0f}"},
       {"heterozygosity", "% Het", "heterozygous bases (all haplotypes not agreeing), percent", "{:,.3f}"},
       {"kmer_coverage", "k-mer cov", "k-mer coverage of one haplotype's copy", "{:,.1f}"},
       {"error_rate", "% Read errors", "read error rate per base, percent", "{:,.3f}"},
       {"model_fit", "% Model fit", "share of the fitted rows the model explains, percent", "{:,.1f}"}},
      sample, row);
}

// A statistics file of count (JSON) or a histogram file (COUNT FREQUENCY rows).
bool looks_like_json(const std::string& path) {
  if (path == "-") return false;
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c))
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c == '{';
  return false;
}

// What hetmers' densest smudge says beside the fit: its ploidy and the
// haploid coverage it implies, and whether they agree with the fit.
struct SmudgeSays {
  unsigned ploidy = 0;
  std::string structure, note;
  double haploid_coverage = 0;
};

SmudgeSays read_hetmers_stats(const std::string& path) {
  const nlohmann::json j = read_stats_file(path);
  SmudgeSays s;
  try {
    if (j.value("command", "") != "hetmers") throw InputError(path + ": not the statistics of kmerbloom hetmers (--stats)");
    const nlohmann::json& peak = j.at("smudge_peak");
    s.note = peak.at("note").get<std::string>();
    if (peak.at("ploidy").is_number_unsigned()) {
      s.ploidy = peak.at("ploidy").get<unsigned>();
      s.structure = peak.at("structure").get<std::string>();
      s.haploid_coverage = peak.at("haploid_coverage").get<double>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": smudge_peak: " + e.what());
  }
  return s;
}

nlohmann::json compare_with_smudge(const SmudgeSays& h, const GenomeProfile& p, std::vector<std::string>& notes) {
  nlohmann::json j = {{"ploidy", h.ploidy ? nlohmann::json(h.ploidy) : nlohmann::json()},
                      {"structure", h.ploidy ? nlohmann::json(h.structure) : nlohmann::json()},
                      {"haploid_coverage", h.ploidy ? nlohmann::json(h.haploid_coverage) : nlohmann::json()}};
  bool agrees = h.ploidy != 0 && p.fitted;
  if (!h.ploidy) notes.push_back("the het-mer pairs suggest no ploidy (" + h.note + ")");
  if (h.ploidy && h.ploidy != p.ploidy) {
    agrees = false;
    notes.push_back("the het-mer pairs' densest smudge (" + h.structure + ") suggests ploidy " + std::to_string(h.ploidy) +
                    ", the model was fitted at " + std::to_string(p.ploidy) + ": fit at " + std::to_string(h.ploidy) +
                    " too, and compare the model fits");
  }
  if (h.ploidy && p.fitted && std::abs(h.haploid_coverage / p.kmer_coverage - 1) > 0.15) {
    agrees = false;
    notes.push_back("the smudge's haploid coverage (" + std::to_string(h.haploid_coverage) +
                    "x) is not the fitted k-mer coverage (" + std::to_string(p.kmer_coverage) +
                    "x): one of them read the peak at another copy number");
  }
  j["agrees"] = agrees;
  return j;
}

int run_profile(ProfileArgs a, const CLI::Option& k_option, const CLI::Option& ploidy_option) {
  RunClock clock;
  std::vector<NamedPath> outs = {{"-o", a.output}, {"--stats", a.stats}, {"--plot", a.plot},
                                 {"--report", a.report}};
  const bool from_stats = looks_like_json(a.input);
  std::optional<MultiqcPaths> mqc;
  if (!a.stats.empty() && a.stats != "-" && !a.no_multiqc) {
    mqc = multiqc_paths(a.stats);
    if (!a.sample.empty()) mqc->sample = a.sample;
    outs.push_back({"--stats (its MultiQC file; --no-multiqc writes none)", mqc->general_stats});
  }
  check_outputs_first({{"input", a.input}, {"--hetmers", a.hetmers}}, outs);
  std::optional<SmudgeSays> smudge;
  if (!a.hetmers.empty()) {
    smudge = read_hetmers_stats(a.hetmers);
    if (!ploidy_option.count() && smudge->ploidy) {
      a.ploidy = smudge->ploidy;
      spdlog::info("ploidy {}: the het-mer pairs' densest smudge is {} ({})", a.ploidy, smudge->structure, a.hetmers);
    }
  }
  ProfileOptions o;
  std::vector<uint64_t> histogram;
  if (from_stats) {
    const nlohmann::json stats = read_stats_file(a.input);
    check_count_stats(stats, display_name(a.input));
    histogram = embedded_histogram(stats, a.input);
    if (histogram.empty())
      throw InputError(a.input + ": no histogram (histogram.rows): count with --stats keeps one; or give the --histo file");
    o = profile_options_from_stats(stats, histogram, a.ploidy);
    if (o.k && k_option.count() && a.k != o.k)
      throw std::invalid_argument("-k " + std::to_string(a.k) + " but " + a.input + " counted " + std::to_string(o.k) +
                                  "-mers: leave -k out");
  } else {
    const HistogramFile hf = read_histogram(a.input);
    histogram = hf.frequency;
    o.ploidy = a.ploidy;
    o.last_row_overflow = hf.dense;  // kmerbloom's histogram ends with its overflow row
    if (!k_option.count())
      throw std::invalid_argument("-k is required with a histogram file (" + display_name(a.input) +
                                  " does not say its k): give the k it was counted with");
  }
  if (o.k == 0) o.k = a.k;

  GenomeProfile p = fit_genome_profile(histogram, o);
  nlohmann::json smudge_json;
  if (smudge) smudge_json = compare_with_smudge(*smudge, p, p.notes);
  for (const auto& r : p.readings) spdlog::debug("fitted reading: {}", r);
  for (const auto& n : p.notes) spdlog::warn("{}: {}", display_name(a.input), n);
  if (!p.fitted) spdlog::warn("{}: not fitted: {}", display_name(a.input), p.verdict);
  else
    spdlog::info("genome {} (haploid), heterozygosity {:.3f}%, k-mer coverage {:.1f}x, error rate {:.3f}%, model fit {:.1f}%",
                 format_bases(p.genome_length), 100 * p.heterozygosity, p.kmer_coverage, 100 * p.error_rate,
                 100 * p.model_fit);

  if (!a.output.empty()) {
    OutputFile out(a.output);
    out.write(profile_summary(p, display_name(a.input)));
    out.commit();
  }
  if (!a.stats.empty()) {
    const nlohmann::json figures = profile_json(p);
    const RunInfo run = run_info("profile", {a.input}, clock);
    nlohmann::json j = run_head_json(run);
    j.update(figures);
    if (smudge) j["hetmers"] = smudge_json;
    write_json(a.stats, with_run_costs(std::move(j), run));
    if (mqc) write_json(mqc->general_stats, multiqc_profile(mqc->sample, figures));
  }
  if (!a.plot.empty()) write_profile_svg(histogram, p, display_name(a.input), a.plot);
  if (!a.report.empty()) {
    OutputFile html(a.report);
    html.write(profile_report_html(histogram, p, !a.sample.empty() ? a.sample : mqc ? mqc->sample : display_name(a.input)));
    html.commit();
  }
  return kExitOk;
}

}  // namespace

Action setup_profile(CLI::App& sub) {
  auto a = std::make_shared<ProfileArgs>();
  sub.add_option("input", a->input,
                 "Histogram (COUNT FREQUENCY rows: kmerbloom --histo, jellyfish histo, kmc_tools histogram, FastK "
                 "Histex -G), or count's --stats JSON; - reads stdin")
      ->required();
  CLI::Option* k = sub.add_option("-k", a->k, "k-mer length the histogram was counted with (read from a stats file)")
                       ->check(CLI::Range(1, 255));
  CLI::Option* ploidy =
      sub.add_option("-p,--ploidy", a->ploidy, "Ploidy of the genome, 1 to 6 (default: the --hetmers smudge's, else 2)")
          ->check(CLI::Range(1, 6))
          ->capture_default_str();
  sub.add_option("--hetmers", a->hetmers,
                 "Statistics of kmerbloom hetmers (--stats) on the same reads: their ploidy unless -p is given, and "
                 "whether the smudge and the fit agree");
  sub.add_option("-o,--output", a->output, "Write the summary here (GenomeScope's layout; default: stdout, \"\" for none)")
      ->capture_default_str();
  sub.add_option("--stats", a->stats, "Write the fitted model and the run as JSON (docs/profile.md)");
  sub.add_option("--sample", a->sample, "Sample name in the MultiQC file written beside --stats (default: as count names it)");
  sub.add_flag("--no-multiqc", a->no_multiqc, "Do not write the MultiQC custom content file beside --stats");
  sub.add_option("--plot", a->plot, "Write the spectrum with the fitted model and its copies as SVG");
  sub.add_option("--report", a->report,
                 "Write the figures (each het form's share at ploidy 3 and up) and the plot as a self-contained HTML page");
  return [a, k, ploidy] { return run_profile(*a, *k, *ploidy); };
}

}  // namespace kmerbloom::cli
