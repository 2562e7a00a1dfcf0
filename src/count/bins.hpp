// Binned super-k-mers: counting scattered over cluster jobs by input chunk,
// gathered by minimizer bin.
//
// `kmerbloom bin CHUNK -o CHUNK.kbin` reads one chunk of the input once and
// writes its super-k-mers, 2-bit packed, into B bins by minimizer
// (write_bins). `kmerbloom count *.kbin --partition I/N` counts the bins
// b with b mod N = I of every chunk; the N outputs merge (`merge-counts`) into
// exactly what one count of the whole input writes. Every chunk must be
// binned with the same k, strandedness and B. The file layout and its checks
// (a damaged or cut file is an InputError naming it and the bin):
// docs/partitioned-counting.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "count/counter.hpp"
#include "seqio/pipeline.hpp"

namespace kmerbloom {

struct BinOptions : ReadSetOptions {  // inputs: reads
  BinOptions() { batch_bases = 1u << 19; }
  std::string output;  // the bin file
  uint32_t bins = 0;   // 0: default_bins(k)

  // Throws std::invalid_argument naming the first bad option.
  void validate() const;
};

// Bins by default: 1024 for k <= 31, more for wider keys (as count's own
// partitions), so that a bin of a large input still counts within a core's cache.
uint32_t default_bins(unsigned k);
inline constexpr uint32_t kMaxBins = 1u << 16;

struct BinResult {
  InputSummary input;   // reads, bases, k-mer occurrences
  uint32_t bins = 0;
  uint64_t bytes = 0;   // of the bin file
  uint64_t largest_bin_kmers = 0;
  SpoolReport spool;
};

// Reads o.inputs once and writes o.output (atomically: nothing at the path on
// failure). Throws InputError, OutputError, BudgetError, std::invalid_argument.
BinResult write_bins(const BinOptions& o, const CountHooks& hooks = {});

// True if the file at path starts as a bin file does (false for "-", streams
// and files that cannot be opened).
bool is_bin_file(const std::string& path);

// What a bin file was made with (checked as count checks it; InputError).
struct BinFileInfo {
  unsigned k = 0;
  bool canonical = true;
  uint32_t bins = 0;
  uint64_t reads = 0;
};
BinFileInfo read_bin_info(const std::string& path);

// Bin files carry their k and strandedness: when the first input is a bin
// file, takes them into o where not given (k_given, canonical_given).
// count_kmers then checks every file against o.
void take_bin_shape(CountOptions& o, bool k_given, bool canonical_given);

}  // namespace kmerbloom
