// Streaming FASTA/FASTQ reader.
//
// Input may be plain text, gzip (single or multi-member) or BGZF; the
// compression and the format are detected from the content, never from the
// file name. "-" reads standard input. Multi-line FASTA and FASTQ, CRLF line
// ends and empty records are accepted; spaces and tabs ending a FASTA
// sequence line are skipped (in FASTQ they are an error). Lines ended by a
// carriage return alone (classic Mac OS) are refused with a message that
// says so. Malformed input throws InputError whose
// message names the file and the record number and line.
//
// Thread safety: one SequenceReader is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace kmerbloom {

enum class SeqFormat { unknown, fasta, fastq };

// A batch of records stored in one arena. Views stay valid until the batch is
// cleared or refilled.
struct RecordBatch {
  struct Record {
    uint64_t name_off, seq_off, qual_off;  // offsets into arena
    uint32_t name_len, seq_len, qual_len;  // qual_len is 0 for FASTA
    uint32_t piece;                        // 0: a whole record or its first piece (see set_pieces)
    uint64_t line;                         // 1-based line of the header in its file
  };
  std::string arena;
  std::vector<Record> records;
  uint64_t bases = 0;         // sum of seq_len
  uint64_t first_record = 0;  // 0-based number of records[0] in its file
  uint64_t serial = 0;        // position of this batch in the whole input (set by the pipeline)
  uint32_t file_index = 0;    // which input file the batch came from
  uint32_t overlap = 0;       // bases a piece after the first repeats from the one before
  SeqFormat format = SeqFormat::unknown;
  // False: qualities are checked but not stored (qual() is empty), for
  // stages that read sequences only; the batch then takes 40% less memory.
  bool keep_quality = true;

  void clear() {
    arena.clear();
    records.clear();
    bases = 0;
  }
  size_t size() const { return records.size(); }
  std::string_view name(size_t i) const { return {arena.data() + records[i].name_off, records[i].name_len}; }
  std::string_view seq(size_t i) const { return {arena.data() + records[i].seq_off, records[i].seq_len}; }
  std::string_view qual(size_t i) const { return {arena.data() + records[i].qual_off, records[i].qual_len}; }
  // True when records[i] begins a read (it is not the continuation of one).
  bool starts_read(size_t i) const { return records[i].piece == 0; }
  // The bases of records[i] that no piece before it held.
  std::string_view new_bases(size_t i) const { return seq(i).substr(records[i].piece ? overlap : 0); }
};

class SequenceReader {
 public:
  // Opens path ("-" for stdin). Throws InputError if it cannot be opened or
  // is a directory. inflate_threads: a BGZF file is inflated on this many
  // threads (seqio/decompress.hpp); others on the caller's.
  explicit SequenceReader(const std::string& path, unsigned inflate_threads = 1);
  ~SequenceReader();
  SequenceReader(const SequenceReader&) = delete;
  SequenceReader& operator=(const SequenceReader&) = delete;

  // Clears batch and fills it with whole records until at least target_bases
  // bases (or max_records records) are held. Returns false when the input is
  // exhausted and the batch is empty. Throws InputError on malformed input.
  bool next_batch(RecordBatch& batch, uint64_t target_bases, uint64_t max_records = 1u << 20);

  // For stages that read k-mers only (the batch keeps no quality): a record
  // longer than max_bases comes in pieces of max_bases, each piece after the
  // first starting with the last `overlap` bases of the one before, so every
  // run of overlap + 1 bases lies in exactly one piece; lines longer than the
  // read buffer are read in parts. A batch then holds at most target_bases +
  // max_bases bases, whatever the records. 0 (the default): whole records.
  // Requires max_bases > overlap.
  void set_pieces(uint64_t max_bases, uint32_t overlap);

  const std::string& path() const;
  SeqFormat format() const;             // known after the first record
  uint64_t records_read() const;        // records returned so far
  uint64_t raw_bytes_read() const;      // bytes read from the file (compressed size when compressed)
  uint64_t raw_size() const;            // file size in bytes, 0 when unknown (pipes)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kmerbloom
