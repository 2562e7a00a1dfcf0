// filter_reads: options, sketch sizing, the solid k-mers (first pass or a
// `kmerbloom count` file), then the stages of filter_stages.cpp.
#include "normalize/read_filter.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>

#include "count/count_table.hpp"
#include "count/counter.hpp"
#include "common/format.hpp"
#include "formats/count_file.hpp"
#include "kmer/kmer.hpp"
#include "normalize/filter_stages.hpp"

namespace kmerbloom {
namespace {

using detail::seconds_since;

// stdin, a pipe, a device: what cannot be read twice. A missing file or a
// directory is not a stream: the reader reports those.
bool is_stream(const std::string& path) {
  if (path == "-") return true;
  std::error_code ec;
  const auto t = std::filesystem::status(path, ec).type();
  if (ec) return false;
  using std::filesystem::file_type;
  return t == file_type::fifo || t == file_type::character || t == file_type::socket || t == file_type::block;
}

uint32_t saturate32(uint64_t c) {
  return static_cast<uint32_t>(std::min<uint64_t>(c, std::numeric_limits<uint32_t>::max()));
}

// Reads `kmerbloom count` output (formats/count_file.hpp). Every k-mer goes into
// the table in canonical form (counts of the two orientations add up, so
// --no-canonical output works too).
template <class W>
void load_solid_file(const std::string& path, unsigned k, CountTable<W>& table) {
  const auto in = open_count_file(path, {true, size_t{1} << 20});
  for (KmerCount r; in->next(r);) {
    if (r.kmer.size() != k)
      in->fail("k-mer of length " + std::to_string(r.kmer.size()) + ", but -k is " + std::to_string(k));
    W km{};
    try {
      km = encode_kmer<W>(r.kmer);
    } catch (const std::invalid_argument& e) {
      in->fail(std::string("bad k-mer: ") + e.what());
    }
    const W rc = reverse_complement(km, k);
    table.add(std::min(km, rc), saturate32(r.count));
  }
}

template <class W>
std::unique_ptr<CountTable<W>> solid_kmers(const ReadFilterOptions& o, const ReadFilterHooks& hooks, ReadFilterResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  auto table = std::make_unique<CountTable<W>>(0);
  ReadFilterResult::Solid& s = r.solid;
  s.used = true;
  if (!o.solid_path.empty()) {
    s.source = o.solid_path;
    load_solid_file(o.solid_path, o.k, *table);
  } else {
    s.source = "first pass (kmerbloom count)";
    CountOptions co;
    co.read_set() = o.read_set();
    co.canonical = true;
    co.max_memory = 0;  // -M bounds the gate and sketch; this pass runs before them
    co.batch_bases = CountOptions().batch_bases;  // the filter's small batches suit its ordered decider
    co.min_count = o.min_count;
    CountHooks ch;
    ch.log = hooks.log;
    ch.progress = hooks.progress;
    if (hooks.pass) ch.pass = [&](const std::string& name) { hooks.pass("weak k-mers, " + name); };
    const CountResult cr = count_kmers(
        co, [&](std::string_view km, uint64_t c) { table->add(encode_kmer<W>(km), saturate32(c)); }, ch);
  }
  table->for_each([&](W, uint32_t c) { s.kmers += c >= o.min_count; });
  s.bytes = table->bytes();
  s.seconds = seconds_since(t0);
  r.pass_seconds.push_back(s.seconds);
  if (hooks.log)
    hooks.log("solid k-mers (count >= " + std::to_string(o.min_count) + "): " + std::to_string(s.kmers) + " from " +
              s.source + ", " + format_bytes(static_cast<double>(s.bytes)));
  return table;
}

// The two numbers the plan needs (see the sizing rule in read_filter.hpp).
void sketch_sizing_input(const ReadFilterOptions& o, const ReadFilterHooks& hooks, ReadFilterResult& r) {
  ReadFilterResult::Sketch& s = r.sketch;
  const bool stream = o.has_stream_input();
  if (o.expected_kmers) {
    s.source = "--expected";
    s.demand.repeated = o.expected_kmers;
    s.demand.once = 2 * o.expected_kmers;
  } else if (stream) {
    s.source = "stream default";
    s.demand.repeated = kStreamRepeatedKeys;
    s.demand.once = kStreamOnceKeys;
    if (hooks.info)
      hooks.info("a stream cannot be read twice: sketch sized for " + std::to_string(kStreamRepeatedKeys) +
                 " k-mers seen twice or more; --expected or --max-memory size it");
  } else {
    s.source = "estimate";
    const auto t0 = std::chrono::steady_clock::now();
    EstimateOptions eo;
    eo.read_set() = o.read_set();
    eo.canonical = true;
    eo.sample_log2 = 18;  // F0 within about 0.2% (one standard error)
    eo.max_row = kSizingRows;
    if (hooks.pass) hooks.pass("sizing the sketch: sampling the k-mers");
    const EstimateResult est = estimate_kmers(eo, hooks.progress);
    r.pass_seconds.push_back(seconds_since(t0));
    s.estimated_distinct = est.spectrum.distinct;
    s.estimated_singletons = est.spectrum.f.size() > 1 ? est.spectrum.f[1] : 0;
    s.demand = sketch_demand(est.spectrum, o.target_coverage);
  }
}

std::unique_ptr<GatedSketch> make_sketch(const ReadFilterOptions& o, const ReadFilterHooks& hooks, ReadFilterResult& r) {
  ReadFilterResult::Sketch& s = r.sketch;
  s.used = true;
  sketch_sizing_input(o, hooks, r);
  s.plan = plan_gated_sketch(s.demand.repeated, s.demand.once, o.max_memory, kMinSketchBytes);
  const GatedSketchPlan& p = s.plan;
  auto sketch = std::make_unique<GatedSketch>(p);
  s.bytes = sketch->bytes();
  s.blocks = p.sketch_blocks;
  s.capped = p.capped;
  s.design_collision_rate = p.collision_rate;
  s.sizing = s.source + ": " + std::to_string(p.repeated_keys) + " k-mers counted twice or more, " +
             std::to_string(p.once_keys) + " once (kept share " + std::to_string(s.demand.kept_share) +
             "); gate for " + std::to_string(p.gate_keys) + " keys at " + std::to_string(kGateFpr) + ": " +
             format_bytes(static_cast<double>(p.gate_bytes())) + ", " + std::to_string(p.gate.hashes) + " hashes; sketch for " +
             std::to_string(p.sketch_keys) + " keys at " +
             std::to_string(static_cast<int>(CountMinSketch::kKeysPerBlock)) + " keys per 64-byte block: " +
             std::to_string(p.sketch_blocks) + " blocks, " + format_bytes(static_cast<double>(p.sketch_bytes())) +
             (p.capped ? "; both capped by --max-memory" : "");
  if (hooks.log)
    hooks.log("sketch: " + s.sizing + "; model gate rate " + std::to_string(p.gate_fpr) + ", collision rate " +
              std::to_string(p.collision_rate));
  if (p.capped && hooks.info)
    hooks.info("abundance sketch capped at " + format_bytes(static_cast<double>(s.bytes)) + " by --max-memory; expected gate rate " +
               std::to_string(p.gate_fpr) + ", collision rate " + std::to_string(p.collision_rate));
  return sketch;
}

template <class W>
ReadFilterResult run_filter(const ReadFilterOptions& o, const ReadFilterSink& sink, const ReadFilterHooks& hooks) {
  ReadFilterResult r;
  std::unique_ptr<CountTable<W>> solid;
  if (o.weak != WeakMode::none) solid = solid_kmers<W>(o, hooks, r);
  std::unique_ptr<GatedSketch> sketch;
  if (o.normalize) sketch = make_sketch(o, hooks, r);
  const auto t0 = std::chrono::steady_clock::now();
  if (hooks.pass) hooks.pass("filtering the reads");
  detail::run_filter_stages<W>(o, sketch.get(), solid.get(), sink, r, hooks.progress);
  r.pass_seconds.push_back(seconds_since(t0));
  if (sketch) {
    r.sketch.fill = sketch->sketch().fill();
    r.sketch.gate_estimated_fpr = sketch->gate().estimated_fpr();
    r.sketch.gate_estimated_keys = sketch->gate().estimated_keys();
    if ((r.sketch.fill.collision_rate > 0.05 || r.sketch.gate_estimated_fpr > 2 * kGateFpr) && hooks.info)
      hooks.info("the abundance sketch is crowded (collision rate " + std::to_string(r.sketch.fill.collision_rate) +
                 ", gate rate " + std::to_string(r.sketch.gate_estimated_fpr) +
                 "): counts run high and a few reads may be dropped too early; raise --max-memory or --expected");
  }
  return r;
}

}  // namespace

void ReadFilterOptions::validate() const {
  auto bad = [](const std::string& s) { throw std::invalid_argument(s); };
  ReadSetOptions::validate(kMaxK);
  if (paired_files && interleaved) bad("two mate files and --interleaved exclude each other");
  if (paired_files && inputs.size() != 2)
    bad("paired files need exactly two inputs (R1 R2), got " + std::to_string(inputs.size()));
  if (split_mates && !interleaved && !paired_files) bad("a mate 2 output needs paired input");
  if (normalize && (target_coverage < 1 || target_coverage > CountMinSketch::kMaxCount))
    bad("--target-coverage must be between 1 and " + std::to_string(CountMinSketch::kMaxCount) + ", got " +
        std::to_string(target_coverage));
  if (!normalize && weak == WeakMode::none) bad("nothing to do: --no-normalize needs --drop-weak or --trim-weak");
  if (weak != WeakMode::none && min_count < 2) bad("--min-count must be at least 2");
  if (!solid_path.empty() && weak == WeakMode::none) bad("--solid needs --drop-weak or --trim-weak");
  if (weak != WeakMode::none && solid_path.empty())
    for (const auto& p : inputs)
      if (is_stream(p))
        bad("--drop-weak / --trim-weak read the input twice, and " + display_name(p) +
            " is a stream: give files, or the solid k-mers with --solid");
  if (normalize && max_memory < kMinSketchBytes)  // exit 5, as for count
    throw BudgetError("cannot filter in " + std::to_string(max_memory) + " bytes: the abundance sketch needs at least " +
                          std::to_string(kMinSketchBytes >> 20) + " MiB",
                      kMinSketchBytes);
}

std::string_view mate_base_name(std::string_view name) noexcept {
  const size_t ws = name.find_first_of(" \t");
  if (ws != std::string_view::npos) name = name.substr(0, ws);
  if (name.size() >= 2 && name[name.size() - 2] == '/' && (name.back() == '1' || name.back() == '2'))
    name.remove_suffix(2);
  return name;
}

SketchDemand sketch_demand(const KmerSpectrumEstimate& e, unsigned target_coverage) noexcept {
  SketchDemand d;
  const double f1 = e.f.size() > 1 ? e.f[1] : 0;
  const double c_max = target_coverage;
  double occurrences = 0, kept = 0, listed = f1;  // listed: occurrences in rows 1..max_row
  for (size_t c = 2; c < e.f.size(); ++c) {
    occurrences += static_cast<double>(c) * e.f[c];
    kept += std::min(static_cast<double>(c), c_max) * e.f[c];
  }
  listed += occurrences;
  const double rest = std::max(0.0, static_cast<double>(e.kmers_total) - listed);
  occurrences += rest;
  kept += std::min(rest, c_max * e.above_max_row);
  d.kept_share = occurrences > 0 ? std::min(1.0, kept / occurrences) : 1.0;
  const double margin = e.exact ? 1.0 : 1.0 + 3 * e.relative_std_error;
  d.repeated = static_cast<uint64_t>(std::llround(std::max(0.0, e.distinct - f1) * margin));
  d.once = static_cast<uint64_t>(std::llround(std::min(1.0, kKeptShareMargin * d.kept_share) * f1 * margin));
  return d;
}

ReadFilterResult filter_reads(const ReadFilterOptions& options, const ReadFilterSink& sink, const ReadFilterHooks& hooks) {
  options.validate();
  return dispatch_kmer_width(options.k, [&]<class W>() { return run_filter<W>(options, sink, hooks); });
}

}  // namespace kmerbloom
