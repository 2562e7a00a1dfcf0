// The count summary: the keys of a count's statistics that other commands
// read back (report, its plot, MultiQC rows, merge-counts --stats), owned
// here and only here. count --stats and merge-counts --stats write them
// through put_count_summary; every reader takes them through
// get_count_summary, which refuses a file that lacks one or holds it with
// another type, naming the file and the key. docs/statistics.md lists the
// same keys (a unit test holds the two equal). The rest of a statistics file
// (sizing, passes, memory, the gate) is for people and the report's detail
// sections, which show what is there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kmerbloom {

namespace stats_key {  // the names of the count summary's keys
inline constexpr const char* k = "k";
inline constexpr const char* canonical = "canonical";
inline constexpr const char* reads = "reads";
inline constexpr const char* bases = "bases";
inline constexpr const char* bases_skipped = "bases_skipped";
inline constexpr const char* kmers_total = "kmers_total";
inline constexpr const char* kmers_distinct = "kmers_distinct";
inline constexpr const char* kmers_solid = "kmers_solid";
inline constexpr const char* kmers_singleton = "kmers_singleton";
inline constexpr const char* kmers_singleton_estimated = "kmers_singleton_estimated";
inline constexpr const char* max_count = "max_count";
}  // namespace stats_key

struct CountSummary {
  unsigned k = 0;
  bool canonical = true;             // k-mers and their reverse complements counted as one
  uint64_t reads = 0, bases = 0;     // read
  uint64_t bases_skipped = 0;        // letters other than A, C, G, T (and U)
  uint64_t kmers_total = 0;          // k-mer occurrences
  uint64_t kmers_distinct = 0;
  uint64_t kmers_solid = 0;          // written: count in [min_count, max_count]
  uint64_t kmers_singleton = 0;      // seen once
  bool kmers_singleton_estimated = false;  // singletons (and distinct) estimated, not counted
  uint64_t max_count = 0;            // the largest count
};

// The keys, in the order docs/statistics.md lists them.
const std::vector<std::string_view>& count_summary_keys();

// Writes the summary's keys into j (an object).
void put_count_summary(nlohmann::json& j, const CountSummary& s);

// Reads them. Throws InputError("NAME: statistics without KEY ...") for a key
// that is missing, or "NAME: KEY is ..., not ..." for one of another type.
CountSummary get_count_summary(const nlohmann::json& j, const std::string& name);

// Whether j says it is the statistics of kmerbloom count or merge-counts
// (tool and command), so that the summary must be whole.
bool is_count_statistics(const nlohmann::json& j);

}  // namespace kmerbloom
