// A program built against the installed library: counts the solid k-mers of
// FASTA/FASTQ files and prints them as `kmerbloom count` does (KMER<TAB>COUNT,
// sorted), then a summary on stderr.
//   example [-k K] READS...
#include <kmerbloom/kmerbloom.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  kmerbloom::CountOptions options;
  int i = 1;
  if (argc > 2 && std::strcmp(argv[1], "-k") == 0) {
    options.k = static_cast<unsigned>(std::atoi(argv[2]));
    i = 3;
  }
  for (; i < argc; ++i) options.inputs.emplace_back(argv[i]);
  if (options.inputs.empty()) {
    std::fprintf(stderr, "usage: example [-k K] READS...\n");
    return 2;
  }
  try {
    options.validate();
    const kmerbloom::CountResult r = kmerbloom::count_kmers(options, [](std::string_view kmer, uint64_t count) {
      std::printf("%.*s\t%llu\n", static_cast<int>(kmer.size()), kmer.data(), static_cast<unsigned long long>(count));
    });
    std::fprintf(stderr, "%llu reads, %llu distinct %u-mers, %llu seen at least twice\n",
                 static_cast<unsigned long long>(r.input.reads), static_cast<unsigned long long>(r.distinct), options.k,
                 static_cast<unsigned long long>(r.solid));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example: %s\n", e.what());
    return 1;
  }
  return 0;
}
