#include "report/run_stats.hpp"

#include <cmath>

#include "common/machine.hpp"
#include "kmer/hash.hpp"
#include "report/count_summary.hpp"

namespace kmerbloom {
nlohmann::json run_head_json(const RunInfo& run) {
  return {{"tool", "kmerbloom"},
          {"version", KMERBLOOM_VERSION},
          {"command", run.command},
          {"command_line", run.command_line},
          {"inputs", run.inputs}};
}

nlohmann::json with_run_costs(nlohmann::json j, const RunInfo& run) {
  j["wall_seconds"] = run.wall_seconds;
  j["cpu_seconds"] = run.cpu_seconds;
  j["peak_memory_bytes"] = run.peak_memory_bytes;
  return j;
}

namespace {

using json = nlohmann::json;

// The head, and the CPU extensions the hot loops ran with.
json header(const RunInfo& run) {
  json j = run_head_json(run);
  const CpuFeatures& cpu = cpu_features();
  j["cpu"] = {{"features", cpu.names()}, {"source", cpu.source}};
  return j;
}

json finish(json j, const RunInfo& run) { return with_run_costs(std::move(j), run); }

// Saturated layers estimate infinitely many keys: JSON null.
json finite_or_null(double x) { return std::isfinite(x) ? json(x) : json(); }

double share(uint64_t part, uint64_t whole) { return whole ? double(part) / double(whole) : 0.0; }

uint64_t as_count(double x) { return static_cast<uint64_t>(std::llround(x)); }

// ---- count ------------------------------------------------------------------

json count_histogram_json(const CountOptions& o, const CountResult& r) {
  json h = {{"max_row", o.histo_max},
            {"overflow_row", o.histo_max + 1},
            {"kmers_above_max_row", r.histogram.back()},
            {"estimated_rows", json::array()},
            {"exact_rows", "all"}};
  json rows = json::array();
  for (size_t c = 1; c < r.histogram.size(); ++c)
    if (r.histogram[c]) rows.push_back({c, r.histogram[c]});
  h["rows"] = std::move(rows);
  return h;
}

json sizing_json(const CountOptions& o, const SizingReport& s) {
  return {{"source", s.source},
          {"distinct_estimate", s.distinct},
          {"singletons_estimate", s.singletons},
          {"relative_std_error", s.relative_std_error},
          {"bloom_capacity", s.bloom_capacity},
          {"table_keys", s.table_keys},
          {"exact", s.exact},
          {"bloom_fpr", s.fpr},
          {"bloom_first_layer_share", s.first_layer_share},
          {"planned_bytes", s.planned_bytes},
          {"max_memory_bytes", o.max_memory}};
}

json gate_json(const BloomReport& b) {
  json layers = json::array();
  for (const auto& l : b.layers)
    layers.push_back({{"capacity", l.capacity}, {"bits", l.bits}, {"hashes", l.hashes}, {"keys", l.keys},
                      {"bits_set", l.bits_set}, {"fill", share(l.bits_set, l.bits)},
                      {"target_fpr", l.target_fpr}, {"estimated_fpr", l.estimated_fpr}});
  return {{"mode", "exact"},
          {"target_fpr", b.target_fpr},
          {"estimated_fpr", b.estimated_fpr},
          {"bytes", b.bytes},
          {"layers", layers},
          {"keys_inserted", b.keys_inserted},
          {"kmers_rejected_by_gate", b.gate_rejected}};
}

json partitions_json(const PartitionReport& p) {
  return {{"count", p.count},
          {"minimizer_length", p.minimizer},
          {"cache", {{"l2_bytes", p.cache_bytes}, {"source", p.cache_source}}},
          {"split", p.split},
          {"max_sweeps", p.max_sweeps},
          {"tagged", p.tagged},
          {"recounted", p.recounted},
          {"mean_kmers", p.mean_kmers},
          {"most_loaded", {{"index", p.max_index},
                           {"kmers", p.max_kmers},
                           {"table_keys", p.max_table_keys},
                           {"bloom_capacity", p.max_bloom_capacity}}}};
}

// ---- filter -----------------------------------------------------------------

json tally_json(const ReadTally& t) { return {{"reads", t.reads}, {"bases", t.bases}}; }

const char* layout_name(const ReadFilterOptions& o) {
  if (o.paired_files) return "paired files";
  if (o.interleaved) return "interleaved pairs";
  return "single reads";
}

json sketch_gate_json(const ReadFilterResult::Sketch& s) {
  const GatedSketchPlan& p = s.plan;
  return {{"bytes", p.gate_bytes()},
          {"blocks", p.gate.blocks},
          {"hashes", p.gate.hashes},
          {"design_keys", p.gate_keys},
          {"design_fpr", p.gate_fpr},
          {"estimated_fpr", s.gate_estimated_fpr},
          {"estimated_keys", finite_or_null(s.gate_estimated_keys)}};
}

json sketch_json(const ReadFilterResult& r) {
  const ReadFilterResult::Sketch& s = r.sketch;
  const GatedSketchPlan& p = s.plan;
  return {{"kind", "Bloom filter gate (first sightings) before a count-min sketch (conservative update, "
                   "4 rows of 16 8-bit counters per 64-byte block)"},
          {"bytes", s.bytes},
          {"blocks", s.blocks},
          {"counters", s.blocks * CountMinSketch::kBlockBytes},
          {"counter_bits", CountMinSketch::kCounterBits},
          {"rows", CountMinSketch::kRows},
          {"sizing", s.sizing},
          {"source", s.source},
          {"estimated_distinct_kmers_in_input", s.estimated_distinct},
          {"estimated_singletons_in_input", s.estimated_singletons},
          {"kept_share", s.demand.kept_share},
          {"design_repeated_kmers", p.repeated_keys},
          {"design_once_kmers", p.once_keys},
          {"design_keys", p.sketch_keys},
          {"capped_by_max_memory", s.capped},
          {"design_collision_rate", s.design_collision_rate},
          {"gate", sketch_gate_json(s)},
          {"sketch_bytes", p.sketch_bytes()},
          {"nonzero_counters", s.fill.nonzero},
          {"nonzero_fraction", share(s.fill.nonzero, s.blocks * 64)},
          {"saturated_counters", s.fill.saturated},
          {"estimated_collision_rate", s.fill.collision_rate},
          {"estimated_distinct_kmers", finite_or_null(s.fill.keys)},
          {"kmers_queried", r.kmers_queried},
          {"kmers_added", r.kmers_added}};
}

}  // namespace

json count_stats_json(const RunInfo& run, const CountOptions& o, const CountResult& r, const SpectrumAnalysis& spectrum,
                      const std::vector<std::string>& pass_names, const std::vector<std::string>& warnings) {
  json j = header(run);
  put_count_summary(j, {.k = o.k,
                        .canonical = o.canonical,
                        .reads = r.input.reads,
                        .bases = r.input.bases,
                        .bases_skipped = r.input.bases_skipped,
                        .kmers_total = r.input.kmers,
                        .kmers_distinct = r.distinct,
                        .kmers_solid = r.solid,
                        .kmers_singleton = r.singletons,
                        .kmers_singleton_estimated = false,
                        .max_count = r.max_count});
  j["options"] = {{"min_count", o.min_count}, {"max_count", o.max_count}, {"histo_max", o.histo_max},
                  {"expected_kmers", o.expected_kmers}};
  j["threads"] = o.threads;
  j["partition"] = {{"index", o.partition}, {"count", o.partitions}};
  j["histogram"] = count_histogram_json(o, r);
  j["spectrum"] = spectrum_json(spectrum);
  j["sizing"] = sizing_json(o, r.sizing);
  j["passes"] = r.passes;
  j["pass_seconds"] = r.pass_seconds;
  if (pass_names.size() == r.pass_seconds.size()) j["pass_names"] = pass_names;
  j["table"] = {{"bytes", r.table_bytes}, {"capacity", r.table_capacity}, {"keys", r.table_keys}, {"load", r.table_load}};
  if (r.bloom.used) j["bloom"] = gate_json(r.bloom);
  j["partitions"] = partitions_json(r.partitions);
  j["merge"] = {{"ranges", r.merge.ranges}, {"sorted", r.merge.sorted}, {"sliced_ranges", r.merge.sliced}};
  j["temporary"] = {{"dir", r.spool.dir},
                    {"memory_budget_bytes", r.spool.memory_budget},
                    {"memory_peak_bytes", r.spool.memory_peak},
                    {"disk_bytes_written", r.spool.disk_bytes},
                    {"max_memory_to_hold_bytes", r.spool.hold_budget}};
  j["memory_bytes"] = {{"table", r.table_bytes},
                       {"bloom", r.bloom.bytes},
                       {"spool", r.spool.memory_peak},
                       {"counting", r.counting_bytes},
                       {"counting_planned", r.counting_bytes_planned}};
  j["warnings"] = warnings;
  return finish(std::move(j), run);
}

json filter_stats_json(const RunInfo& run, const ReadFilterOptions& o, const ReadFilterResult& r,
                       const std::vector<std::string>& outputs) {
  json j = header(run);
  j["outputs"] = outputs;
  j["format"] = r.format == SeqFormat::fasta ? "fasta" : r.format == SeqFormat::fastq ? "fastq" : "none (no records)";
  j["layout"] = layout_name(o);
  j["k"] = o.k;
  j["canonical"] = true;
  j["normalize"] = o.normalize;
  j["target_coverage"] = o.normalize ? json(o.target_coverage) : json(nullptr);
  j["weak"] = o.weak == WeakMode::drop ? "drop" : o.weak == WeakMode::trim ? "trim" : "off";
  j["min_count"] = o.weak == WeakMode::none ? json(nullptr) : json(o.min_count);
  j["threads"] = o.threads;
  j.update(json{{"reads_in", r.in.reads},
                {"bases_in", r.in.bases},
                {"reads_out", r.out.reads},
                {"bases_out", r.out.bases},
                {"fragments_in", r.fragments_in},
                {"fragments_out", r.fragments_out},
                {"share_of_reads_kept", share(r.out.reads, r.in.reads)}});
  j["reasons"] = {{"kept", tally_json(r.kept)},
                  {"above_coverage", tally_json(r.above_coverage)},
                  {"weak", tally_json(r.weak)},
                  {"short", tally_json(r.short_reads)}};
  j["reasons_note"] = "bases as read, before trimming; the four reasons add up to reads_in / bases_in";
  j["trimmed"] = {{"reads", r.trimmed_reads}, {"bases_removed", r.trimmed_bases}};
  if (r.sketch.used) j["sketch"] = sketch_json(r);
  if (r.solid.used)
    j["solid"] = {{"source", r.solid.source},
                  {"kmers", r.solid.kmers},
                  {"bytes", r.solid.bytes},
                  {"seconds", r.solid.seconds}};
  j["memory_bytes"] = {{"sketch", r.sketch.bytes}, {"solid_kmers", r.solid.bytes}};
  j["pass_seconds"] = r.pass_seconds;
  j["stage_seconds"] = {{"workers_summed", r.prepare_seconds}, {"decider", r.decide_seconds}, {"writer", r.write_seconds}};
  return finish(std::move(j), run);
}

json estimate_stats_json(const RunInfo& run, const EstimateOptions& o, const EstimateResult& r) {
  const KmerSpectrumEstimate& e = r.spectrum;
  json j = header(run);
  j["k"] = o.k;
  j["canonical"] = o.canonical;
  j["threads"] = o.threads;
  j["reads"] = r.input.reads;
  j["bases"] = r.input.bases;
  j["bases_skipped"] = r.input.bases_skipped;
  j["kmers_total"] = e.kmers_total;
  j["kmers_distinct"] = as_count(e.distinct);
  j["kmers_singleton"] = e.f.size() > 1 ? as_count(e.f[1]) : 0;
  j["kmers_repeated"] = e.distinct >= e.f[1] ? as_count(e.distinct - e.f[1]) : 0;  // seen at least twice
  json rows = json::array();
  for (unsigned i = 1; i < e.f.size(); ++i)
    rows.push_back({{"count", i},
                    {"kmers", as_count(e.f[i])},
                    {"sampled", e.sampled_f[i]},
                    {"relative_std_error", finite_or_null(e.row_relative_std_error(i))}});
  j["histogram"] = rows;
  j["kmers_above_max_row"] = as_count(e.above_max_row);
  j["exact"] = e.exact;
  j["relative_std_error"] = e.relative_std_error;
  j["sampling"] = {{"method", "adaptive distinct sampling of hash_kmer"},
                   {"hash", kKmerHashName},
                   {"depth", e.sampling_depth},
                   {"rate", e.sampling_rate},
                   {"sampled_keys", e.sampled_keys},
                   {"max_sampled_keys_log2", o.sample_log2},
                   {"sampler_bytes", r.sampler_bytes}};
  return finish(std::move(j), run);
}

json query_summary_json(const RunInfo& run, const std::string& filter_path, const FilterMeta& meta,
                        const QuerySummary& s, const std::string& kmer_list) {
  json j = header(run);
  j["filter"] = filter_path;
  if (!kmer_list.empty()) {
    j.erase("inputs");
    j["kmer_list"] = kmer_list;
  }
  j["k"] = meta.k;
  j["canonical"] = meta.canonical;
  j["threshold"] = s.threshold;
  j["reads"] = s.reads;
  j["reads_with_kmers"] = s.reads_with_kmers;
  j["reads_hit"] = s.reads_hit;
  j["fraction_hit"] = share(s.reads_hit, s.reads_with_kmers);
  j["kmers"] = s.kmers;
  j["kmers_present"] = s.kmers_present;
  j["mean_fraction"] = s.mean_fraction;
  return finish(std::move(j), run);
}

json filter_file_json(const std::string& path, uint64_t file_bytes, const LoadedFilter& f) {
  const FilterMeta& m = f.meta;
  const ScalableBloom& b = f.filter;
  const ScalableBloomParams& p = b.params();
  json j;
  j["file"] = path;
  j["file_bytes"] = file_bytes;
  j["format_version"] = kBloomFileVersion;
  j["k"] = m.k;
  j["canonical"] = m.canonical;
  j["hash"] = {{"name", m.hash_name}, {"seed", m.seed}};
  j["min_count"] = m.min_count;
  // build stores a JSON object as the free-form string; show it as one.
  j["extra"] = json::accept(m.extra_json) ? json::parse(m.extra_json) : json(m.extra_json);
  j["chain"] = {{"initial_capacity", p.initial_capacity}, {"fpr", p.fpr}, {"growth", p.growth},
                {"tightening", p.tightening}, {"linear", p.linear_growth}};
  json layers = json::array();
  for (size_t i = 0; i < b.layers(); ++i) {
    const BloomLayerInfo l = b.layer_info(i, true);
    layers.push_back({{"blocks", b.layer(i).blocks()}, {"bits", l.bits}, {"bytes", b.layer(i).bytes()},
                      {"hashes", l.hashes}, {"capacity", l.capacity}, {"target_fpr", l.target_fpr},
                      {"keys", l.keys}, {"bits_set", l.bits_set}, {"fill", share(l.bits_set, l.bits)},
                      {"estimated_keys", finite_or_null(b.layer(i).estimated_keys())},
                      {"estimated_fpr", l.estimated_fpr}});
  }
  j["layers"] = layers;
  j["bytes"] = b.bytes();
  j["estimated_keys"] = finite_or_null(b.estimated_keys());
  j["estimated_fpr"] = b.estimated_fpr();
  return j;
}

}  // namespace kmerbloom
