// Files of k-mers with their counts, as `kmerbloom count` writes them, plain
// or gzip, "-" for stdin:
//  - TSV: "KMER<TAB>COUNT" per line (spaces are accepted as well as tabs);
//  - FASTA form (count --format fasta): a ">COUNT" line, then the k-mer;
//  - KFF (formats/kff.hpp; count --format kff, kmc -okff), told by its signature
//    on any input, stdin and FIFOs too; its errors name the byte and the
//    section, not a line.
// Empty lines are skipped and "\r\n" is accepted. The reader checks the form
// of a record (two fields, an unsigned decimal count); what a k-mer must be
// (its length, its letters, the order of the file) is for the caller to say,
// through fail().
//
// One reader per format behind CountFileReader: a new format adds a class
// and is chosen in open_count_file. Ownership: the caller owns the
// reader; a KmerCount's view is valid until the next call. Thread safety: one
// thread at a time per reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/bases.hpp"

namespace kmerbloom {

struct KmerCount {
  std::string_view kmer;  // as written (not checked, not canonical)
  uint64_t count = 0;
};

class CountFileReader {
 public:
  virtual ~CountFileReader() = default;
  // The next record into out; false at the end of the file. Throws
  // InputError naming the file and line for a malformed record.
  virtual bool next(KmerCount& out) = 0;
  // KFF: up to `most` records with their k-mers as 2-bit codes instead of
  // letters (KffSortedReader::next_packed_batch), for readers that say they
  // pack; a reader is read one way. Text readers do not (their letters are
  // the caller's to check).
  virtual bool packs() const { return false; }
  virtual bool next_packed_batch(PackedBatch& batch, size_t most) {
    (void)batch, (void)most;
    throw std::logic_error("CountFileReader::next_packed_batch: " + name() + " holds letters");
  }
  // Throws InputError("NAME: line N: what") at the record returned last.
  [[noreturn]] virtual void fail(const std::string& what) const = 0;
  // The file's name in messages ("<stdin>" for "-").
  virtual const std::string& name() const = 0;
  // Bytes of the file read so far (compressed where it is), for progress.
  virtual uint64_t bytes_read() const = 0;
  // What the file says of itself before its k-mers, where its format says it
  // (KFF: the k of its 'v' sections, 0 while unknown, and the header's
  // canonical flag); a text file says nothing (0, nullopt).
  virtual unsigned declared_k() const { return 0; }
  // Where the record next() returned last lies in the (decompressed) input,
  // for an index (lookup/count_index.hpp): a text line's offset; in KFF read
  // in file order, its block's and section's offsets and the bytes of a
  // block where all have one size (else 0). Not known (nullopt) for KFF
  // read in k-mer order, whose sections are merged.
  struct Place {
    uint64_t offset = 0, section = 0;
    unsigned record_bytes = 0, data_size = 0;
  };
  virtual std::optional<Place> place() const { return std::nullopt; }
  virtual std::optional<bool> declared_canonical() const { return std::nullopt; }
};

struct CountFileOptions {
  bool fasta_form = true;                // accept count's FASTA form; false: a '>' line is an error
  size_t buffer_bytes = size_t{1} << 16; // read buffer (at least 4 KiB)
  bool kmer_order = false;               // KFF: k-mers in text order, its sections merged (KffSortedReader)
  // Text: a list of k-mers (query --kmers): a line's first field is the
  // k-mer, the rest is not read (count 1), '>' lines are skipped.
  bool kmer_list = false;
};

// Throws InputError when the file cannot be opened.
std::unique_ptr<CountFileReader> open_count_file(const std::string& path, const CountFileOptions& options = {});

}  // namespace kmerbloom
