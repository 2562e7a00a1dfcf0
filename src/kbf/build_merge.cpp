// Filter files: build, open and write, union and intersection.
#include "kbf/kbf.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "common/format.hpp"
#include "formats/output.hpp"
#include "seqio/reader.hpp"
#include "estimate/cardinality.hpp"
#include "kmer/hash.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {
namespace {

constexpr size_t kAhead = 16;  // prefetch distance in keys

// Key counts stored in files: estimated from the bits, so equal bits give
// equal files whatever order or threads inserted them.
uint64_t keys_from_bits(const BlockedBloom& f, uint64_t capacity) {
  const double n = f.estimated_keys();
  return std::isfinite(n) ? static_cast<uint64_t>(std::llround(n)) : capacity;
}

ScalableBloomParams chain_params(uint64_t capacity, double fpr) {
  ScalableBloomParams p;
  p.initial_capacity = std::max<uint64_t>(capacity, 1);
  p.fpr = fpr;
  return p;
}

// A one-layer chain holding f, its target rate the whole budget (no growth).
ScalableBloom single_layer(BlockedBloom f, uint64_t capacity, double fpr) {
  std::vector<ScalableBloom::RestoredLayer> layers;
  const uint64_t keys = keys_from_bits(f, capacity);
  layers.push_back({std::move(f), capacity, fpr, keys});
  return ScalableBloom::from_layers(chain_params(capacity, fpr), std::move(layers));
}

// Inserts n hashes, prefetching kAhead keys ahead so that cache misses overlap.
template <class Filter>
void insert_hashes(Filter& f, const uint64_t* h, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) f.prefetch(h[i + kAhead]);
    f.insert(h[i]);
  }
}

// Runs the pipeline and hands each worker's k-mer hashes, a chunk at a time,
// to insert(hashes, count).
template <class W, class Insert>
InputSummary hash_all(const BuildOptions& o, const FilterHooks& hooks, Insert&& insert) {
  const KmerShape<W> shape(o.k, o.canonical);
  std::vector<PerWorker<InputSummary>> sums(o.threads);
  std::vector<PerWorker<std::vector<uint64_t>>> chunks(o.threads);
  PipelineOptions popt;
  popt.workers = o.threads;
  popt.batch_bases = o.batch_bases;
  popt.piece_k = o.k;
  run_pipeline(o.inputs, popt, [&](const RecordBatch& b, unsigned id) {
    std::vector<uint64_t>& h = chunks[id].value;
    InputSummary& s = sums[id].value;
    for (size_t i = 0; i < b.size(); ++i) {
      const std::string_view seq = b.seq(i);
      s.add_record(b, i);
      for_each_kmer(seq, shape, [&](W km) { h.push_back(hash_kmer(km, o.seed)); });
      if (h.size() >= 4096 || i + 1 == b.size()) {
        s.kmers += h.size();
        insert(h.data(), h.size());
        h.clear();
      }
    }
  }, hooks.progress);
  InputSummary total;
  for (const auto& s : sums) total.add(s.value);
  return total;
}

std::string sizing_json(BuildSizing s) { return std::string("{\"sizing\":\"") + to_string(s) + "\"}"; }

}  // namespace

// --------------------------------------------------------------------- build

void BuildOptions::validate() const {
  ReadSetOptions::validate(kMaxK);
  if (min_count < 1) throw std::invalid_argument("--min-count must be at least 1");
  if (!(fpr > 0 && fpr < 0.5)) throw std::invalid_argument("--fpr must be in (0, 0.5), got " + std::to_string(fpr));
}

const char* to_string(BuildSizing s) {
  constexpr const char* kNames[] = {"expected", "counted", "estimated", "growing"};
  return kNames[static_cast<size_t>(s)];
}

