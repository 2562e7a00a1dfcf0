// kmerbloom filter: options, output files, statistics. The work is
// filter_reads (normalize/read_filter.hpp).
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "common.hpp"
#include "kmerbloom/io/output.hpp"
#include "kmerbloom/normalize/read_filter.hpp"

namespace kmerbloom::cli {
namespace {

struct FilterArgs {
  ReadFilterOptions opt;
  std::string output = "-";
  std::string output2;
  std::string stats;
  bool no_normalize = false;
  bool drop_weak = false;
  bool trim_weak = false;
  std::optional<std::string> max_memory;
  CLI::Option* min_count_option = nullptr;  // to tell whether -c was given
};

nlohmann::json tally(const ReadTally& t) { return {{"reads", t.reads}, {"bases", t.bases}}; }

const char* mode_name(const ReadFilterOptions& o) {
  if (o.paired_files) return "paired files";
  if (o.interleaved) return "interleaved pairs";
  return "single reads";
}

nlohmann::json stats_json(const FilterArgs& a, const ReadFilterResult& r, const RunClock& clock) {
  const ReadFilterOptions& o = a.opt;
  nlohmann::json j = stats_header("filter", o.inputs);
  j["outputs"] = a.output2.empty() ? nlohmann::json::array({a.output}) : nlohmann::json::array({a.output, a.output2});
  j["format"] = r.format == SeqFormat::fasta ? "fasta" : r.format == SeqFormat::fastq ? "fastq" : "none (no records)";
  j["layout"] = mode_name(o);
  j["k"] = o.k;
  j["canonical"] = true;
  j["normalize"] = o.normalize;
  j["target_coverage"] = o.normalize ? nlohmann::json(o.target_coverage) : nlohmann::json(nullptr);
  j["weak"] = o.weak == WeakMode::drop ? "drop" : o.weak == WeakMode::trim ? "trim" : "off";
  j["min_count"] = o.weak == WeakMode::none ? nlohmann::json(nullptr) : nlohmann::json(o.min_count);
  j["threads"] = o.threads;
  j["reads_in"] = r.in.reads;
  j["bases_in"] = r.in.bases;
  j["reads_out"] = r.out.reads;
  j["bases_out"] = r.out.bases;
  j["fragments_in"] = r.fragments_in;
  j["fragments_out"] = r.fragments_out;
  j["share_of_reads_kept"] = r.in.reads ? double(r.out.reads) / double(r.in.reads) : 0.0;
  j["reasons"] = {{"kept", tally(r.kept)},
                  {"above_coverage", tally(r.above_coverage)},
                  {"weak", tally(r.weak)},
                  {"short", tally(r.short_reads)}};
  j["reasons_note"] = "bases as read, before trimming; the four reasons add up to reads_in / bases_in";
  j["trimmed"] = {{"reads", r.trimmed_reads}, {"bases_removed", r.trimmed_bases}};
  if (r.sketch.used) {
    const auto& s = r.sketch;
    const GatedSketchPlan& p = s.plan;
    j["sketch"] = {{"kind", "Bloom filter gate (first sightings) before a count-min sketch (conservative update, "
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
                   {"gate", {{"bytes", p.gate_bytes()},
                             {"blocks", p.gate.blocks},
                             {"hashes", p.gate.hashes},
                             {"design_keys", p.gate_keys},
                             {"design_fpr", p.gate_fpr},
                             {"estimated_fpr", s.gate_estimated_fpr},
                             {"estimated_keys", std::isfinite(s.gate_estimated_keys)
                                                    ? nlohmann::json(s.gate_estimated_keys)
                                                    : nlohmann::json(nullptr)}}},
                   {"sketch_bytes", p.sketch_bytes()},
                   {"nonzero_counters", s.fill.nonzero},
                   {"nonzero_fraction", s.blocks ? double(s.fill.nonzero) / double(s.blocks * 64) : 0.0},
                   {"saturated_counters", s.fill.saturated},
                   {"estimated_collision_rate", s.fill.collision_rate},
                   {"estimated_distinct_kmers", std::isfinite(s.fill.keys) ? nlohmann::json(s.fill.keys)
                                                                           : nlohmann::json(nullptr)},
                   {"kmers_queried", r.kmers_queried},
                   {"kmers_added", r.kmers_added}};
  }
  if (r.solid.used)
    j["solid"] = {{"source", r.solid.source},
                  {"kmers", r.solid.kmers},
                  {"bytes", r.solid.bytes},
                  {"expected_leaked_weak_kmers", r.solid.expected_leaked},
                  {"seconds", r.solid.seconds}};
  j["memory_bytes"] = {{"sketch", r.sketch.bytes}, {"solid_kmers", r.solid.bytes}};
  j["pass_seconds"] = r.pass_seconds;
  j["stage_seconds"] = {{"workers_summed", r.prepare_seconds}, {"decider", r.decide_seconds}, {"writer", r.write_seconds}};
  add_run_costs(j, clock);
  return j;
}

int run_filter(FilterArgs& a) {
  RunClock clock;
  ReadFilterOptions& o = a.opt;
  o.normalize = !a.no_normalize;
  if (a.max_memory) o.max_memory = parse_memory_size(*a.max_memory, "-M/--max-memory");
  if (a.drop_weak && a.trim_weak) throw std::invalid_argument("--drop-weak and --trim-weak exclude each other");
  o.weak = a.drop_weak ? WeakMode::drop : a.trim_weak ? WeakMode::trim : WeakMode::none;
  if (o.weak == WeakMode::none && a.min_count_option->count() > 0)
    throw std::invalid_argument("-c/--min-count applies to weak k-mers only: add --drop-weak or --trim-weak "
                                "(normalization alone is set with -C/--target-coverage)");
  if (!a.output2.empty()) {
    if (o.interleaved)
      o.split_mates = true;
    else
      o.paired_files = true;
    if (a.output2 == a.output) throw std::invalid_argument("-o and -O name the same output: " + a.output);
  }
  o.validate();  // before any output file is created
  std::vector<NamedPath> ins = named_inputs(o.inputs);
  ins.push_back({"--solid", o.solid_path});
  check_output_paths(ins, {{"-o", a.output}, {"-O", a.output2}, {"--stats", a.stats}});

  OutputFile out1(a.output);
  std::unique_ptr<OutputFile> out2;
  if (!a.output2.empty()) out2 = std::make_unique<OutputFile>(a.output2);
  const ReadFilterSink sink = [&](unsigned stream, std::string_view text) {
    (stream == 0 || !out2 ? out1 : *out2).write(text);
  };
  ReadFilterHooks hooks;
  hooks.log = [](const std::string& s) { spdlog::debug("{}", s); };
  hooks.info = [](const std::string& s) { spdlog::info("{}", s); };
  const ReadFilterResult r = filter_reads(o, sink, hooks);

  if (!a.stats.empty()) write_json(a.stats, stats_json(a, r, clock));
  if (out2) out2->commit();
  out1.commit();
  const double pct = r.in.reads ? 100.0 * double(r.out.reads) / double(r.in.reads) : 0.0;
  spdlog::info("{} of {} reads kept ({:.1f}%): {} above coverage, {} weak, {} short; {} trimmed; in {:.1f} s",
               r.out.reads, r.in.reads, pct, r.above_coverage.reads, r.weak.reads, r.short_reads.reads,
               r.trimmed_reads, clock.wall_seconds());
  if (r.sketch.used)
    spdlog::debug("sketch {} bytes, estimated collision rate {:.4f}", r.sketch.bytes, r.sketch.fill.collision_rate);
  return kExitOk;
}

}  // namespace

Action setup_filter(CLI::App& sub) {
  auto a = std::make_shared<FilterArgs>();
  a->opt.threads = default_threads();
  sub.add_option("inputs", a->opt.inputs,
                 "FASTA/FASTQ files (plain, gzip or BGZF; - reads stdin); R1 R2 with -O")
      ->required();
  sub.add_option("-k,--kmer-size", a->opt.k, "k-mer length, 1 to 255")->capture_default_str();
  sub.add_option("-o,--output", a->output,
                 "Kept reads (mate 1 with -O); - is stdout, a name ending in .gz is gzip-compressed")
      ->capture_default_str();
  sub.add_option("-O,--output2", a->output2,
                 "Kept mate 2 reads: makes two inputs paired files (read in lockstep), or splits --interleaved input");
  sub.add_flag("--interleaved", a->opt.interleaved, "Input records alternate mate 1, mate 2; pairs kept together");
  sub.add_option("-C,--target-coverage", a->opt.target_coverage,
                 "Digital normalization: keep a read while the median abundance of its k-mers is below this")
      ->capture_default_str();
  sub.add_flag("--no-normalize", a->no_normalize, "No digital normalization (with --drop-weak or --trim-weak)");
  sub.add_flag("--drop-weak", a->drop_weak, "Drop reads holding a k-mer seen fewer than --min-count times");
  sub.add_flag("--trim-weak", a->trim_weak, "Cut reads before their first k-mer seen fewer than --min-count times");
  a->min_count_option = sub.add_option("-c,--min-count", a->opt.min_count,
                                       "Weak k-mers occur fewer times than this (with --drop-weak or --trim-weak)")
                            ->capture_default_str();
  sub.add_option("--solid", a->opt.solid_path,
                 "Solid k-mers from `kmerbloom count` (TSV, FASTA or KFF, .gz too; KMC's -okff too) instead of a first pass");
  sub.add_option("--expected", a->opt.expected_kmers,
                 "K-mers expected to be counted twice or more; sizes the abundance sketch (default: estimated)");
  sub.add_option("-M,--max-memory", a->max_memory,
                 "Upper bound on the abundance sketch and its gate together: 500M, 4G (K, M, G, T: binary units; plain bytes)")
      ->default_str("1G");
  sub.add_option("--stats", a->stats, "Write run statistics as JSON");
  sub.add_option("-t,--threads", a->opt.threads, "Worker threads (default: all cores)")->capture_default_str();
  return [a] { return run_filter(*a); };
}

}  // namespace kmerbloom::cli
