#include "kmerbloom/io/count_file.hpp"

#include "kmerbloom/format.hpp"
#include "kmerbloom/io/kff.hpp"
#include "kmerbloom/io/line_reader.hpp"

namespace kmerbloom {
namespace {

// count's text output, TSV or FASTA form.
class TextCountReader final : public CountFileReader {
 public:
  TextCountReader(const std::string& path, const CountFileOptions& o)
      : in_(path, o.buffer_bytes), fasta_form_(o.fasta_form) {}

  bool next(KmerCount& out) override {
    std::string_view line;
    do {
      if (!in_.next(line)) {
        return false;
      }
    } while (line.empty());
    if (line[0] == '>') {
      if (!fasta_form_) in_.fail("FASTA record ('>' line): KMER<TAB>COUNT lines expected (count --format tsv)");
      std::string_view rest = line.substr(1);
      if (!take_uint(rest, out.count) || !is_blank(rest))
        in_.fail("count is not an unsigned integer: '" + std::string(line) + "'");
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
      in_.fail("count is not an unsigned integer: '" + std::string(line) + "'");
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const override { in_.fail(what); }
  const std::string& name() const override { return in_.name(); }

 private:
  LineReader in_;
  bool fasta_form_;
};

// A KFF file, in file order or in k-mer order.
class KffCountReader final : public CountFileReader {
 public:
  KffCountReader(const std::string& path, const CountFileOptions& o) : name_(display_name(path)) {
    if (o.kmer_order)
      sorted_ = std::make_unique<KffSortedReader>(path, o.buffer_bytes);
    else
      file_ = std::make_unique<KffReader>(path);
  }
  bool next(KmerCount& out) override { return sorted_ ? sorted_->next(out.kmer, out.count) : file_->next(out.kmer, out.count); }
  [[noreturn]] void fail(const std::string& what) const override {
    if (sorted_) sorted_->fail(what);
    file_->fail(what);
  }
  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  std::unique_ptr<KffReader> file_;
  std::unique_ptr<KffSortedReader> sorted_;
};

}  // namespace

std::unique_ptr<CountFileReader> open_count_file(const std::string& path, const CountFileOptions& options) {
  if (is_kff_file(path)) return std::make_unique<KffCountReader>(path, options);
  return std::make_unique<TextCountReader>(path, options);
}

}  // namespace kmerbloom
