// The k-mers of a count file (formats/count_file.hpp: TSV, FASTA form or KFF,
// plain or gzip) as packed canonical words with their counts, parked in an
// unlinked temporary file (count/spool.hpp) in blocks of kKmersPerBlock, for
// commands that read them several times (hetmers). k <= 31 (one 64-bit word).
//
// Ownership: a CountedKmers owns its temporary file; it disappears with the
// object or the process. Thread safety: add() and finish() from one thread;
// read_block() from any threads at once after finish().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "count/counter.hpp"
#include "count/spool.hpp"
#include "seqio/pipeline.hpp"

namespace kmerbloom {

struct CountedKmer {
  uint64_t kmer = 0;   // 2 bits a base (kmer/kmer.hpp), canonical
  uint64_t count = 0;
};

class CountedKmers {
 public:
  static constexpr size_t kKmersPerBlock = size_t{1} << 16;  // 1 MiB a block

  explicit CountedKmers(const std::string& tmp_dir);
  void add(uint64_t kmer, uint64_t count);
  void finish();  // after the last add: the k-mers stored, the buffers freed

  uint64_t size() const { return size_; }
  size_t blocks() const { return blocks_.size(); }
  // The k-mers of block b, in the order added; the first one is k-mer number
  // b * kKmersPerBlock.
  void read_block(size_t b, std::vector<CountedKmer>& out) const;
  // The k-mers numbered [first, first + n) to out.
  void read(uint64_t first, uint64_t n, CountedKmer* out) const;
  const std::string& tmp_dir() const { return spool_.dir(); }

 private:
  void put_pending();

  Spool spool_;
  std::vector<Spool::Block> blocks_;
  std::vector<CountedKmer> pending_;
  uint64_t size_ = 0;
};

// A count file read once: its k, its count histogram and the k-mers whose
// count is at most max_count.
struct CountFileKmers {
  unsigned k = 0;
  uint64_t records = 0;              // k-mers in the file
  std::vector<uint64_t> histogram;   // histogram[c]: k-mers of count c; the last row holds every larger count too
  std::unique_ptr<CountedKmers> kept;  // count <= max_count, in file order
};

// Reads path. The file must hold canonical k-mers (each at most its reverse
// complement) sorted by k-mer as count and merge-counts write them (KFF
// sections are merged into that order), each once, all of one length k <= 31;
// k_expected (0: any) is the k the caller was told. Anything else throws
// InputError naming the file and the line or byte of the record.
// progress (may be null): units_done is set to the bytes of the file read.
CountFileKmers read_count_file_kmers(const std::string& path, unsigned k_expected, uint64_t max_count,
                                     const std::string& tmp_dir, size_t histogram_rows = size_t{1} << 16,
                                     PipelineProgress* progress = nullptr);

// The same from reads: every k-mer of o.inputs counted exactly
// (count/counter.hpp, o.min_count 1, canonical, k <= 31) and taken as the
// file of that count would give them; o's -M and tmp_dir hold.
CountFileKmers count_reads_kmers(CountOptions o, uint64_t max_count, const CountHooks& hooks,
                                 size_t histogram_rows = size_t{1} << 16);

// The k-mers of `from` whose count is in [lower, upper], in the same order.
std::unique_ptr<CountedKmers> select_counts(const CountedKmers& from, uint64_t lower, uint64_t upper);

}  // namespace kmerbloom
