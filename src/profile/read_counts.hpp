// The sorted k-mer counts of the reads, as qv merges them with the
// assembly's: a count file read through formats/sorted_counts.hpp (canonical
// k-mers, parsed ahead on a thread of its own so that parsing overlaps the
// assembly's count and the merge), seen one record at a time.
//
// Errors: InputError naming the file and line (or KFF byte), thrown by
// advance() in file order. Thread safety: one consumer thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "formats/sorted_counts.hpp"

namespace kmerbloom {

class SortedReadCounts {
 public:
  // Opens path and reads its first record (k is known on return); an empty
  // file is an InputError. expected_k: 0, or the k the caller wants.
  SortedReadCounts(const std::string& path, unsigned expected_k);

  unsigned k() const { return in_->k(); }
  bool done() const { return done_; }
  // The current record; valid until advance().
  std::string_view kmer() const { return kmer_; }
  uint64_t count() const { return count_; }
  // The smallest count of the records passed so far.
  uint64_t min_count() const { return min_count_; }
  void advance();

 private:
  std::unique_ptr<SortedCounts> in_;
  bool done_ = false;
  std::string_view kmer_;
  uint64_t count_ = 0;
  uint64_t min_count_ = ~uint64_t{0};
};

}  // namespace kmerbloom
