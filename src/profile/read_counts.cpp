#include "profile/read_counts.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {

SortedReadCounts::SortedReadCounts(const std::string& path, unsigned expected_k)
    : in_(open_sorted_counts(path, {.expected_k = expected_k,
                                    .max_k = kMaxK,
                                    .who = "qv",
                                    .canonical = true,
                                    .threaded = true})) {
  advance();
  if (done_) throw InputError(in_->name() + ": no k-mers: the read counts are empty");
}

void SortedReadCounts::advance() {
  if (!in_->next(kmer_, count_)) {
    done_ = true;
    return;
  }
  min_count_ = std::min(min_count_, count_);
}

}  // namespace kmerbloom
