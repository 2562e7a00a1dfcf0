#include "formats/count_writer.hpp"

#include <charconv>
#include <stdexcept>

#include "formats/output.hpp"

namespace kmerbloom {
namespace {

// The decimal form of a count at `at` (room for 10 digits); returns its end.
char* put_decimal(char* at, uint32_t count) { return std::to_chars(at, at + 10, count).ptr; }

class TsvCountWriter final : public KmerCountWriter {
 public:
  explicit TsvCountWriter(const std::string& path) : out_(path) {}
  void add(std::string_view kmer, uint64_t count) override {
    out_.write(kmer);
    out_.put('\t');
    out_.put_uint(count);
    out_.put('\n');
  }
  void add(const PackedKmers& chunk) override {
    const size_t bytes = (chunk.k + 3) / 4;
    for (size_t i = 0; i < chunk.n; ++i) {
      char* to = out_.reserve(chunk.k + 12);
      decode_packed_kmer(chunk.packed + i * bytes, chunk.k, to);
      to[chunk.k] = '\t';
      char* end = put_decimal(to + chunk.k + 1, chunk.counts[i]);
      *end++ = '\n';
      out_.advance(static_cast<size_t>(end - to));
    }
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
  void add(const PackedKmers& chunk) override {
    const size_t bytes = (chunk.k + 3) / 4;
    for (size_t i = 0; i < chunk.n; ++i) {
      char* to = out_.reserve(chunk.k + 14);
      char* at = to;
      *at++ = '>';
      at = put_decimal(at, chunk.counts[i]);
      *at++ = '\n';
      decode_packed_kmer(chunk.packed + i * bytes, chunk.k, at);
      at += chunk.k;
      *at++ = '\n';
      out_.advance(static_cast<size_t>(at - to));
    }
  }
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
