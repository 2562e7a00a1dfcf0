#include "count/counter.hpp"

#include <algorithm>
#include <stdexcept>

#include "seqio/paths.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {

void CountOptions::validate() const {
  ReadSetOptions::validate(kMaxK);
  if (min_count < 1) throw std::invalid_argument("--min-count must be at least 1");
  if (max_count < min_count) throw std::invalid_argument("--max-count must not be below --min-count");
  if (histo_max < 1) throw std::invalid_argument("--histo-max must be at least 1");
  if (fpr < 0 || fpr >= 0.5) throw std::invalid_argument("--fpr must be in (0, 0.5)");
  if (partitions < 1 || partition >= partitions)
    throw std::invalid_argument("--partition I/N needs 0 <= I < N, got " + std::to_string(partition) + "/" +
                                std::to_string(partitions));
  if (gate == GateMode::bloom && min_count < 2) throw std::invalid_argument("the Bloom gate needs --min-count 2 or more");
}

}  // namespace kmerbloom
