// kmerbloom info: what a filter file holds, as text or JSON.
#include <cmath>
#include <memory>
#include <sys/stat.h>

#include <spdlog/fmt/fmt.h>

#include "commands.hpp"
#include "common.hpp"
#include "kmerbloom/io/output.hpp"
#include "kmerbloom/kbf/kbf.hpp"

namespace kmerbloom::cli {
namespace {

struct InfoArgs {
  std::string input;
  std::string output = "-";
  bool json = false;
};

// Saturated layers estimate infinitely many keys: JSON null, text "saturated".
nlohmann::json finite_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

nlohmann::json describe(const InfoArgs& a, const LoadedFilter& f) {
  const FilterMeta& m = f.meta;
  const ScalableBloom& b = f.filter;
  const ScalableBloomParams& p = b.params();
  struct stat st {};
  nlohmann::json j;
  j["file"] = a.input;
  j["file_bytes"] = ::stat(a.input.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  j["format_version"] = kBloomFileVersion;
  j["k"] = m.k;
  j["canonical"] = m.canonical;
  j["hash"] = {{"name", m.hash_name}, {"seed", m.seed}};
  j["min_count"] = m.min_count;
  // build stores a JSON object as the free-form string; show it as one.
  j["extra"] = nlohmann::json::accept(m.extra_json) ? nlohmann::json::parse(m.extra_json)
                                                     : nlohmann::json(m.extra_json);
  j["chain"] = {{"initial_capacity", p.initial_capacity}, {"fpr", p.fpr}, {"growth", p.growth},
                {"tightening", p.tightening}, {"linear", p.linear_growth}};
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < b.layers(); ++i) {
    const BloomLayerInfo l = b.layer_info(i, true);
    layers.push_back({{"blocks", b.layer(i).blocks()}, {"bits", l.bits}, {"bytes", b.layer(i).bytes()},
                      {"hashes", l.hashes}, {"capacity", l.capacity}, {"target_fpr", l.target_fpr},
                      {"keys", l.keys}, {"bits_set", l.bits_set},
                      {"fill", l.bits ? double(l.bits_set) / double(l.bits) : 0.0},
                      {"estimated_keys", finite_or_null(b.layer(i).estimated_keys())},
                      {"estimated_fpr", l.estimated_fpr}});
  }
  j["layers"] = layers;
  j["bytes"] = b.bytes();
  j["estimated_keys"] = finite_or_null(b.estimated_keys());
  j["estimated_fpr"] = b.estimated_fpr();
  return j;
}

std::string text_of(const nlohmann::json& j) {
  const auto num = [](const nlohmann::json& x, const char* fmt_spec) {
    return x.is_null() ? std::string("saturated") : fmt::format(fmt::runtime(fmt_spec), x.get<double>());
  };
  std::string s = fmt::format("file\t{} ({} bytes, format version {})\n", j["file"].get<std::string>(),
                              j["file_bytes"].get<uint64_t>(), j["format_version"].get<unsigned>());
  s += fmt::format("k\t{}\ncanonical\t{}\n", j["k"].get<unsigned>(), j["canonical"].get<bool>() ? "yes" : "no");
  s += fmt::format("hash\t{}, seed {}\n", j["hash"]["name"].get<std::string>(), j["hash"]["seed"].get<uint64_t>());
  s += fmt::format("min_count\t{}\nextra\t{}\n", j["min_count"].get<uint64_t>(), j["extra"].dump());
  const auto& c = j["chain"];
  s += fmt::format("chain\ttarget fpr {}, first layer {} keys, growth {}, tightening {}{}\n", c["fpr"].get<double>(),
                   c["initial_capacity"].get<uint64_t>(), c["growth"].get<double>(), c["tightening"].get<double>(),
                   c["linear"].get<bool>() ? ", linear" : "");
  s += fmt::format("layers\t{}\n", j["layers"].size());
  size_t i = 0;
  for (const auto& l : j["layers"])
    s += fmt::format("layer {}\t{} blocks ({} bytes), {} hashes, capacity {} at fpr {:.3g}; {} keys (estimated {}), "
                     "fill {:.4f}, estimated fpr {:.3g}\n",
                     i++, l["blocks"].get<uint64_t>(), l["bytes"].get<uint64_t>(), l["hashes"].get<unsigned>(),
                     l["capacity"].get<uint64_t>(), l["target_fpr"].get<double>(), l["keys"].get<uint64_t>(),
                     num(l["estimated_keys"], "{:.0f}"), l["fill"].get<double>(), l["estimated_fpr"].get<double>());
  s += fmt::format("bytes\t{}\nestimated_keys\t{}\nestimated_fpr\t{:.4g}\n", j["bytes"].get<uint64_t>(),
                   num(j["estimated_keys"], "{:.0f}"), j["estimated_fpr"].get<double>());
  return s;
}

int run_info(const InfoArgs& a) {
  const LoadedFilter f = open_filter(a.input);
  const nlohmann::json j = describe(a, f);
  OutputFile out(a.output);
  out.write(a.json ? j.dump(2) + "\n" : text_of(j));
  out.commit();
  return kExitOk;
}

}  // namespace

Action setup_info(CLI::App& sub) {
  auto a = std::make_shared<InfoArgs>();
  sub.add_option("input", a->input, "Filter file (.kbf)")->required();
  sub.add_flag("--json", a->json, "JSON instead of text");
  sub.add_option("-o,--output", a->output, "Where to write; - is stdout")->capture_default_str();
  return [a] { return run_info(*a); };
}

}  // namespace kmerbloom::cli
