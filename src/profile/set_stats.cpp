#include "profile/set_stats.hpp"

#include "report/report.hpp"

namespace kmerbloom {

using json = nlohmann::json;

json set_stats_json(const RunInfo& run, const SetOpOptions& o, const SetOpResult& r, const std::string& output,
                    uint64_t kmers_count_capped) {
  json inputs = json::array();
  uint64_t read = 0;
  for (const auto& i : r.inputs) {
    inputs.push_back({{"name", i.name}, {"kmers", i.kmers}, {"kmers_kept", i.kept}});
    read += i.kmers;
  }
  const bool takes_mode = o.op == KmerSetOp::union_ || o.op == KmerSetOp::intersect;
  json j = run_head_json(run);
  j.update({{"operation", set_op_name(o.op)},
            {"count_mode", takes_mode ? json(count_mode_name(o.mode())) : json()},
            {"input_min_count", o.input_min},
            {"input_max_count", o.input_max},
            {"min_count", o.min_count},
            {"max_count", o.max_count},
            {"presence", o.presence},
            {"count_cap", o.cap == UINT64_MAX ? json() : json(o.cap)},
            {"k", r.k},
            {"input_files", inputs},
            {"kmers_in", read},
            {"kmers_out", r.kmers_out},
            {"count_sum_out", r.count_sum},
            {"kmers_count_capped", kmers_count_capped},
            {"output", output},
            {"threads", o.threads}});
  if (!r.histogram.empty()) {
    json rows = json::array();
    for (size_t c = 1; c < r.histogram.size(); ++c)
      if (r.histogram[c]) rows.push_back({c, r.histogram[c]});
    j["histogram"] = {{"max_row", o.histo_max}, {"overflow_row", o.histo_max + 1}, {"rows", rows}};
  }
  return with_run_costs(std::move(j), run);
}

json set_multiqc_general_stats(const std::string& sample, const json& stats) {
  // Read back with at(): a key renamed in set_stats_json throws here, in the run and in the tests.
  const json row = {{"kmers_in", stats.at("kmers_in")}, {"kmers_out", stats.at("kmers_out")}};
  return multiqc_general_stats_section(
      "kmerbloom_sets", "kmerbloom sets", "k-mer set operations of kmerbloom sets",
      {{"kmers_in", "k-mers in", "k-mers read from every input", "{:,.0f}"},
       {"kmers_out", "k-mers out",
        "k-mers of the result (" + stats.at("operation").get<std::string>() + ")", "{:,.0f}"}},
      sample, row);
}

}  // namespace kmerbloom
