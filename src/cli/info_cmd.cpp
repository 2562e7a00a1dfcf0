// kmerbloom info: what a filter file holds, as text or JSON.
#include <cmath>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/fmt/fmt.h>

#include "commands.hpp"
#include "subcommand.hpp"
#include "common/format.hpp"
#include "formats/output.hpp"
#include "kbf/kbf.hpp"

namespace kmerbloom::cli {
namespace {

struct InfoArgs {
  std::string input;
  std::string output = "-";
  bool json = false;
};

nlohmann::json describe(const InfoArgs& a, const LoadedFilter& f) {
  struct stat st {};
  const bool got = a.input == "-" ? ::fstat(STDIN_FILENO, &st) == 0 : ::stat(a.input.c_str(), &st) == 0;
  return filter_file_json(display_name(a.input), got && S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0, f);
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
  check_outputs_first({{"input", a.input}}, {{"-o", a.output}});
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
  sub.add_option("input", a->input, "Filter file (.kbf); - reads stdin")->required();
  sub.add_flag("--json", a->json, "JSON instead of text");
  sub.add_option("-o,--output", a->output, "Where to write; - is stdout")->capture_default_str();
  return [a] { return run_info(*a); };
}

}  // namespace kmerbloom::cli
