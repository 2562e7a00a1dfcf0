// The sorted k-mer counts of the reads, as qv merges them with the
// assembly's: checked record by record (every k-mer of the first one's
// length, upper-case A/C/G/T, canonical, strictly increasing, count >= 1)
// and parsed ahead on a thread of its own, in blocks of kBlockRecords
// (kBlocks + 1 blocks at most, about 8 MiB for k = 21), so that parsing
// overlaps the assembly's count and the merge.
//
// Errors: InputError naming the file and line (or KFF byte); one found by the
// parsing thread is thrown by advance() when the records before it are used
// up, in file order. Thread safety: one consumer thread; the destructor stops
// and joins the parsing thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace kmerbloom {

class SortedReadCounts {
 public:
  static constexpr size_t kBlockRecords = size_t{1} << 16;
  static constexpr size_t kBlocks = 3;

  // Opens path and reads its first record (k is known on return).
  // expected_k: 0, or the k the caller wants (a mismatch is an InputError).
  SortedReadCounts(const std::string& path, unsigned expected_k);
  ~SortedReadCounts();
  SortedReadCounts(const SortedReadCounts&) = delete;
  SortedReadCounts& operator=(const SortedReadCounts&) = delete;

  unsigned k() const { return k_; }
  bool done() const { return done_; }
  // The current record; valid until advance().
  std::string_view kmer() const { return kmer_; }
  uint64_t count() const { return count_; }
  // The smallest count of the records passed so far.
  uint64_t min_count() const { return min_count_; }
  void advance();

 private:
  struct Shared;
  std::unique_ptr<Shared> shared_;
  unsigned k_ = 0;
  bool done_ = false;
  std::string_view kmer_;
  uint64_t count_ = 0;
  uint64_t min_count_ = ~uint64_t{0};
};

}  // namespace kmerbloom
