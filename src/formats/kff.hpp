// KFF, the k-mer file format (Dufresne et al., Bioinformatics 2022): k-mer sets
// and their counts as KMC, DSK, kmtricks and others exchange them. KffWriter
// writes what kmerbloom counts; KffReader and KffSortedReader read any
// conforming file, KMC's included. The file's structure: docs/kff.md.
//
// Errors: a malformed, truncated or unsupported file throws InputError,
// "PATH: byte N (section 'r' at byte M): what". Thread safety: one object is
// used by one thread at a time; distinct objects are independent.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/bases.hpp"

namespace kmerbloom {

class OutputFile;
namespace detail {
class ByteSource;  // seqio/decompress.hpp, private to the library
}

// KMC's encoding and kmerbloom's: A=0, C=1, G=2, T=3 (0b00'01'10'11), so packed
// k-mers compare as their text does (A < C < G < T).
inline constexpr uint8_t kKffEncodingACGT = 0x1b;
// Longest k the reader takes (KFF sets no bound; kmerbloom's commands take less
// and say so). Bounds the memory a forged file can ask for.
inline constexpr uint64_t kKffMaxK = 1024;
// Longest block sequence (n + k - 1 bases) the reader takes: 16 MiB of bases.
inline constexpr uint64_t kKffMaxBlockBases = uint64_t{1} << 24;

struct KffHeader {
  uint8_t major = 0, minor = 0;
  uint8_t encoding = kKffEncodingACGT;  // 2 bits each for A, C, G, T, A in the top bits
  bool unique = false;                  // no k-mer appears twice
  bool canonical = false;               // a k-mer and its reverse complement never both appear
};

// ------------------------------------------------------------------ writer

// The largest count a KFF file of kmerbloom's holds: KMC's counters are 32-bit.
inline constexpr uint64_t kKffMaxCount = UINT32_MAX;

struct KffWriterOptions {
  unsigned k = 31;          // 1 to kKffMaxK
  bool canonical = true;    // the header's canonical flag
  uint64_t min_count = 2;   // recorded in the footer (KMC's min_count / max_count)
  uint64_t max_count = UINT64_MAX;
  // K-mers buffered per 'r' section: memory is about this times
  // (ceil(k / 4) + 8) bytes, whatever the number of k-mers.
  uint64_t section_kmers = uint64_t{1} << 17;
};

// Streams sorted, unique k-mers with counts into a KFF file laid out as KMC
// writes it and kmc_tools reads it: encoding A,C,G,T; unique; one k-mer per
// block (max = 1); 'ordered' sections; an index of every section after the
// last one; a footer 'v' section (first_index, min_count, max_count,
// counter_size, footer_size). Counts take the bytes of max_count (at most 4,
// KMC's 32-bit counters) in every section, as kmc_tools reads them. A count
// above kKffMaxCount (a sum of merged counts) is written as kKffMaxCount,
// which KMC's readers take as it is (a wider field they would misread), and
// counted: capped() says how many, for the caller to say so.
//
// The writer does not own `out` and never commits it: the caller commits after
// finish(), so a failed run leaves no file behind.
class KffWriter {
 public:
  KffWriter(OutputFile& out, const KffWriterOptions& options);
  ~KffWriter();
  KffWriter(const KffWriter&) = delete;
  KffWriter& operator=(const KffWriter&) = delete;

  // kmer: k bases of ACGT (upper case), strictly after the previous one;
  // count >= 1. Throws std::invalid_argument otherwise (a caller's bug).
  void add(std::string_view kmer, uint64_t count);
  // The same for many k-mers at once, packed (PackedKmers; chunk.k must be k).
  void add(const PackedKmers& chunk);
  // Before the first k-mer: no count to come is larger than `largest`, so
  // counts take its bytes (fewer than max_count's when it is smaller).
  void expect_largest_count(uint64_t largest);
  // Writes the last section, the index, the footer and the final signature.
  void finish();
  uint64_t kmers() const { return kmers_; }
  // K-mers whose count was above kKffMaxCount and written as kKffMaxCount.
  uint64_t capped() const { return capped_; }

  // In place: when `total` k-mers (>= 1) are to come and the output takes
  // writes at offsets, the file's layout is fixed now (sections of
  // section_kmers, counts in the bytes expect_largest_count's bound takes),
  // and write_at() puts the k-mers of index first.. first + chunk.n where
  // they go, from any thread, in any order; finish() then writes the index
  // and footer. The file is byte for byte the one add() would have written.
  // False (nothing written) when the output cannot seek or total is 0.
  bool begin_in_place(uint64_t total);
  // One chunk of sorted k-mers (checked as add() checks them, within the
  // chunk; chunks must not overlap and together hold the total, in order of
  // their first index). `scratch` is the caller's, one a thread.
  void write_at(uint64_t first, const PackedKmers& chunk, std::string& scratch) const;

 private:
  unsigned file_width() const;
  uint64_t record_offset(uint64_t i) const;
  void check_chunk(const PackedKmers& chunk, const uint8_t* prev) const;
  void flush_section();
  bool before(const uint8_t* a, const uint8_t* b) const;
  void write_vars(const std::vector<std::pair<std::string, uint64_t>>& vars);
  void emit(const void* data, size_t n);

