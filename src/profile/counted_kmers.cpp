#include "profile/counted_kmers.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "formats/kff_format.hpp"
#include "formats/sorted_counts.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {

CountedKmers::CountedKmers(const std::string& tmp_dir) : spool_(SpoolOptions{.dir = tmp_dir, .memory_budget = 0}) {
  pending_.reserve(kKmersPerBlock);
}

void CountedKmers::add(uint64_t kmer, uint64_t count) {
  pending_.push_back({kmer, count});
  ++size_;
  if (pending_.size() == kKmersPerBlock) put_pending();
}

void CountedKmers::put_pending() {
  if (pending_.empty()) return;
  blocks_.push_back(spool_.put(pending_.data(), static_cast<uint32_t>(pending_.size() * sizeof(CountedKmer))));
  pending_.clear();
}

void CountedKmers::finish() {
  put_pending();
  std::vector<CountedKmer>().swap(pending_);
  spool_.seal();
}

void CountedKmers::read_block(size_t b, std::vector<CountedKmer>& out) const {
  out.resize(blocks_[b].size / sizeof(CountedKmer));
  spool_.read(blocks_[b], out.data());
}

void CountedKmers::read(uint64_t first, uint64_t n, CountedKmer* out) const {
  while (n > 0) {  // every block but the last holds kKmersPerBlock
    const uint64_t b = first / kKmersPerBlock, off = first % kKmersPerBlock;
    const uint64_t len = std::min<uint64_t>(n, kKmersPerBlock - off);
    spool_.read(blocks_.at(b), static_cast<uint32_t>(off * sizeof(CountedKmer)),
                static_cast<uint32_t>(len * sizeof(CountedKmer)), out);
    out += len;
    first += len;
    n -= len;
  }
}

CountFileKmers read_count_file_kmers(const std::string& path, unsigned k_expected, uint64_t max_count,
                                     const std::string& tmp_dir, size_t histogram_rows, PipelineProgress* progress) {
  // Parsed ahead on a thread of the reader's, as packed k-mers (2 bits a
  // base, the first base highest: as an integer, the k-mer's word).
  const auto in = open_sorted_counts(path, {.expected_k = k_expected,
                                            .max_k = kMaxSmallK,
                                            .who = "hetmers",
                                            .canonical = true,
                                            .threaded = true,
                                            .packed = true});
  CountFileKmers r;
  r.kept = std::make_unique<CountedKmers>(tmp_dir);
  r.histogram.assign(std::max<size_t>(histogram_rows, 2), 0);
  PackedBatch batch;
  while (in->next_packed_batch(batch)) {
    for (size_t i = 0; i < batch.n; ++i) {
      const uint64_t count = batch.counts[i];
      ++r.histogram[std::min<uint64_t>(count, r.histogram.size() - 1)];
      if (count <= max_count) r.kept->add(kff::load_be(reinterpret_cast<const uint8_t*>(batch.kmer_at(i)), batch.bytes), count);
    }
    r.records += batch.n;
    if (progress) progress->units_done = in->bytes_read();
  }
  r.k = in->k();
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