BuildResult build_filter(const BuildOptions& o, const FilterHooks& hooks) {
  o.validate();
  BuildStats r;
  const auto fixed = [&](uint64_t capacity) {
    r.capacity = std::max<uint64_t>(capacity, 1);
    BlockedBloom f = BlockedBloom::for_capacity(r.capacity, o.fpr);
    if (hooks.log)
      hooks.log("filter: one layer for " + std::to_string(r.capacity) + " keys at false-positive rate " +
                std::to_string(o.fpr) + ": " + std::to_string(f.hashes()) + " hashes, " + std::to_string(f.bytes()) +
                " bytes");
    return f;
  };
  const auto fill = [&](auto& f) {  // every k-mer of the input into f
    return dispatch_kmer_width(o.k, [&]<class W>() {
      return hash_all<W>(o, hooks, [&](const uint64_t* h, size_t n) { insert_hashes(f, h, n); });
    });
  };
  std::optional<ScalableBloom> filter;
  if (o.min_count >= 2) {
    // Solid k-mers: count exactly, keep their hashes, then size and fill.
    CountOptions c;
    c.read_set() = o.read_set();
    c.min_count = o.min_count;
    const CountHooks ch{hooks.log, hooks.info, hooks.pass, hooks.progress, {}};
    std::vector<uint64_t> hashes;
    r.input = dispatch_kmer_width(o.k, [&]<class W>() {
      const auto keep = [&](std::string_view km, uint64_t) { hashes.push_back(hash_kmer(encode_kmer<W>(km), o.seed)); };
      return count_kmers(c, keep, ch).input;
    });
    r.sizing = o.expected ? BuildSizing::expected : BuildSizing::counted;
    BlockedBloom f = fixed(o.expected ? o.expected : hashes.size());
    insert_hashes(f, hashes.data(), hashes.size());
    r.keys_inserted = hashes.size();
    filter = single_layer(std::move(f), r.capacity, o.fpr);
  } else if (o.expected || !o.has_stream_input()) {
    uint64_t capacity = o.expected;
    r.sizing = BuildSizing::expected;
    if (!o.expected) {  // size from the data: a sampling pass (cardinality.hpp) gives F0
      EstimateOptions e;
      e.read_set() = o.read_set();
      if (hooks.pass) hooks.pass("sizing: sampling the k-mers");
      const KmerSpectrumEstimate est = estimate_kmers(e, hooks.progress).spectrum;
      r.sizing = BuildSizing::estimated;
      capacity = static_cast<uint64_t>(std::ceil(est.distinct * (1 + 3 * est.relative_std_error)));
      if (hooks.log) hooks.log("sizing pass: " + std::to_string(std::llround(est.distinct)) + " distinct k-mers");
    }
    BlockedBloom f = fixed(capacity);
    if (hooks.pass) hooks.pass("filling the filter");
    r.input = fill(f);
    r.keys_inserted = keys_from_bits(f, r.capacity);
    r.keys_estimated = true;
    filter = single_layer(std::move(f), r.capacity, o.fpr);
  } else {
    if (hooks.info)
      hooks.info("input from a stream cannot be read twice: the filter grows with the data (give --expected for a "
                 "fixed, mergeable shape)");
    r.sizing = BuildSizing::growing;
    r.capacity = uint64_t{1} << 22;
    ScalableBloom chain(chain_params(r.capacity, o.fpr));
    if (hooks.pass) hooks.pass("filling the filter");
    r.input = fill(chain);
    r.keys_inserted = chain.keys_inserted();
    filter = std::move(chain);
  }
  // Only a user's --expected can be too small; 2% leaves room for the noise of the estimate from the bits.
  r.over_capacity = r.sizing == BuildSizing::expected && double(r.keys_inserted) > 1.02 * double(r.capacity);
  r.estimated_fpr = filter->estimated_fpr();
  FilterMeta meta{o.k, o.canonical, kKmerHashName, o.seed, o.min_count, sizing_json(r.sizing)};
  return {LoadedFilter{std::move(meta), std::move(*filter)}, r};
}

// ------------------------------------------------------------ filter files

LoadedFilter open_filter(const std::string& path, const LoadLimits& limits) {
  LoadedFilter f = [&] {
    try {
      return load_filter(path, limits);
    } catch (const FilterFileError& e) {
      throw InputError(e.what());
    }
  }();
  if (f.meta.hash_name != kKmerHashName)
    throw FilterMismatch(display_name(path) + ": k-mers hashed with '" + printable(f.meta.hash_name) +
                         "'; this build computes only '" +
                         kKmerHashName + "'");
  if (f.meta.k < 1 || f.meta.k > kMaxK)
    throw FilterMismatch(display_name(path) + ": k = " + std::to_string(f.meta.k) + " out of the range 1.." + std::to_string(kMaxK));
  return f;
}

void write_filter(const std::string& path, const LoadedFilter& f) { save_filter(path, f.filter, f.meta); }

// ------------------------------------------------------------ merge filters

