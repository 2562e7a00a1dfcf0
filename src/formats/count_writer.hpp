// Writers of k-mers with their counts, one a format, as count and
// merge-counts write them and formats/count_file.hpp reads them back: TSV
// "KMER<TAB>COUNT", FASTA ">COUNT" then "KMER", or KFF (formats/kff.hpp).
// A writer owns its OutputFile (formats/output.hpp): finish() commits it, and
// one destroyed unfinished leaves no file behind. One thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/bases.hpp"
#include "formats/kff.hpp"

namespace kmerbloom {

class KmerCountWriter {
 public:
  virtual ~KmerCountWriter() = default;
  // K-mers in the order they go out (KFF: strictly increasing, count >= 1).
  virtual void add(std::string_view kmer, uint64_t count) = 0;
  // The same for many k-mers at once, packed (chunk.k must be the writer's k).
  virtual void add(const PackedKmers& chunk) = 0;
  // Before the first k-mer: no count to come is larger than `largest` (KFF
  // then stores counts in its bytes; the others ignore it).
  virtual void expect_largest_count(uint64_t largest) { (void)largest; }
  // Formats that format a chunk on its own (TSV, FASTA: no state carried
  // from one k-mer to the next) say so; then format() may run on any thread
  // at once (it reads nothing the writer changes), and the bytes it made go
  // out, in order, through write_formatted().
  virtual bool formats_apart() const { return false; }
  virtual void format(const PackedKmers& chunk, std::string& out) const { (void)chunk, (void)out; }
  virtual void write_formatted(std::string_view bytes) { (void)bytes; }
  // Formats whose layout is known from the number of k-mers (KFF) may be
  // written in place, chunks from any thread at once (KffWriter::begin_in_place,
  // write_at): false when this one cannot (another format, an output that
  // cannot seek, no k-mers).
  virtual bool begin_in_place(uint64_t total) { (void)total; return false; }
  virtual void write_at(uint64_t first, const PackedKmers& chunk, std::string& scratch) const {
    (void)first, (void)chunk, (void)scratch;
  }
  // Ends the file and moves it into place. Throws OutputError.
  virtual void finish() = 0;
  // K-mers whose count the format cannot hold and that were written with
  // its largest (KFF: kKffMaxCount); final after finish().
  virtual uint64_t counts_capped() const { return 0; }
};

// The formats of a k-mer count output, as --format names them: TSV
// (KMER<TAB>COUNT), FASTA (">COUNT", then the k-mer) and KFF.
inline constexpr std::array<std::string_view, 3> kCountFormats = {"tsv", "fasta", "kff"};
// The format a path's name says: kff for NAME.kff, fasta for NAME.fa,
// .fasta or .fna (each also with .gz), else tsv. A file named .kff holding
// text would be read by nothing that reads KFF.
std::string count_format_named_by(const std::string& path);

// kCountFormats as a list for messages and help: "tsv, fasta, kff".
std::string count_format_names();
// Throws std::invalid_argument naming kCountFormats unless `format` is one.
void check_count_format(const std::string& format);

// format: one of kCountFormats (else std::invalid_argument); kff is
// used by "kff" only. Creates the output at once (OutputFile(path)).
std::unique_ptr<KmerCountWriter> open_count_writer(const std::string& format, const std::string& path,
                                                   const KffWriterOptions& kff = {});

}  // namespace kmerbloom
