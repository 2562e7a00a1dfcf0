#include "profile/hetmers_stats.hpp"

#include "report/report.hpp"

namespace kmerbloom {

using json = nlohmann::json;

json hetmer_stats_json(const RunInfo& run, const HetmerRunFacts& facts, const HetmerCutoffs& cutoffs,
                       const HetmerResult& r, const SmudgePeak& peak) {
  json j = run_head_json(run);
  j.update({{"k", facts.k},
            {"kmers_in_file", facts.kmers_in_file},
            {"lower", cutoffs.lower},
            {"upper", cutoffs.upper},
            {"lower_from", cutoffs.lower_from},
            {"upper_from", cutoffs.upper_from},
            {"max_pair_coverage", kMaxPairCoverage},
            {"kmers_considered", r.kmers},
            {"oriented_kmers", r.oriented_kmers},
            {"pairs_found", r.pairs},
            {"kmers_in_pairs", r.kmers_in_pairs},
            {"kmers_in_several_pairs", r.kmers_in_several},
            {"unique_pairs", r.unique_pairs},
            {"unique_pairs_canonical", r.unique_pairs_canonical},
            {"partitions", r.partitions},
            {"memory_budget_bytes", facts.memory_budget},
            {"memory_planned_bytes", r.memory_planned},
            {"threads", facts.threads},
            {"smu", facts.smu_path},
            {"pairs_file", facts.pairs_path.empty() ? json() : json(facts.pairs_path)}});
  json p = {{"found", peak.found}, {"note", peak.note}, {"pair_kmer_share", peak.pair_kmer_share}};
  if (peak.found) {
    p["coverage_sum"] = peak.sum;
    p["minor_share"] = peak.minor_share;
    p["pairs"] = peak.pairs;
  }
  p["ploidy"] = peak.ploidy ? json(peak.ploidy) : json();
  p["structure"] = peak.ploidy ? json(peak.structure) : json();
  p["haploid_coverage"] = peak.ploidy ? json(peak.haploid_coverage) : json();
  j["smudge_peak"] = p;
  return with_run_costs(std::move(j), run);
}

json hetmer_multiqc_json(const std::string& sample, const json& stats) {
  // Read back with at(): a key renamed in hetmer_stats_json throws here, in the run and in the tests.
  const json& peak = stats.at("smudge_peak");
  json row = {{"unique_pairs", stats.at("unique_pairs")}, {"lower", stats.at("lower")}, {"upper", stats.at("upper")}};
  if (peak.at("found").get<bool>()) {
    row["minor_share"] = peak.at("minor_share");
    row["coverage_sum"] = peak.at("coverage_sum");
  }
  if (peak.at("ploidy").is_number()) row["ploidy"] = peak.at("ploidy");
  return multiqc_general_stats_section(
      "kmerbloom_hetmers", "kmerbloom hetmers", "het-mer pairs (smudgeplot's input) from kmerbloom hetmers",
      {{"unique_pairs", "Het-mer pairs", "unique k-mer pairs at one base", "{:,.0f}"},
       {"lower", "L", "lowest count searched", "{:,.0f}"},
       {"upper", "U", "highest count searched", "{:,.0f}"},
       {"minor_share", "Minor share", "B / (A + B) at the densest smudge", "{:,.3f}"},
       {"coverage_sum", "A + B", "coverage sum at the densest smudge", "{:,.1f}"},
       {"ploidy", "Ploidy", "ploidy the densest smudge suggests (AB 2, AAB 3, AAAB 4)", "{:,.0f}"}},
      sample, row);
}

}  // namespace kmerbloom
