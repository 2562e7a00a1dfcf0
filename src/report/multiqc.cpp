// MultiQC custom content for count --stats (see report.hpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "report/count_summary.hpp"
#include "report/report.hpp"

namespace kmerbloom {

namespace {

// A reads file's name without its folder and its extensions: reads.fq.gz -> reads.
std::string stem_of_reads(const std::string& path) {
  std::string s = std::filesystem::path(path).filename().string();
  for (const char* ext : {".gz", ".bgz", ".bz2", ".xz", ".zst"})
    if (s.ends_with(ext)) s.resize(s.size() - std::strlen(ext));
  for (const char* ext : {".fastq", ".fq", ".fasta", ".fa", ".fna", ".kbin", ".txt"})
    if (s.ends_with(ext)) s.resize(s.size() - std::strlen(ext));
  return s;
}

}  // namespace

std::string sample_of_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> stems;
  for (const std::string& in : inputs) {
    if (in == "-") return "";
    stems.push_back(stem_of_reads(in));
  }
  if (stems.empty()) return "";
  // The common start of the names, then without a mate or lane mark left
  // hanging: x_R1/x_R2 -> "x_R" -> "x"; lane_1/lane_2 -> "lane_" -> "lane".
  std::string common = stems.front();
  for (const std::string& s : stems) {
    size_t n = 0;
    while (n < common.size() && n < s.size() && common[n] == s[n]) ++n;
    common.resize(n);
  }
  if (stems.size() > 1) {
    if (common.ends_with("R") && common.size() > 1 && std::strchr("_.-", common[common.size() - 2])) common.pop_back();
    while (!common.empty() && std::strchr("_.-", common.back())) common.pop_back();
  }
  return common;
}

MultiqcPaths multiqc_paths(const std::string& stats_path, const std::vector<std::string>& inputs) {
  std::string prefix = stats_path;
  if (prefix.size() > 5 && prefix.ends_with(".json")) prefix.resize(prefix.size() - 5);
  MultiqcPaths p;
  p.general_stats = prefix + "_mqc.json";
  p.spectrum = prefix + "_spectrum_mqc.json";
  p.sample = std::filesystem::path(prefix).filename().string();
  for (const std::string_view tail : {".stats", "_stats", ".profile", ".qv", ".hetmers", ".sets"})
    if (p.sample.size() > tail.size() && p.sample.ends_with(tail)) {
      p.sample.resize(p.sample.size() - tail.size());
      break;
    }
  if (p.sample.empty() || p.sample == "-") p.sample = "kmerbloom";
  if (const std::string reads = sample_of_inputs(inputs); !reads.empty()) p.sample = reads;
  return p;
}

nlohmann::json multiqc_general_stats_section(const std::string& id, const std::string& section,
                                             const std::string& description,
                                             const std::vector<MultiqcColumn>& columns, const std::string& sample,
                                             const nlohmann::json& row) {
  nlohmann::json pconfig = nlohmann::json::array();
  for (const MultiqcColumn& c : columns) {
    nlohmann::json col = {{"title", c.title}, {"description", c.description}};
    if (c.format) col["format"] = c.format;
    pconfig.push_back({{c.key, col}});
  }
  return {{"id", id},
          {"section_name", section},
          {"description", description},
          {"plot_type", "generalstats"},
          {"pconfig", pconfig},
          {"data", {{sample, row}}}};
}

