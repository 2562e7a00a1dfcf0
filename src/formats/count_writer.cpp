#include "formats/count_writer.hpp"

#include <stdexcept>

#include "formats/output.hpp"

namespace kmerbloom {
namespace {

class TsvCountWriter final : public KmerCountWriter {
 public:
  explicit TsvCountWriter(const std::string& path) : out_(path) {}
  void add(std::string_view kmer, uint64_t count) override {
    out_.write(kmer);
    out_.put('\t');
    out_.put_uint(count);
    out_.put('\n');
  }
  void finish() override { out_.commit(); }

 private:
  OutputFile out_;
};

class FastaCountWriter final : public KmerCountWriter {
 public:
  explicit FastaCountWriter(const std::string& path) : out_(path) {}
  void add(std::string_view kmer, uint64_t count) override {
    out_.put('>');
    out_.put_uint(count);
    out_.put('\n');
    out_.write(kmer);
    out_.put('\n');
  }
  void finish() override { out_.commit(); }

 private:
  OutputFile out_;
};

class KffCountWriter final : public KmerCountWriter {
 public:
  KffCountWriter(const std::string& path, const KffWriterOptions& o) : out_(path), kff_(out_, o) {}
  void add(std::string_view kmer, uint64_t count) override { kff_.add(kmer, count); }
  void finish() override {
    kff_.finish();
    out_.commit();
  }

 private:
  OutputFile out_;  // before kff_, which writes into it
  KffWriter kff_;
};

}  // namespace

std::unique_ptr<KmerCountWriter> open_count_writer(const std::string& format, const std::string& path,
                                                   const KffWriterOptions& kff) {
  if (format == "tsv") return std::make_unique<TsvCountWriter>(path);
  if (format == "fasta") return std::make_unique<FastaCountWriter>(path);
  if (format == "kff") return std::make_unique<KffCountWriter>(path, kff);
  throw std::invalid_argument("unknown k-mer count format '" + format + "' (tsv, fasta or kff)");
}

}  // namespace kmerbloom
