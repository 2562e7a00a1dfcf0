// The statistics of `kmerbloom sets --stats` and the MultiQC custom content
// beside them. Pure functions; object keys come out sorted, so the bytes of a
// file depend only on the values.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "profile/set_ops.hpp"
#include "report/run_stats.hpp"

namespace kmerbloom {

// The run (report/run_stats.hpp's RunInfo: tool, version, command, inputs,
// time, memory), the operation with its count mode and filters, k, each
// input's k-mers read and kept, the k-mers written with their summed count,
// the output path, the k-mers whose counts the output's format capped
// (KFF: counts above 2^32 - 1), and the histogram rows when there is one.
nlohmann::json set_stats_json(const RunInfo& run, const SetOpOptions& options, const SetOpResult& result,
                              const std::string& output, uint64_t kmers_count_capped);

// A MultiQC general statistics row for `sample` (files named *_mqc.json, read
// by multiqc with no module): the operation, k-mers read, k-mers written.
nlohmann::json set_multiqc_general_stats(const std::string& sample, const nlohmann::json& stats);

}  // namespace kmerbloom
