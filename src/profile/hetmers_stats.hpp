// hetmers --stats and its MultiQC custom content, built from the typed
// results. Pure functions; objects come out with their keys sorted, so the
// bytes depend only on the values.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "profile/hetmers.hpp"
#include "profile/smudge_peak.hpp"
#include "report/run_stats.hpp"

namespace kmerbloom {

// The range of counts searched and where each end came from.
struct HetmerCutoffs {
  uint64_t lower = 0, upper = 0;
  std::string lower_from;  // "option" or "histogram" (smudgeplot's cutoff L)
  std::string upper_from;  // "option", "quantile" (smudgeplot's cutoff U) or "pair limit"
};

struct HetmerRunFacts {
  unsigned k = 0;
  uint64_t kmers_in_file = 0;
  uint64_t memory_budget = 0;
  unsigned threads = 0;
  std::string smu_path, pairs_path;  // pairs_path empty: not written
};

nlohmann::json hetmer_stats_json(const RunInfo& run, const HetmerRunFacts& facts, const HetmerCutoffs& cutoffs,
                                 const HetmerResult& result, const SmudgePeak& peak);

// A MultiQC general statistics row for `sample` (unique pairs, L, U, the
// peak's minor share and sum, the ploidy it suggests), as count's
// *_mqc.json rows are (report/multiqc.cpp), in a section of its own.
nlohmann::json hetmer_multiqc_json(const std::string& sample, const nlohmann::json& stats);

}  // namespace kmerbloom
