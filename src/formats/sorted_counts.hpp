// The k-mers of one sorted count file (formats/count_file.hpp: TSV, FASTA
// form or KFF, plain or gzip, "-" for stdin) as every reader of sorted counts
// takes them: sets, qv, hetmers and merge-counts. Each record is checked in
// one place and worded once:
//  - a k-mer of one length, that of the file's first (k), and within the
//    caller's k (expected_k, max_k);
//  - letters A, C, G, T in upper case (KFF's 2-bit codes are by construction);
//  - strictly after the k-mer before it (sorted and distinct, as count and
//    merge-counts write them; KFF sections are merged into that order);
//  - canonical (at most its reverse complement), where the caller asks;
//  - a count of at least 1.
// Records outside [min_count, max_count] are read, checked and skipped.
// Read on the caller's thread, or parsed ahead by a thread of the reader's
// own that hands over batches (kBatches in flight, about kBatchBases bases
// each, so memory stays bounded); an error found ahead is thrown when the
// records before it are used up, in file order.
//
// Errors: InputError "NAME: line N: what" (KFF: the byte; KFF read packed,
// checked a batch at a time: "NAME: k-mer N: what", N counted in the order
// read). Ownership: the caller owns the reader. Thread safety: one thread at a time calls it;
// bytes_read() from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "formats/count_file.hpp"

namespace kmerbloom {

struct SortedCountsOptions {
  uint64_t min_count = 1, max_count = UINT64_MAX;  // k-mers outside are read, checked and skipped
  unsigned expected_k = 0;                         // 0: any; else the k the user gave (-k)
  unsigned max_k = ~0u;                            // the caller's largest k, named after `who`
  const char* who = "kmerbloom";                   // the command, in the max_k message
  const char* histogram_hint = "";                 // said after "this looks like a histogram"
  bool canonical = false;                          // each k-mer at most its reverse complement
  bool fasta_form = true;                          // count's FASTA form accepted
  size_t buffer_bytes = size_t{1} << 20;           // the file's read buffer
  bool threaded = false;                           // parse ahead on a thread of the reader's own
  // KFF: sections in file order, which must then be in order with one
  // another (kmerbloom's own files are), rather than merged.
  bool kff_file_order = false;
  // Read with next_packed_batch (k-mers as their 2-bit codes), not next: a
  // threaded reader parses ahead in the way it will be read.
  bool packed = false;
};

class SortedCounts {
 public:
  static constexpr size_t kBatches = 4;           // in flight, when threaded
  static constexpr size_t kBatchBases = 1 << 20;  // bases a batch holds (about)
  static constexpr size_t kBatchKmers = 1 << 15;  // packed k-mers a batch holds (at most)

  virtual ~SortedCounts() = default;
  // The next k-mer in the count range; kmer is valid until the next call.
  // False at the end. Throws InputError for a record that fails a check.
  virtual bool next(std::string_view& kmer, uint64_t& count) = 0;
  // The next k-mers in the count range as their 2-bit codes (PackedKmers'
  // layout, common/bases.hpp; they compare as the letters do), a batch of
  // up to kBatchKmers at a time, one k a batch: KFF's own bytes, no letters
  // made; a text file's letters checked, then packed. False at the end. A
  // reader is read one way, the way SortedCountsOptions::packed says
  // (std::logic_error otherwise, when threaded).
  virtual bool next_packed_batch(PackedBatch& batch) = 0;
  // The file's name in messages ("<stdin>" for "-").
  virtual const std::string& name() const = 0;
  // Throws InputError for what the caller finds wrong with the record next()
  // returned last: "NAME: line N: what" (a threaded reader's parser is
  // ahead of that record: "NAME: what").
  [[noreturn]] virtual void fail(const std::string& what) const = 0;
  // The length of the file's first k-mer, kept or not (0: none read yet);
  // settled once next() has returned a k-mer or false.
  virtual unsigned k() const = 0;
  // K-mers read, and kept (in the count range); final once next() returned false.
  virtual uint64_t read() const = 0;
  virtual uint64_t kept() const = 0;
  // Bytes of the file read so far, for progress; any thread may ask.
  virtual uint64_t bytes_read() const = 0;
  // What the file declares of itself (KFF: its k, and its header's
  // canonical flag; a text file: 0 and nullopt). The k of a plain file is
  // known once it is opened, that of a stream (stdin, a FIFO, gzip) once
  // next() has returned a k-mer or false; 0 while unknown.
  virtual unsigned declared_k() const = 0;
  virtual std::optional<bool> declared_canonical() const = 0;
  // Where the k-mer next() returned last lies (CountFileReader::place);
  // nullopt when threaded or not known.
  virtual std::optional<CountFileReader::Place> place() const = 0;
};

// Throws InputError when the file cannot be opened.
std::unique_ptr<SortedCounts> open_sorted_counts(const std::string& path, const SortedCountsOptions& options = {});

}  // namespace kmerbloom
