// std::regex in g++ 12 under AddressSanitizer trips a false -Wmaybe-uninitialized inside std::function.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "hints.hpp"

#include <regex>

namespace kmerbloom::cli {

namespace {

// kmc_tools simple's spellings on `kmerbloom sets`; "" for none.
std::string sets_hint(const std::string& a) {
  static const std::regex in_min(R"(-ci([0-9]+))"), in_max(R"(-cx([0-9]+))"), mode(R"(-oc(sum|min|max|left|right))");
  std::smatch m;
  if (std::regex_match(a, m, in_min))
    return "hint: " + a + " is KMC's spelling; kmerbloom sets writes --input-min-count " + m[1].str() +
           " for the inputs, -c " + m[1].str() + " for the result";
  if (std::regex_match(a, m, in_max))
    return "hint: " + a + " is KMC's spelling; kmerbloom sets writes --input-max-count " + m[1].str() +
           " for the inputs, -U " + m[1].str() + " for the result";
  if (std::regex_match(a, m, mode)) {
    const std::string v = m[1] == "left" ? "first" : m[1] == "right" ? "last" : m[1].str();
    return "hint: " + a + " is KMC's spelling; kmerbloom sets writes --counts " + v;
  }
  if (a == "kmers_subtract") return "hint: kmc_tools' kmers_subtract is kmerbloom sets diff";
  if (a == "counters_subtract") return "hint: kmc_tools' counters_subtract is kmerbloom sets subtract";
  if (a == "simple") return "hint: kmerbloom sets takes the operation first: sets intersect A B -o OUT";
  return "";
}

}  // namespace

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
    if (const std::string h = subcommand == "sets" ? sets_hint(a) : ""; !h.empty()) {
      add(h);
    } else if (std::regex_match(a, m, kmc_min)) {
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
  static const std::regex missing(R"((inputs?|stats|filter|operation) is required)");
  std::smatch m;
  if (std::regex_search(message, m, missing)) {
    const std::string what = subcommand == "report"         ? "the statistics file of count --stats"
                             : subcommand == "merge-counts" ? "the files of count (KMER<TAB>COUNT, or histograms)"
                             : subcommand == "sets" ? "an operation and sorted k-mer count files (TSV or KFF)"
                             : subcommand == "merge" || subcommand == "info" ? "filter files (.kbf, from build)"
                             : subcommand == "query" && m[1].str() == "filter"
                                 ? "a filter file (.kbf, from build) and then the reads to screen"
                                 : "input files (FASTA or FASTQ, plain, gzip or BGZF; - reads standard input)";
    return "no input given: " + subcommand + " needs " + what + "; see kmerbloom " + subcommand + " --help";
  }
  return message;
}

}  // namespace kmerbloom::cli
