// The statistics JSON of `count --stats`, as a report reads it: what it must
// hold, and how the statistics of count --partition I/N runs gather into one.
// Pure functions; InputError messages start with the file's name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kmerbloom {

// Reads a statistics file ("-" for stdin). Throws InputError naming the file
// when it cannot be read, is not JSON, or is not a JSON object.
nlohmann::json read_stats_file(const std::string& path);

// The histogram the statistics hold (histogram.rows), or empty when they
// hold none. Throws InputError naming the file for malformed rows.
std::vector<uint64_t> embedded_histogram(const nlohmann::json& stats, const std::string& name);

// Throws InputError("NAME: not k-mer count statistics (...)") unless stats is
// what `count --stats` or `merge-counts --stats` writes: a JSON object of
// kmerbloom whose command is count or merge-counts (or, from a workflow that
// gathers its own, no command) and which holds at least one of reads,
// kmers_total, kmers_distinct or histogram (a report shows what there is).
// `{}` and the statistics of filter, estimate or query are refused.
void check_count_stats(const nlohmann::json& stats, const std::string& name);

// Gathers the statistics of the N runs of `count --partition I/N` (one per
// partition, any order; names for messages) into the statistics of the whole:
// command "merge-counts", the inputs, k and read numbers of the first, the
// k-mer numbers summed (max_count the largest), the histograms added row by
// row, and the spectrum of that histogram analysed again; "parts" keeps the
// inputs. Throws InputError naming the file for statistics that are not a
// count's, or a k, partition count or partition index that does not fit.
nlohmann::json gather_count_stats(const std::vector<nlohmann::json>& parts, const std::vector<std::string>& names);

}  // namespace kmerbloom
