#include "profile/qv_files.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "formats/output.hpp"

namespace kmerbloom {
namespace {

constexpr const char* kCopyLabels[kCopyRows] = {"read-only", "1", "2", "3", "4", ">4"};

struct Figures {
  double error, qv;
};

Figures figures(uint64_t missing, uint64_t total, unsigned k) {
  const double e = kmer_error_rate(missing, total, k);
  return {e, phred_qv(e)};
}

std::string percent_text(uint64_t part, uint64_t whole) {
  return whole ? awk_number(100.0 * static_cast<double>(part) / static_cast<double>(whole)) : "na";
}

}  // namespace

std::string awk_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  if (x == 0) return "0";  // -0 too
  if (x == std::trunc(x) && std::fabs(x) <= 2147483647.0)  // an integer within awk's int range
    std::snprintf(buf, sizeof buf, "%.0f", x);
  else
    std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string assembly_name(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.size() > 3 && name.ends_with(".gz")) name.resize(name.size() - 3);
  for (const char* ext : {".fasta", ".fa"})
    if (const std::string e(ext); name.size() > e.size() && name.ends_with(e)) {
      name.resize(name.size() - e.size());
      break;
    }
  return name;
}

std::vector<std::string> qv_file_paths(const std::string& prefix, const std::string& name, bool per_sequence) {
  std::vector<std::string> p{prefix + ".qv", prefix + ".completeness.stats", prefix + "." + name + ".spectra-cn.hist",
                             prefix + "." + name + ".only.hist"};
  if (per_sequence) p.push_back(prefix + "." + name + ".qv");
  return p;
}

void write_qv_files(const QvResult& r, const std::string& prefix, const std::string& name) {
  const std::vector<std::string> paths = qv_file_paths(prefix, name, !r.sequences.empty());
  std::vector<std::unique_ptr<OutputFile>> out;
  for (const std::string& p : paths) out.push_back(std::make_unique<OutputFile>(p));

  const Figures all = figures(r.missing, r.asm_kmers, r.k);
  out[0]->write(name + "\t" + std::to_string(r.missing) + "\t" + std::to_string(r.asm_kmers) + "\t" +
                awk_number(all.qv) + "\t" + awk_number(all.error) + "\n");
  out[1]->write(name + "\tall\t" + std::to_string(r.solid_in_asm) + "\t" + std::to_string(r.solid_distinct) + "\t" +
                percent_text(r.solid_in_asm, r.solid_distinct) + "\n");
  out[2]->write("Copies\tkmer_multiplicity\tCount\n");
  for (int c = 0; c < kCopyRows; ++c)
    for (const auto& [count, n] : r.copies[c].rows())
      out[2]->write(std::string(kCopyLabels[c]) + "\t" + std::to_string(count) + "\t" + std::to_string(n) + "\n");
  out[3]->write("1\t0\t" + std::to_string(r.missing_distinct) + "\n2\t0\t" +
                std::to_string(r.missing - r.missing_distinct) + "\n");
  if (!r.sequences.empty())
    for (const SequenceQv& s : r.sequences) {
      std::string qv = "na", error = "na";
      if (s.kmers) {
        const Figures f = figures(s.missing, s.kmers, r.k);
        qv = awk_number(f.qv);
        error = awk_number(f.error);
      }
      out[4]->write(s.name + "\t" + std::to_string(s.missing) + "\t" + std::to_string(s.kmers) + "\t" + qv + "\t" +
                    error + "\n");
    }
  for (auto& o : out) o->commit();
}

nlohmann::json qv_figures_json(const QvResult& r, const std::string& name) {
  using json = nlohmann::json;
  const Figures all = figures(r.missing, r.asm_kmers, r.k);
  const double share =
      r.solid_distinct ? 100.0 * static_cast<double>(r.solid_in_asm) / static_cast<double>(r.solid_distinct) : NAN;
  json j = {
      {"assembly_name", name},
      {"k", r.k},
      {"qv", std::isfinite(all.qv) ? json(all.qv) : json()},  // null: no k-mer missing
      {"error_rate", all.error},
      {"asm_kmers", r.asm_kmers},
      {"asm_kmers_distinct", r.asm_distinct},
      {"missing_kmers", r.missing},
      {"missing_kmers_distinct", r.missing_distinct},
      {"read_kmers_distinct", r.read_distinct},
      {"read_min_count", r.read_min_count},
      {"solid_threshold", r.solid_threshold},
      {"solid_threshold_source", r.threshold_given ? "--solid-threshold" : "first valley of the read histogram"},
      {"solid_kmers_distinct", r.solid_distinct},
      {"solid_kmers_in_asm", r.solid_in_asm},
      {"completeness_percent", std::isfinite(share) ? json(share) : json()},  // null: no solid k-mer
      {"sequences", r.sequences.size()},
      {"seconds_count_and_merge", r.seconds_count},
      {"seconds_per_sequence", r.seconds_per_sequence},
  };
  json rows = json::object();
  for (int c = 0; c < kCopyRows; ++c) {
    uint64_t distinct = 0;
    for (const auto& [count, n] : r.copies[c].rows()) distinct += n;
    rows[kCopyLabels[c]] = distinct;
  }
  j["read_kmers_by_asm_copies"] = rows;
  return j;
}

}  // namespace kmerbloom