nlohmann::json multiqc_general_stats(const std::string& sample, const nlohmann::json& stats) {
  const nlohmann::json spectrum = stats.value("spectrum", nlohmann::json::object());
  nlohmann::json row = nlohmann::json::object();
  for (const char* key : {stats_key::reads, stats_key::kmers_distinct, stats_key::kmers_solid})
    if (stats.contains(key)) row[key] = stats[key];
  if (spectrum.value("genome_size", nlohmann::json()).is_number()) {
    row["genome_size"] = spectrum["genome_size"];
    row["peak_coverage"] = spectrum["peak_coverage"];
  }
  if (spectrum.contains("reliable"))
    row["spectrum"] = spectrum.value("reliable", false) ? "reliable" : "not reliable";
  if (spectrum.value("error_trough", nlohmann::json()).is_number() && spectrum.contains("error_kmers_distinct_share"))
    row["error_share"] = 100.0 * spectrum["error_kmers_distinct_share"].get<double>();
  // The genome profile, when count fitted one (--ploidy) and it fitted.
  if (const auto p = stats.find("profile"); p != stats.end() && p->is_object() && p->value("fitted", false)) {
    row["profile_genome_length"] = p->at("genome_length");
    if (p->at("heterozygosity").is_number()) row["profile_heterozygosity"] = 100.0 * p->at("heterozygosity").get<double>();
  }
  return multiqc_general_stats_section(
      "kmerbloom", "kmerbloom", "k-mer counts and spectrum from kmerbloom count",
      {{stats_key::reads, "Reads", "reads read", "{:,.0f}"},
       {stats_key::kmers_distinct, "Distinct k-mers", "distinct k-mers (F0)", "{:,.0f}"},
       {stats_key::kmers_solid, "Solid k-mers", "k-mers reported (seen at least --min-count times)", "{:,.0f}"},
       {"genome_size", "Genome size", "genome size estimated from the k-mer spectrum, bases", "{:,.0f}"},
       {"peak_coverage", "k-mer coverage", "coverage at the main peak of the k-mer spectrum", "{:,.1f}"},
       {"error_share", "% error k-mers", "share of distinct k-mers below the error trough", "{:,.1f}"},
       {"profile_genome_length", "Genome length", "haploid genome length of the fitted genome model (count --ploidy)", "{:,.0f}"},
       {"profile_heterozygosity", "% Het", "heterozygosity of the fitted genome model, percent", "{:,.3f}"},
       {"spectrum", "Spectrum", "reliable, or not reliable for a genome size (the statistics say why)", nullptr}},
      sample, row);
}

nlohmann::json multiqc_spectrum(const std::string& sample, const nlohmann::json& stats,
                                const std::vector<uint64_t>& histogram) {
  const nlohmann::json spectrum = stats.value("spectrum", nlohmann::json::object());
  double peak = 0;
  if (spectrum.value("peak_coverage", nlohmann::json()).is_number()) peak = spectrum["peak_coverage"].get<double>();
  size_t last = histogram.empty() ? 0 : histogram.size() - 1;
  const nlohmann::json h = stats.value("histogram", nlohmann::json::object());
  if (h.value("overflow_row", nlohmann::json()).is_number_unsigned() && h["overflow_row"].get<size_t>() <= last)
    last = h["overflow_row"].get<size_t>() - 1;
  last = std::min<size_t>(last, std::max<size_t>(200, static_cast<size_t>(std::ceil(3 * peak))));
  nlohmann::json curve = nlohmann::json::object();
  for (size_t c = 1; c <= last; ++c)
    if (histogram[c]) curve[std::to_string(c)] = histogram[c];
  const unsigned k = stats.value("k", 0u);
  const bool estimated = h.contains("estimated_rows") && h["estimated_rows"].is_array() && !h["estimated_rows"].empty();
  return {{"id", "kmerbloom_spectrum"},
          {"section_name", "k-mer spectrum"},
          {"description", "distinct " + (k ? std::to_string(k) + "-mers" : std::string("k-mers")) +
                              " per count, from kmerbloom count" +
                              (estimated ? " (row 1 estimated: see its statistics)" : " (every row exact)")},
          {"plot_type", "linegraph"},
          {"pconfig",
           {{"id", "kmerbloom_spectrum_plot"},
            {"title", "kmerbloom: k-mer spectrum"},
            {"xlab", "count (times a k-mer was seen)"},
            {"ylab", "distinct k-mers"},
            {"logswitch", true},
            {"logswitch_active", true}}},
          {"data", {{sample, curve}}}};
}

}  // namespace kmerbloom
