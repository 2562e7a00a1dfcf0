#include "report/stats.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "common/error.hpp"
#include "common/format.hpp"
#include "report/count_summary.hpp"
#include "report/spectrum.hpp"

namespace kmerbloom {
namespace {

using json = nlohmann::json;

uint64_t count_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

}  // namespace

std::vector<uint64_t> embedded_histogram(const json& st, const std::string& name) {
  const auto h = st.find("histogram");
  if (h == st.end() || !h->is_object() || !h->contains("rows")) return {};
  try {
    return histogram_from_rows((*h)["rows"]);
  } catch (const std::invalid_argument& e) {
    throw InputError(name + ": histogram.rows: " + e.what());
  }
}

json read_stats_file(const std::string& path) {
  json j;
  try {
    if (path == "-") {
      j = json::parse(std::cin);
    } else {
      std::error_code ec;
      if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a directory");
      std::ifstream in(path);
      if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
      j = json::parse(in);
    }
  } catch (const json::parse_error& e) {
    throw InputError(display_name(path) + ": not JSON statistics (" + printable(e.what(), 300) + ")");
  }
  if (!j.is_object()) throw InputError(display_name(path) + ": not kmerbloom statistics (a JSON object is expected)");
  return j;
}

void check_count_stats(const json& stats, const std::string& name) {
  const std::string no = name + ": not k-mer count statistics (";
  const std::string want = "): give the --stats of kmerbloom count or merge-counts";
  if (!stats.is_object()) throw InputError(no + "not a JSON object" + want);
  if (const auto t = stats.find("tool"); t != stats.end() && *t != "kmerbloom")
    throw InputError(no + "written by " + t->dump() + want);
  if (const auto c = stats.find("command"); c != stats.end() && *c != "count" && *c != "merge-counts")
    throw InputError(no + "statistics of " + (c->is_string() ? c->get<std::string>() : c->dump()) + want);
  if (is_count_statistics(stats)) {  // kmerbloom's own: the whole summary, typed
    get_count_summary(stats, name);
    return;
  }
  bool any = false;  // hand-made or a workflow's: a report shows what there is
  for (const char* key : {stats_key::reads, stats_key::kmers_total, stats_key::kmers_distinct, "histogram"})
    any = any || stats.contains(key);
  if (!any)
    throw InputError(no + "none of reads, kmers_total, kmers_distinct, histogram" + want);
}

json gather_count_stats(const std::vector<json>& parts, const std::vector<std::string>& names) {
  if (parts.empty()) throw std::invalid_argument("no statistics to gather");
  const json& first = parts[0];
  const uint64_t n = parts.size();
  std::vector<bool> seen(n, false);
  std::vector<uint64_t> hist;
  json g = {{"tool", "kmerbloom"}, {"command", "merge-counts"}};
  for (const char* key : {"version", "inputs", "options"})
    if (first.contains(key)) g[key] = first[key];
  CountSummary whole;  // k and the reads of the first (every partition reads them all); k-mers summed
  uint64_t above = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const json& p = parts[i];
    const std::string& name = names.at(i);
    check_count_stats(p, name);
    const CountSummary s = get_count_summary(p, name);
    if (i == 0) {
      whole = s;
      whole.kmers_total = whole.kmers_distinct = whole.kmers_solid = whole.kmers_singleton = whole.max_count = 0;
    } else if (s.k != whole.k) {
      throw InputError(name + ": k " + std::to_string(s.k) + ", " + names[0] + " has " + std::to_string(whole.k) +
                       ": statistics of one count are gathered");
    }
    const json part = p.value("partition", json::object());
    const uint64_t index = count_of(part, "index"), count = std::max<uint64_t>(1, count_of(part, "count"));
    if (count != n || index >= n || seen[index])
      throw InputError(name + ": partition " + std::to_string(index) + "/" + std::to_string(count) + ", but " +
                       std::to_string(n) + " statistics were given" +
                       (count == n && index < n ? " and that partition twice" : "") + ": give one per partition");
    seen[index] = true;
    whole.kmers_total += s.kmers_total;
    whole.kmers_distinct += s.kmers_distinct;
    whole.kmers_solid += s.kmers_solid;
    whole.kmers_singleton += s.kmers_singleton;
    whole.max_count = std::max(whole.max_count, s.max_count);
    whole.kmers_singleton_estimated = whole.kmers_singleton_estimated || s.kmers_singleton_estimated;
    const std::vector<uint64_t> h = embedded_histogram(p, name);
    if (h.size() > hist.size()) hist.resize(h.size(), 0);
    for (size_t c = 1; c < h.size(); ++c) hist[c] += h[c];
    above += count_of(p.value("histogram", json::object()), "kmers_above_max_row");
  }
  put_count_summary(g, whole);
  const bool estimated = whole.kmers_singleton_estimated;
  if (!hist.empty()) {
    json h = first.value("histogram", json::object());
    h["kmers_above_max_row"] = above;
    h["estimated_rows"] = estimated ? json::array({1}) : json::array();
    h["exact_rows"] = estimated ? "2 and above" : "all";
    h["rows"] = histogram_rows_json(hist);
    g["histogram"] = std::move(h);
    g["spectrum"] = spectrum_json(analyze_spectrum(hist, spectrum_options_from_stats(g, hist)));
  }
  g["partitions"] = n;
  g["parts"] = parts;
  return g;
}

}  // namespace kmerbloom