namespace {

struct ShapeOf {
  const FilterMeta& meta;
  std::vector<std::pair<uint64_t, unsigned>> layers;  // blocks, hashes
};

ShapeOf shape_of(const LoadedFilter& f) {
  ShapeOf s{f.meta, {}};
  for (size_t i = 0; i < f.filter.layers(); ++i)
    s.layers.emplace_back(f.filter.layer(i).blocks(), f.filter.layer(i).hashes());
  return s;
}

// The sizing build_filter noted in the file ("expected", "estimated",
// "counted", "growing"); "" for a file that says none.
std::string sizing_of(const FilterMeta& m) {
  static const std::string key = "\"sizing\":\"";
  const size_t at = m.extra_json.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size(), to = m.extra_json.find('"', from);
  return to == std::string::npos ? "" : m.extra_json.substr(from, to - from);
}

void compare(const ShapeOf& a, const std::string& na, const ShapeOf& b, const std::string& nb) {
  const auto differ = [&](const std::string& what, const auto& va, const auto& vb) {
    if (va == vb) return;
    std::ostringstream m;
    m << std::boolalpha << what << " differs: " << va << " in " << na << ", " << vb << " in " << nb;
    // Sized from its own data, a filter takes the shape of its input: the
    // same options cannot give the same shape, only the same --expected can.
    const std::string sa = sizing_of(a.meta), sb = sizing_of(b.meta);
    const bool own = (!sa.empty() && sa != "expected") || (!sb.empty() && sb != "expected");
    if (what.starts_with("layer") && own)
      m << " (" << (sa != "expected" ? na : nb) << " was sized from its own reads (" << (sa != "expected" ? sa : sb)
        << " sizing): filters merge only if every build is given the same --expected)";
    else
      m << " (filters merge only if built with the same -k, --no-canonical, --min-count, --expected and --fpr)";
    throw FilterMismatch(m.str());
  };
  differ("k", a.meta.k, b.meta.k);
  differ("canonical", a.meta.canonical, b.meta.canonical);
  differ("hash", a.meta.hash_name, b.meta.hash_name);
  differ("hash seed", a.meta.seed, b.meta.seed);
  differ("min_count", a.meta.min_count, b.meta.min_count);
  differ("layer count", a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    differ("layer " + std::to_string(i) + " blocks", a.layers[i].first, b.layers[i].first);
    differ("layer " + std::to_string(i) + " hashes", a.layers[i].second, b.layers[i].second);
  }
}

}  // namespace

void check_same_shape(const LoadedFilter& a, const std::string& name_a, const LoadedFilter& b,
                      const std::string& name_b) {
  compare(shape_of(a), name_a, shape_of(b), name_b);
}

void FilterCombiner::add(const LoadedFilter& f, const std::string& name) {
  // A key sits in one layer of a chain, not necessarily the same one in two
  // chains: layer-wise AND would lose it (layer-wise OR keeps every key).
  if (op_ == SetOp::intersection && f.filter.layers() > 1)
    throw FilterMismatch(name + ": " + std::to_string(f.filter.layers()) +
                         " layers; an intersection needs one-layer filters (build with --expected)");
  if (added_ == 0) {
    first_name_ = name;
    meta_ = f.meta;
    params_ = f.filter.params();
    layers_.clear();
    for (size_t i = 0; i < f.filter.layers(); ++i) {
      const BloomLayerInfo li = f.filter.layer_info(i, false);
      layers_.push_back({f.filter.layer(i), li.capacity, li.target_fpr, 0});
    }
  } else {
    ShapeOf mine{meta_, {}};
    for (const auto& l : layers_) mine.layers.emplace_back(l.filter.blocks(), l.filter.hashes());
    compare(mine, first_name_, shape_of(f), name);
    for (size_t i = 0; i < layers_.size(); ++i) {
      if (op_ == SetOp::union_of) {
        layers_[i].filter.union_with(f.filter.layer(i));
      } else {
        layers_[i].filter.intersect_with(f.filter.layer(i));
      }
    }
  }
  ++added_;
}

LoadedFilter FilterCombiner::result() {
  if (added_ == 0) throw std::logic_error("FilterCombiner::result: no filter added");
  for (auto& l : layers_) l.keys = keys_from_bits(l.filter, l.capacity);
  LoadedFilter out{meta_, ScalableBloom::from_layers(params_, std::move(layers_))};
  layers_.clear();
  added_ = 0;
  return out;
}

}  // namespace kmerbloom
