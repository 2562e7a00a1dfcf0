#include "formats/count_writer.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "formats/output.hpp"

namespace kmerbloom {
namespace {

// The decimal form of a count at `at` (room for 10 digits); returns its end.
char* put_decimal(char* at, uint32_t count) { return std::to_chars(at, at + 10, count).ptr; }

// One k-mer of a chunk as a line of TSV or as a FASTA record, at `at` (room
// for k + 14 bytes); returns its end.
char* tsv_line(const PackedKmers& c, size_t i, char* at) {
  decode_packed_kmer(c.packed + i * ((c.k + 3) / 4), c.k, at);
  at += c.k;
  *at++ = '\t';
  at = put_decimal(at, c.counts[i]);
  *at++ = '\n';
  return at;
}
char* fasta_record(const PackedKmers& c, size_t i, char* at) {
  *at++ = '>';
  at = put_decimal(at, c.counts[i]);
  *at++ = '\n';
  decode_packed_kmer(c.packed + i * ((c.k + 3) / 4), c.k, at);
  at += c.k;
  *at++ = '\n';
  return at;
}

// The text formats: a line (or record) per k-mer, formatted by `Line`.
template <char* (*Line)(const PackedKmers&, size_t, char*)>
class TextCountWriter final : public KmerCountWriter {
 public:
  explicit TextCountWriter(const std::string& path) : out_(path) {}
  void add(std::string_view kmer, uint64_t count) override {
    if constexpr (Line == fasta_record) {
      out_.put('>');
      out_.put_uint(count);
      out_.put('\n');
      out_.write(kmer);
      out_.put('\n');
    } else {
      out_.write(kmer);
      out_.put('\t');
      out_.put_uint(count);
      out_.put('\n');
    }
  }
  void add(const PackedKmers& chunk) override {
    for (size_t i = 0; i < chunk.n; ++i) {
      char* to = out_.reserve(chunk.k + 14);
      out_.advance(static_cast<size_t>(Line(chunk, i, to) - to));
    }
  }
  bool formats_apart() const override { return true; }
  void format(const PackedKmers& chunk, std::string& out) const override {
    out.resize(chunk.n * (chunk.k + 14));
    char* const begin = out.data();
    char* at = begin;
    for (size_t i = 0; i < chunk.n; ++i) at = Line(chunk, i, at);
    out.resize(static_cast<size_t>(at - begin));
  }
  void write_formatted(std::string_view bytes) override { out_.write(bytes); }
  void finish() override { out_.commit(); }

 private:
  OutputFile out_;
};

class KffCountWriter final : public KmerCountWriter {
 public:
  KffCountWriter(const std::string& path, const KffWriterOptions& o) : out_(path), kff_(out_, o) {}
  void add(std::string_view kmer, uint64_t count) override { kff_.add(kmer, count); }
  void add(const PackedKmers& chunk) override { kff_.add(chunk); }
  void expect_largest_count(uint64_t largest) override { kff_.expect_largest_count(largest); }
  bool begin_in_place(uint64_t total) override { return kff_.begin_in_place(total); }
  void write_at(uint64_t first, const PackedKmers& chunk, std::string& scratch) const override {
    kff_.write_at(first, chunk, scratch);
  }
  void finish() override {
    kff_.finish();
    out_.commit();
  }
  uint64_t counts_capped() const override { return kff_.capped(); }

 private:
  OutputFile out_;  // before kff_, which writes into it
  KffWriter kff_;
};

}  // namespace

std::string count_format_named_by(const std::string& path) {
  std::string_view name = path;
  if (name.ends_with(".gz")) name.remove_suffix(3);
  if (name.ends_with(".kff")) return "kff";
  for (const std::string_view fasta : {".fa", ".fasta", ".fna"})
    if (name.ends_with(fasta)) return "fasta";
  return "tsv";
}

std::unique_ptr<KmerCountWriter> open_count_writer(const std::string& format, const std::string& path,
                                                   const KffWriterOptions& kff) {
  if (format == "tsv") return std::make_unique<TextCountWriter<tsv_line>>(path);
  if (format == "fasta") return std::make_unique<TextCountWriter<fasta_record>>(path);
  if (format == "kff") return std::make_unique<KffCountWriter>(path, kff);
  check_count_format(format);
  throw std::logic_error("open_count_writer: format " + format);
}

std::string count_format_names() {
  std::string names;
  for (const std::string_view f : kCountFormats) names += (names.empty() ? "" : ", ") + std::string(f);
  return names;
}

void check_count_format(const std::string& format) {
  if (std::find(kCountFormats.begin(), kCountFormats.end(), format) != kCountFormats.end()) return;
  throw std::invalid_argument("unknown k-mer count format '" + format + "' (" + count_format_names() + ")");
}

}  // namespace kmerbloom
