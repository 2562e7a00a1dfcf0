#include "formats/count_file.hpp"

#include "seqio/decompress.hpp"
#include "common/format.hpp"
#include "formats/kff.hpp"
#include "seqio/line_reader.hpp"

namespace kmerbloom {
namespace {

// count's text output, TSV or FASTA form.
// What to do with reads given where counts belong.
constexpr const char* kCountThem = " (count them first: kmerbloom count READS -k K -c 1 -o counts.kff)";

class TextCountReader final : public CountFileReader {
 public:
  TextCountReader(std::unique_ptr<detail::ByteSource> source, const CountFileOptions& o)
      : in_(std::move(source), o.buffer_bytes), fasta_form_(o.fasta_form), kmer_list_(o.kmer_list) {}

  bool next(KmerCount& out) override {
    std::string_view line;
    do {
      if (!in_.next(line)) {
        return false;
      }
    } while (line.empty() || (kmer_list_ && line[0] == '>'));
    if (kmer_list_) {
      out.kmer = line.substr(0, line.find_first_of(" \t"));
      out.count = 1;
      return true;
    }
    if (line[0] == '@') in_.fail(std::string("a FASTQ record: these are reads, not k-mer counts") + kCountThem);
    if (line[0] == '>') {
      std::string_view rest = line.substr(1);
      uint64_t number = 0;
      if (std::string_view r = rest; !take_uint(r, number) || !is_blank(r))
        in_.fail("a FASTA record named '" + printable(rest, 40) + "': these are sequences, not k-mer counts" + kCountThem);
      if (!fasta_form_) in_.fail("FASTA record ('>' line): KMER<TAB>COUNT lines expected (count --format tsv)");
      if (!take_uint(rest, out.count) || !is_blank(rest))
        in_.fail("count is not an unsigned integer: '" + printable(line) + "'");
      do {
        if (!in_.next(line)) in_.fail("'>' line without a k-mer (file ends)");
      } while (line.empty());
      if (line[0] == '>') in_.fail("'>' line without a k-mer after the one before");
      out.kmer = line;
      return true;
    }
    out.kmer = line.substr(0, line.find_first_of(" \t"));
    std::string_view rest = line.substr(out.kmer.size());
    if (is_blank(rest)) in_.fail("expected KMER<TAB>COUNT");
    if (!take_uint(rest, out.count) || !is_blank(rest))
      in_.fail("count is not an unsigned integer: '" + printable(line) + "'");
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const override { in_.fail(what); }
  const std::string& name() const override { return in_.name(); }
  uint64_t bytes_read() const override { return in_.raw_bytes_read(); }
  std::optional<Place> place() const override { return Place{.offset = in_.line_offset()}; }

 private:
  LineReader in_;
  bool fasta_form_, kmer_list_;
};

// A KFF file, in file order or in k-mer order.
class KffCountReader final : public CountFileReader {
 public:
  KffCountReader(const std::string& path, std::unique_ptr<detail::ByteSource> source, const CountFileOptions& o)
      : name_(display_name(path)) {
    if (o.kmer_order)
      sorted_ = std::make_unique<KffSortedReader>(path, std::move(source), o.buffer_bytes);
    else
      file_ = std::make_unique<KffReader>(std::move(source));
  }
  bool next(KmerCount& out) override { return sorted_ ? sorted_->next(out.kmer, out.count) : file_->next(out.kmer, out.count); }
  bool packs() const override { return true; }
  bool next_packed_batch(PackedBatch& batch, size_t most) override {
    return sorted_ ? sorted_->next_packed_batch(batch, most) : file_->next_packed_batch(batch, most);
  }
  [[noreturn]] void fail(const std::string& what) const override {
    if (sorted_) sorted_->fail(what);
    file_->fail(what);
  }
  const std::string& name() const override { return name_; }
  uint64_t bytes_read() const override { return sorted_ ? sorted_->bytes_read() : file_->bytes_read(); }
  unsigned declared_k() const override { return sorted_ ? sorted_->declared_k() : file_->k(); }
  std::optional<bool> declared_canonical() const override {
    return sorted_ ? sorted_->canonical() : file_->header().canonical;
  }
  std::optional<Place> place() const override {
    if (sorted_) return std::nullopt;
    const KffReader::Place p = file_->place();
    return Place{p.block_at, p.section_at, p.record_bytes, p.data_size};
  }

 private:
  std::string name_;
  std::unique_ptr<KffReader> file_;
  std::unique_ptr<KffSortedReader> sorted_;
};

}  // namespace

std::unique_ptr<CountFileReader> open_count_file(const std::string& path, const CountFileOptions& options) {
  // Opened once, looked at, then read: a pipe cannot be opened again.
  auto source = std::make_unique<detail::ByteSource>(path, display_name(path));
  if (starts_as_kff(*source)) return std::make_unique<KffCountReader>(path, std::move(source), options);
  return std::make_unique<TextCountReader>(std::move(source), options);
}

}  // namespace kmerbloom
