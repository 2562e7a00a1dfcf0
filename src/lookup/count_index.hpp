// Random access to a sorted count file without loading it. An index (a .kbi
// file beside the counts, docs/lookup.md) holds the first k-mer and the byte
// range of every block of about block_bytes of the file; a look-up searches
// the index in memory, reads that one block with pread and searches it. The
// index is about 1/170 of the file at k = 31 (under 1% at any k), and a
// look-up's memory does not depend on the file's size.
//
// Files: TSV as count and merge-counts write it (plain, not gzip), any k from
// 1 to 255; KFF as count and sets write it (raw sections of one k-mer a
// block, encoding A, C, G, T = 0, 1, 2, 3, sections in k-mer order). Other
// KFF files (KMC's, whose sections come in bin order) are refused with the
// command that rewrites them (sets union).
//
// Errors: InputError naming the file (and the line or byte) for a count file
// the index cannot take, and for an index that is malformed or stale (made
// for another file: its size, the checksums of its first and last 64 KiB, k).
// Thread safety: a CountIndex is read-only after it is opened; any number of
// threads may look up at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kmerbloom {

struct CountIndexOptions {
  // Whether the set was counted canonically: KFF says so in its header; for
  // TSV, nullopt takes it from the k-mers (canonical when every one is at
  // most its reverse complement).
  std::optional<bool> canonical;
  uint64_t block_bytes = 0;  // 0: 4 KiB, or more for long k (the index stays under 1% of the file)
};

struct CountIndexSummary {
  unsigned k = 0;  // 0: an empty TSV file
  bool canonical = true;
  std::string format;  // "tsv" or "kff"
  uint64_t kmers = 0, blocks = 0, file_bytes = 0, index_bytes = 0, block_bytes = 0;
};

// The index's default path: the count file's with ".kbi" added.
std::string default_index_path(const std::string& counts);

// Reads counts once (every record checked as formats/sorted_counts.hpp does)
// and writes its index to index_path (atomically: formats/output.hpp).
CountIndexSummary build_count_index(const std::string& counts, const std::string& index_path,
                                    const CountIndexOptions& options = {});

class CountIndex {
 public:
  // Opens counts and its index (default_index_path when index_path is empty).
  explicit CountIndex(const std::string& counts, const std::string& index_path = "");
  ~CountIndex();
  CountIndex(const CountIndex&) = delete;
  CountIndex& operator=(const CountIndex&) = delete;

  const CountIndexSummary& summary() const { return s_; }
  unsigned k() const { return s_.k; }
  bool canonical() const { return s_.canonical; }
  // Bytes the open index holds in memory.
  uint64_t memory_bytes() const;

  // The count of kmer, 0 when the set does not hold it. kmer: k letters A, C,
  // G, T in either case (U read as T); in a canonical set the count of its
  // canonical form. Throws std::invalid_argument for another length or letter.
  uint64_t count(std::string_view kmer) const;
  // Throws what count would for kmer, without looking it up.
  void check(std::string_view kmer) const;
  // The counts of many k-mers, in their order: sorted first, so that each
  // block is read once however many of them fall in it. Memory: about
  // 8 * ceil(k / 32) + ceil(k / 4) + 12 bytes a k-mer. threads share the
  // checking and the look-ups (each its own stretch of the sorted k-mers);
  // the answer is the same whatever their number.
  std::vector<uint64_t> counts(const std::vector<std::string_view>& kmers, unsigned threads = 1) const;
  // The same for n k-mers packed in a word each (k <= 32): 2 bits a base,
  // A, C, G, T = 0, 1, 2, 3, the first base highest, the last base lowest.
  // Throws std::invalid_argument for k > 32 or a word of more than k bases.
  std::vector<uint64_t> counts_packed(const uint64_t* values, size_t n, unsigned threads = 1) const;

 private:
  // kmer checked, in upper case and (canonical set) canonical: words_ packed
  // words to key, packed_bytes_ bytes to packed (a KFF record's k-mer).
  void normalize(std::string_view kmer, uint64_t* key, uint8_t* packed) const;
  void normalize(uint64_t value, uint64_t* key, uint8_t* packed) const;  // counts_packed's form
  // The last block whose first k-mer is <= key, SIZE_MAX when key is before
  // the first k-mer; searched up from block `from`, whose first k-mer is <= key.
  size_t block_of(const uint64_t* key, size_t from = 0) const;
  // What a thread read of the file: the whole of block `block`, or (KFF)
  // its records from record `first` on.
  struct Loaded {
    size_t block = SIZE_MAX;
    uint64_t first = 0;
    bool whole = false;
    std::vector<char> buf;
  };
  // KFF: a look-up reads this many bytes (at least 16 records) around the
  // place the block's first k-mers give it, the whole block when they miss.
  static constexpr uint64_t kWindowBytes = 1024;
  // A KFF record's k-mer against packed (memcmp's sign).
  int compare_record(const char* rec, const uint8_t* packed) const;
  bool before_block(const uint64_t* key, size_t b) const;  // key < block b's first k-mer
  // Whether l holds the places of the k-mers from first to last (packed) in its block.
  bool holds(const Loaded& l, const uint8_t* first, const uint8_t* last) const;
  // Into l, the part of block b that holds the places of the sorted k-mers
  // from first to last (keys, and packed).
  void load(size_t b, const uint64_t* first, const uint64_t* last, const uint8_t* first_packed,
            const uint8_t* last_packed, Loaded& l) const;
  uint64_t search_loaded(const Loaded& l, const uint8_t* packed) const;
  // counts' and counts_packed's work: normalize_one(i, key, packed) for each i < n.
  template <class Normalize>
  std::vector<uint64_t> look_up(size_t n, unsigned threads, const Normalize& normalize_one) const;

  CountIndexSummary s_;
  std::string counts_path_;
  int fd_ = -1;
  unsigned words_ = 0, packed_bytes_ = 0;
  std::vector<uint64_t> keys_;  // words_ per block: its first k-mer, 2 bits a base from the top
  struct Block {
    uint64_t offset;
    uint32_t bytes;
    uint16_t record_bytes;  // KFF: bytes of a record; 0: text lines
    uint8_t data_size;      // KFF: bytes of a count
    uint8_t unused;
  };
  std::vector<Block> blocks_;
};

}  // namespace kmerbloom
