// A program built against the installed library: counts the solid k-mers of
// FASTA/FASTQ files and prints them as `kmerbloom count` does (KMER<TAB>COUNT,
// sorted), or has the library write them to a file (-o: TSV, FASTA or KFF,
// as the name says), then a summary on stderr.
//   example [-k K] [-o FILE] READS...
#include <kmerbloom/kmerbloom.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  kmerbloom::CountOptions options;
  std::string output;
  int i = 1;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    if (std::strcmp(argv[i], "-k") == 0) options.k = static_cast<unsigned>(std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "-o") == 0) output = argv[i + 1];
    else break;
  }
  for (; i < argc; ++i) options.inputs.emplace_back(argv[i]);
  if (options.inputs.empty()) {
    std::fprintf(stderr, "usage: example [-k K] [-o FILE] READS...\n");
    return 2;
  }
  try {
    options.validate();
    kmerbloom::CountResult r;
    if (!output.empty()) {
      options.output = output;  // the library writes it, in the format its name says
      r = kmerbloom::count_kmers(options);
    } else {
      r = kmerbloom::count_kmers(options, [](std::string_view kmer, uint64_t count) {
        std::printf("%.*s\t%llu\n", static_cast<int>(kmer.size()), kmer.data(), static_cast<unsigned long long>(count));
      });
    }
    std::fprintf(stderr, "%llu reads, %llu distinct %u-mers, %llu seen at least twice\n",
                 static_cast<unsigned long long>(r.input.reads), static_cast<unsigned long long>(r.distinct), options.k,
                 static_cast<unsigned long long>(r.solid));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example: %s\n", e.what());
    return 1;
  }
  return 0;
}
