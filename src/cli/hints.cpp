// std::regex in g++ 12 under AddressSanitizer trips a false -Wmaybe-uninitialized inside std::function.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "hints.hpp"

#include <algorithm>
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
    } else if ((a == "-ci" || a == "-cx") && subcommand != "sets") {
      add("hint: " + a + " " + next + " is KMC's spelling; kmerbloom writes " + (a == "-ci" ? "-c " : "-U ") + next +
          (a == "-ci" ? " (--min-count)" : " (--max-count)"));
    } else if (a == "-fq" || a == "-fa" || a == "-fm" || a == "-fbam" || a == "-fkmc") {
      add("hint: KMC's " + a + " (the input format) is not needed: kmerbloom tells FASTA from FASTQ, plain or gzip, "
          "by the content; drop it");
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
  static const std::regex missing(R"((\w+) is required)");
  std::smatch m;
  if (std::regex_search(message, m, missing) && m[1].str() != "subcommand") {
    const std::string what = subcommand == "report"         ? "the statistics file of count --stats"
                             : subcommand == "merge-counts" ? "the files of count (KMER<TAB>COUNT, or histograms)"
                             : subcommand == "sets" ? "an operation and sorted k-mer count files (TSV or KFF)"
                             : subcommand == "merge" || subcommand == "info" ? "filter files (.kbf, from build)"
                             : subcommand == "query" && m[1].str() == "filter"
                                 ? "a filter file (.kbf, from build) and then the reads to screen"
                             : subcommand == "index" || subcommand == "lookup" || subcommand == "hetmers"
                                 ? "a sorted count file of count (TSV or KFF)"
                             : subcommand == "qv"      ? "an assembly (FASTA) and --reads, the k-mer counts of its reads"
                             : subcommand == "profile" ? "a histogram (COUNT FREQUENCY) or the statistics of count --stats"
                                                       : "input files (FASTA or FASTQ, plain, gzip or BGZF; - reads standard input)";
    if (m[1].str() != "inputs" && m[1].str() != "input" && m[1].str() != "stats" && m[1].str() != "filter" &&
        m[1].str() != "operation" && m[1].str() != "counts" && m[1].str() != "assembly")
      return message;  // a required option, named by the parser
    return "no input given: " + subcommand + " needs " + what + "; see kmerbloom " + subcommand + " --help";
  }
  return message;
}

namespace {

// Edits (insertions, deletions, substitutions, swaps of neighbours) from a to b.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_name(const std::string& word, const std::vector<std::string>& names) {
  if (word.size() < 4) return "";  // -t against -h: too short to say
  const size_t limit = std::clamp<size_t>(word.size() / 3, 1, 2);
  std::string best;
  size_t best_distance = limit + 1;
  for (const auto& n : names) {
    const size_t d = n.starts_with(word) && word.size() >= 3 ? 0 : edit_distance(word, n);
    if (d < best_distance) best = n, best_distance = d;
  }
  return best;
}

std::string unknown_subcommand(const std::string& word, const std::vector<std::string>& subcommands) {
  std::string s = "'" + word + "' is not a subcommand";
  if (word == "histo" || word == "hist" || word == "histogram")
    return s + ": the histogram is written by the count (kmerbloom count reads.fq.gz --histo reads.histo)";
  if (word == "dump") return s + ": the count writes its k-mers itself (kmerbloom count reads.fq.gz -o solid.tsv)";
  if (word == "stats") return s + ": the count writes its statistics (kmerbloom count reads.fq.gz --stats stats.json)";
  if (word == "genomescope") return s + ": the genome profile is kmerbloom profile reads.histo -k 21";
  if (word == "smudgeplot") return s + ": the het-mer pairs are kmerbloom hetmers counts.tsv -o sample";
  if (word == "merqury") return s + ": an assembly's QV is kmerbloom qv assembly.fa --reads reads.kff -o asm";
  if (const std::string c = closest_name(word, subcommands); !c.empty()) return s + "; did you mean " + c + "?";
  std::string list;
  for (const auto& n : subcommands) list += (list.empty() ? "" : ", ") + n;
  return s + "; the subcommands: " + list;
}

std::string unknown_option(const std::string& option, const std::string& subcommand,
                           const std::vector<std::string>& options) {
  std::string s = option + " is not an option of kmerbloom " + subcommand;
  if (const std::string c = closest_name(option, options); !c.empty()) s += "; did you mean " + c + "?";
  return s;
}

}  // namespace kmerbloom::cli
