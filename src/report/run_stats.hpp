// The statistics JSON every subcommand writes (--stats, --json, --summary,
// info --json), built here from the library's typed results so that the
// command line only fills in what ran and what it cost. Pure functions.
// Objects come out with their keys sorted (nlohmann::json), so the bytes of a
// file depend only on the values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "count/counter.hpp"
#include "kbf/kbf.hpp"
#include "estimate/cardinality.hpp"
#include "normalize/read_filter.hpp"
#include "report/spectrum.hpp"

namespace kmerbloom {

// What ran and what it cost: the fields every statistics file starts with
// (tool, version, command, command_line, inputs) and ends with
// (wall_seconds, cpu_seconds, peak_memory_bytes).
struct RunInfo {
  std::string command;
  std::string command_line;
  std::vector<std::string> inputs;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  uint64_t peak_memory_bytes = 0;
};

// The keys every subcommand's statistics open with (tool, version, command,
// command_line, inputs), and those they close with (wall_seconds,
// cpu_seconds, peak_memory_bytes): with_run_costs(j, run) adds them to j.
nlohmann::json run_head_json(const RunInfo& run);
nlohmann::json with_run_costs(nlohmann::json j, const RunInfo& run);

// count --stats. The spectrum is the one analysis of the run (the page and
// the plot get the same); pass_names label pass_seconds when they match it in
// number; warnings are what the run told the user.
nlohmann::json count_stats_json(const RunInfo& run, const CountOptions& options, const CountResult& result,
                                const SpectrumAnalysis& spectrum, const std::vector<std::string>& pass_names,
                                const std::vector<std::string>& warnings);

// filter --stats; outputs are the paths given to -o (and -O).
nlohmann::json filter_stats_json(const RunInfo& run, const ReadFilterOptions& options, const ReadFilterResult& result,
                                 const std::vector<std::string>& outputs);

// estimate --json (and --format json).
nlohmann::json estimate_stats_json(const RunInfo& run, const EstimateOptions& options, const EstimateResult& result);

// query --summary: the filter file's path and what it holds; run.inputs are
// the reads screened, or kmer_list the k-mer list asked.
nlohmann::json query_summary_json(const RunInfo& run, const std::string& filter_path, const FilterMeta& meta,
                                  const QuerySummary& summary, const std::string& kmer_list);

// info --json: what a filter file holds, layer by layer (a saturated layer's
// estimated keys are null).
nlohmann::json filter_file_json(const std::string& path, uint64_t file_bytes, const LoadedFilter& filter);

}  // namespace kmerbloom
