// std::regex in g++ 12 under AddressSanitizer trips a false -Wmaybe-uninitialized inside std::function.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "hints.hpp"

#include <regex>

namespace kmerbloom::cli {

std::vector<std::string> peer_hints(const std::vector<std::string>& args, const std::string& subcommand) {
  std::vector<std::string> out;
  const bool counting = subcommand == "count" || subcommand == "estimate" || subcommand == "build";
  auto add = [&](const std::string& s) {
    for (const auto& o : out)
      if (o == s) return;
    out.push_back(s);
  };
  static const std::regex kmc_min(R"(-ci([0-9]+))"), kmc_max(R"(-cx([0-9]+))"),
      jf_m(R"(-m([0-9]*))"), jf_s(R"(-s(.*))");
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string next = i + 1 < args.size() ? args[i + 1] : "N";
    std::smatch m;
    if (std::regex_match(a, m, kmc_min)) {
      add("hint: " + a + " is KMC's spelling; kmerbloom writes -c " + m[1].str() + " (--min-count)");
    } else if (std::regex_match(a, m, kmc_max)) {
      add("hint: " + a + " is KMC's spelling; kmerbloom writes -U " + m[1].str() + " (--max-count)");
    } else if ((a == "-m" || a == "--mer-len" || std::regex_match(a, m, jf_m)) && counting) {
      const std::string k = a == "-m" || a == "--mer-len" ? next : m[1].str().empty() ? next : m[1].str();
      add("hint: the k-mer length is -k in kmerbloom (Jellyfish's -m): -k " + k);
    } else if ((a == "-C" || a == "--canonical") && counting) {
      add("hint: canonical k-mers are the default in kmerbloom: drop -C (--no-canonical counts k-mers as read)");
    } else if ((a == "-s" || a == "--size" || std::regex_match(a, m, jf_s)) && counting) {
      add("hint: no hash size is needed (Jellyfish's -s): kmerbloom sizes its tables from the input; "
          "-M caps the memory, --expected N gives the distinct k-mers if known");
    }
  }
  return out;
}

std::string explain_parse_error(const std::string& message, const std::string& subcommand,
                                const std::vector<std::string>& subcommands) {
  if (message.find("subcommand is required") != std::string::npos) {
    std::string list;
    for (const auto& s : subcommands) list += (list.empty() ? "" : ", ") + s;
    return "a subcommand is required, one of: " + list + " (kmerbloom count reads.fq.gz -o solid.tsv counts k-mers)";
  }
  static const std::regex missing(R"((inputs?|stats|filter) is required)");
  std::smatch m;
  if (std::regex_search(message, m, missing)) {
    const std::string what = subcommand == "report"         ? "the statistics file of count --stats"
                             : subcommand == "merge-counts" ? "the files of count (KMER<TAB>COUNT, or histograms)"
                             : subcommand == "merge" || subcommand == "info" ? "filter files (.kbf, from build)"
                             : subcommand == "query" && m[1].str() == "filter"
                                 ? "a filter file (.kbf, from build) and then the reads to screen"
                                 : "input files (FASTA or FASTQ, plain, gzip or BGZF; - reads standard input)";
    return "no input given: " + subcommand + " needs " + what + "; see kmerbloom " + subcommand + " --help";
  }
  return message;
}

}  // namespace kmerbloom::cli
