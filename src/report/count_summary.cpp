#include "report/count_summary.hpp"

#include "common/error.hpp"

namespace kmerbloom {
namespace {

using json = nlohmann::json;

// One key: how it is written and read.
struct Field {
  const char* key;
  uint64_t CountSummary::*count = nullptr;  // an unsigned integer
  bool CountSummary::*flag = nullptr;       // else a boolean
  unsigned CountSummary::*small = nullptr;  // else k
};

const std::vector<Field>& fields() {
  using S = CountSummary;
  namespace K = stats_key;
  static const std::vector<Field> f = {
      {K::k, nullptr, nullptr, &S::k},
      {K::canonical, nullptr, &S::canonical},
      {K::reads, &S::reads},
      {K::bases, &S::bases},
      {K::bases_skipped, &S::bases_skipped},
      {K::kmers_total, &S::kmers_total},
      {K::kmers_distinct, &S::kmers_distinct},
      {K::kmers_solid, &S::kmers_solid},
      {K::kmers_singleton, &S::kmers_singleton},
      {K::kmers_singleton_estimated, nullptr, &S::kmers_singleton_estimated},
      {K::max_count, &S::max_count},
  };
  return f;
}

bool is_unsigned(const json& v) {  // unsigned when parsed, maybe signed when built in memory
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

}  // namespace

const std::vector<std::string_view>& count_summary_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> k;
    for (const Field& f : fields()) k.emplace_back(f.key);
    return k;
  }();
  return keys;
}

void put_count_summary(json& j, const CountSummary& s) {
  for (const Field& f : fields()) {
    if (f.count) j[f.key] = s.*f.count;
    else if (f.flag) j[f.key] = s.*f.flag;
    else j[f.key] = s.*f.small;
  }
}

CountSummary get_count_summary(const json& j, const std::string& name) {
  CountSummary s;
  for (const Field& f : fields()) {
    const auto it = j.is_object() ? j.find(f.key) : j.end();
    if (it == j.end())
      throw InputError(name + ": statistics without " + f.key +
                       " (count --stats and merge-counts --stats write it; docs/statistics.md lists the keys)");
    const char* want = f.flag ? "a boolean" : "an unsigned integer";
    if (f.flag ? !it->is_boolean() : !is_unsigned(*it))
      throw InputError(name + ": " + f.key + " is " + it->dump() + ", not " + want);
    if (f.count) s.*f.count = it->get<uint64_t>();
    else if (f.flag) s.*f.flag = it->get<bool>();
    else s.*f.small = it->get<unsigned>();
  }
  return s;
}

bool is_count_statistics(const json& j) {
  if (!j.is_object()) return false;
  const auto t = j.find("tool"), c = j.find("command");
  return t != j.end() && *t == "kmerbloom" && c != j.end() && (*c == "count" || *c == "merge-counts");
}

}  // namespace kmerbloom