  OutputFile& out_;
  KffWriterOptions o_;
  size_t kmer_bytes_;
  std::vector<uint8_t> packed_;  // buffered k-mers, kmer_bytes_ each
  std::vector<uint64_t> counts_;
  std::vector<uint8_t> last_;    // the previous k-mer, packed
  uint64_t kmers_ = 0, written_ = 0, capped_ = 0;
  unsigned scope_width_ = 0, widest_ = 0;  // data_size of the open scope, of the file
  std::vector<std::pair<char, uint64_t>> sections_;  // type and offset of every section
  bool finished_ = false;
  uint64_t largest_ = UINT64_MAX;  // expect_largest_count's bound
  std::vector<uint8_t> section_;   // flush_section's bytes
  // In place: the k-mers to come, where their first section starts, the
  // bytes of a k-mer with its count, the largest count that fits them.
  uint64_t total_ = 0, data_at_ = 0, record_ = 0, count_limit_ = 0;
};

// ------------------------------------------------------------------ readers

// Reads a KFF file front to back: "-" is standard input; a gzip-compressed
// file is read through. Every section is checked as it comes (type, the
// variables it needs, sizes, encoding, index entries, the final signature and
// nothing after it); the whole file is valid once next() has returned false.
class KffReader {
 public:
  explicit KffReader(const std::string& path);
  // Reads an input the library opened already (and may have peeked into).
  explicit KffReader(std::unique_ptr<detail::ByteSource> source);
  ~KffReader();
  KffReader(const KffReader&) = delete;
  KffReader& operator=(const KffReader&) = delete;

  const KffHeader& header() const;
  // The next k-mer (k bases of ACGT, valid until the next call) and its count.
  // k-mers come in file order. False at the end of the file.
  bool next(std::string_view& kmer, uint64_t& count);
  // Up to `most` k-mers into `batch` (reset to their k: a batch holds one
  // k) as their 2-bit codes, ceil(k / 4) bytes each laid out as PackedKmers'
  // (common/bases.hpp), whatever the file's encoding: bytes that compare as
  // the letters do (as unsigned char, as std::string_view does). In raw
  // sections of one k-mer a block in the encoding A, C, G, T (KMC's and
  // kmerbloom's), the records' own bytes, no letters made. False when none
  // is left.
  bool next_packed_batch(PackedBatch& batch, size_t most);
  // k of the section being read (0 before the first data section).
  unsigned k() const;
  // Where the k-mer next() returned last lies: the file offset of its block
  // and of its section, and, in a raw section of one k-mer a block, the bytes
  // of every block (packed k-mer, then data_size bytes of count; 0 in other
  // sections, whose blocks differ in size).
  struct Place {
    uint64_t block_at = 0, section_at = 0;
    unsigned record_bytes = 0, data_size = 0;
  };
  Place place() const;
  // Bytes of the file read so far, for progress.
  uint64_t bytes_read() const;
  // Throws InputError "PATH: byte N (section ...): what".
  [[noreturn]] void fail(const std::string& what) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The k-mers of a KFF file in text order (A < C < G < T), as merge-counts
// needs them. Sections are each sorted by their writers but not always in
// order with one another (KMC writes one per bin): on a plain file every data
// section gets its own cursor and they are merged; a stream (stdin, gzip) is
// read front to back and must already be in order. Throws InputError naming the
// file and the offending k-mers when a section is not in order.
// Memory: buffer_bytes of read buffers in all (at least 4 KiB a section).
class KffSortedReader {
 public:
  KffSortedReader(const std::string& path, size_t buffer_bytes);
  // source: `path` opened already (and peeked into), read if it is a stream.
  KffSortedReader(const std::string& path, std::unique_ptr<detail::ByteSource> source, size_t buffer_bytes);
  ~KffSortedReader();
  KffSortedReader(const KffSortedReader&) = delete;
  KffSortedReader& operator=(const KffSortedReader&) = delete;

  bool next(std::string_view& kmer, uint64_t& count);
  // The k-mers as KffReader::next_packed_batch gives them, up to `most`
  // into `batch`; false when none is left. A reader is read one way: the
  // first call chooses (std::logic_error for next after it). A plain file
  // whose sections are in order is read front to back, and then the order
  // of its k-mers is the caller's to check.
  bool next_packed_batch(PackedBatch& batch, size_t most);
  // k of the k-mers read so far (0 before the first).
  unsigned k() const { return k_; }
  // The k the file declares ('v' sections), k-mers or not: known at once
  // for a plain file, for a stream once next() returned false or a k-mer;
  // 0 while unknown. The header's canonical flag, known at once.
  unsigned declared_k() const;
  bool canonical() const { return canonical_; }
  // Bytes of the file read so far over all its sections, for progress.
  uint64_t bytes_read() const;
  [[noreturn]] void fail(const std::string& what) const;

 private:
  struct Cursor;
  bool step(std::string_view& kmer, uint64_t& count);
  void advance(size_t i);
  std::string text_of(const std::string& kmer) const;  // a cursor's k-mer in letters, for messages
  std::string path_;
  std::vector<std::unique_ptr<Cursor>> cursors_;
  std::vector<size_t> heap_;  // cursors with a k-mer but current_, smallest k-mer on top
  size_t top_ = SIZE_MAX;  // the cursor of the k-mer next() returned last
  unsigned k_ = 0, scanned_k_ = 0;
  bool started_ = false, canonical_ = false, packed_ = false;
  bool sequential_ = false;  // one cursor over a plain file whose sections are in order
};

// True when the file starts with the KFF signature ("KFF"), after gzip
// decompression; false for an empty or shorter file. Throws InputError if the
// file cannot be opened. Reads a few bytes only; a stream (stdin, a FIFO)
// gives false, as a look would take its bytes: open_count_file
// (formats/count_file.hpp) tells KFF on any input, streams included.
bool is_kff_file(const std::string& path);
// The same on an open input, without consuming its bytes (ByteSource::peek).
bool starts_as_kff(detail::ByteSource& source);

}  // namespace kmerbloom
