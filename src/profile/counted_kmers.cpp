#include "profile/counted_kmers.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/count_file.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {

CountedKmers::CountedKmers(const std::string& tmp_dir) : spool_(SpoolOptions{.dir = tmp_dir, .memory_budget = 0}) {
  pending_.reserve(kKmersPerBlock);
}

void CountedKmers::add(uint64_t kmer, uint64_t count) {
  pending_.push_back({kmer, count});
  ++size_;
  if (pending_.size() == kKmersPerBlock) finish();
}

void CountedKmers::finish() {
  if (pending_.empty()) return;
  blocks_.push_back(spool_.put(pending_.data(), static_cast<uint32_t>(pending_.size() * sizeof(CountedKmer))));
  pending_.clear();
}

void CountedKmers::read_block(size_t b, std::vector<CountedKmer>& out) const {
  out.resize(blocks_[b].size / sizeof(CountedKmer));
  spool_.read(blocks_[b], out.data());
}

CountFileKmers read_count_file_kmers(const std::string& path, unsigned k_expected, uint64_t max_count,
                                     const std::string& tmp_dir, size_t histogram_rows, PipelineProgress* progress) {
  CountFileOptions co;
  co.kmer_order = true;  // KFF sections merged into k-mer order
  const auto in = open_count_file(path, co);
  CountFileKmers r;
  r.kept = std::make_unique<CountedKmers>(tmp_dir);
  r.histogram.assign(std::max<size_t>(histogram_rows, 2), 0);
  KmerCount rec;
  uint64_t previous = 0;
  while (in->next(rec)) {
    if (r.k == 0) {
      r.k = static_cast<unsigned>(rec.kmer.size());
      if (k_expected && r.k != k_expected)
        in->fail("k-mer of " + std::to_string(r.k) + " bases, but -k is " + std::to_string(k_expected));
      if (r.k == 0 || r.k > kMaxSmallK)
        in->fail("k-mer of " + std::to_string(r.k) + " bases: hetmers takes k from 1 to " +
                 std::to_string(kMaxSmallK));
    }
    if (rec.kmer.size() != r.k)
      in->fail("k-mer of " + std::to_string(rec.kmer.size()) + " bases, the first has " + std::to_string(r.k));
    uint64_t x = 0;
    try {
      x = encode_kmer<uint64_t>(rec.kmer);
    } catch (const std::invalid_argument& e) {
      in->fail(std::string("k-mer '") + printable(rec.kmer) + "': " + e.what());
    }
    if (reverse_complement(x, r.k) < x)
      in->fail("k-mer " + printable(rec.kmer) +
               " is not canonical (its reverse complement is smaller): count without --no-canonical");
    if (r.records > 0 && x <= previous)
      in->fail(std::string(x == previous ? "k-mer given twice: " : "k-mers out of order: ") + printable(rec.kmer) +
               " after " + decode_kmer(previous, r.k) + " (the file must be sorted as count writes it)");
    previous = x;
    if ((++r.records & 0xffff) == 0 && progress) progress->units_done = in->bytes_read();
    ++r.histogram[std::min<uint64_t>(rec.count, r.histogram.size() - 1)];
    if (rec.count <= max_count) r.kept->add(x, rec.count);
  }
  r.kept->finish();
  return r;
}

CountFileKmers count_reads_kmers(CountOptions o, uint64_t max_count, const CountHooks& hooks, size_t histogram_rows) {
  if (o.k == 0 || o.k > kMaxSmallK)
    throw std::invalid_argument("hetmers takes k from 1 to " + std::to_string(kMaxSmallK) + ", got " + std::to_string(o.k));
  o.min_count = 1;
  o.canonical = true;
  o.histo_max = std::max<size_t>(histogram_rows, 2) - 2;  // the last row holds the rest
  CountFileKmers r;
  r.k = o.k;
  r.kept = std::make_unique<CountedKmers>(o.tmp_dir);
  const CountResult c = count_kmers(
      o,
      [&](std::string_view kmer, uint64_t count) {
        ++r.records;
        if (count <= max_count) r.kept->add(encode_kmer<uint64_t>(kmer), count);
      },
      hooks);
  r.kept->finish();
  r.histogram = c.histogram;
  return r;
}

std::unique_ptr<CountedKmers> select_counts(const CountedKmers& from, uint64_t lower, uint64_t upper) {
  auto out = std::make_unique<CountedKmers>(from.tmp_dir());
  std::vector<CountedKmer> block;
  for (size_t b = 0; b < from.blocks(); ++b) {
    from.read_block(b, block);
    for (const CountedKmer& c : block)
      if (c.count >= lower && c.count <= upper) out->add(c.kmer, c.count);
  }
  out->finish();
  return out;
}

}  // namespace kmerbloom
