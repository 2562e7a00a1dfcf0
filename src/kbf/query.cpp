// Filter files, the parts that read text: queries of reads and of k-mer
// lists, merging of count files.
#include <algorithm>
#include <cstring>
#include <memory>
#include <queue>

#include "seqio/queues.hpp"
#include "common/format.hpp"
#include "formats/count_file.hpp"
#include "seqio/reader.hpp"
#include "kbf/kbf.hpp"
#include "kmer/hash.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {
namespace {

constexpr size_t kAhead = 16;  // prefetch distance in keys

std::string_view first_field(std::string_view s) { return s.substr(0, s.find_first_of(" \t")); }

}  // namespace

// --------------------------------------------------------------------- query

void QueryOptions::validate() const {
  ReadSetOptions::validate(kMaxK, true);  // k: check_query_k
  if (!(threshold >= 0 && threshold <= 1)) throw std::invalid_argument("--threshold must be in [0, 1]");
}

void check_query_k(const FilterMeta& meta, unsigned k) {
  if (k != 0 && k != meta.k)
    throw FilterMismatch("-k " + std::to_string(k) + " differs from the filter's k = " + std::to_string(meta.k) +
                         " (leave -k out to use the filter's)");
}

namespace {

// Summary of the answers, fed in input order.
struct Tally {
  QuerySummary s;
  double fraction_sum = 0;
  void add(const ReadHits& r) {
    ++s.reads;
    s.kmers += r.kmers;
    s.kmers_present += r.present;
    if (r.kmers == 0) return;
    ++s.reads_with_kmers;
    fraction_sum += r.fraction();
    s.reads_hit += r.fraction() >= s.threshold;
  }
  QuerySummary done() {
    s.mean_fraction = s.reads_with_kmers ? fraction_sum / static_cast<double>(s.reads_with_kmers) : 0.0;
    return s;
  }
};

// One batch's answers, kept until its turn to be written comes. A worker
// whose batch is a window of batches ahead of the next one to be written
// waits, so memory stays bounded.
struct BatchHits {
  uint64_t serial = 0;
  std::string names;
  std::vector<uint32_t> name_len;
  std::vector<uint64_t> kmers, present;
};

template <class W>
QuerySummary query_with(const LoadedFilter& lf, const QueryOptions& o,
                        const std::function<void(const ReadHits&)>& on_read, const FilterHooks& hooks) {
  const KmerShape<W> shape(lf.meta.k, lf.meta.canonical);
  const ScalableBloom& filter = lf.filter;
  const uint64_t seed = lf.meta.seed;
  Tally tally{.s = {.threshold = o.threshold}};
  detail::SerialOrder<BatchHits> reorder(4 * uint64_t{o.threads} + 4);
  std::vector<PerWorker<std::vector<uint64_t>>> scratch(o.threads);
  PipelineOptions popt;
  popt.workers = o.threads;
  popt.batch_bases = o.batch_bases;
  run_pipeline(o.inputs, popt, [&](const RecordBatch& b, unsigned id) {
    try {
      auto owned = std::make_unique<BatchHits>();
      BatchHits& hits = *owned;
      hits.serial = b.serial;
      std::vector<uint64_t>& h = scratch[id].value;
      h.clear();
      hits.kmers.resize(b.size());
      hits.present.assign(b.size(), 0);
      for (size_t i = 0; i < b.size(); ++i) {
        const std::string_view name = first_field(b.name(i));
        hits.names.append(name);
        hits.name_len.push_back(static_cast<uint32_t>(name.size()));
        const size_t before = h.size();
        for_each_kmer(b.seq(i), shape, [&](W km) { h.push_back(hash_kmer(km, seed)); });
        hits.kmers[i] = h.size() - before;
      }
      size_t read = 0, left = b.size() ? hits.kmers[0] : 0;
      for (size_t i = 0; i < h.size(); ++i) {
        while (left == 0) left = hits.kmers[++read];
        if (i + kAhead < h.size()) filter.prefetch(h[i + kAhead]);
        hits.present[read] += filter.contains(h[i]);
        --left;
      }
      reorder.deliver(std::move(owned), [&](const BatchHits& done) {
        size_t off = 0;
        for (size_t i = 0; i < done.kmers.size(); ++i) {
          const ReadHits r{std::string_view(done.names).substr(off, done.name_len[i]), done.kmers[i], done.present[i]};
          off += done.name_len[i];
          tally.add(r);
          on_read(r);
        }
      });
    } catch (...) {
      reorder.abort();
      throw;
    }
  }, hooks.progress);
  return tally.done();
}

}  // namespace

QuerySummary query_reads(const LoadedFilter& filter, const QueryOptions& options,
                         const std::function<void(const ReadHits&)>& on_read, const FilterHooks& hooks) {
  options.validate();
  check_query_k(filter.meta, options.k);
  return dispatch_kmer_width(filter.meta.k, [&]<class W>() { return query_with<W>(filter, options, on_read, hooks); });
}

QuerySummary query_kmer_list(const LoadedFilter& lf, const std::string& path, double threshold,
                             const std::function<void(std::string_view kmer, bool present)>& on_kmer) {
  if (!(threshold >= 0 && threshold <= 1)) throw std::invalid_argument("--threshold must be in [0, 1]");
  const unsigned k = lf.meta.k;
  Tally tally{.s = {.threshold = threshold}};
  const auto ask = [&]<class W>(std::string_view text, W km) {
    if (lf.meta.canonical) km = std::min(km, reverse_complement(km, k));
    const bool present = lf.filter.contains(hash_kmer(km, lf.meta.seed));
    tally.add(ReadHits{text, 1, present ? 1u : 0u});
    on_kmer(text, present);
  };
  // A KFF file (in file order) or a list of k-mers, told by content.
  const auto in = open_count_file(path, {.buffer_bytes = size_t{1} << 20, .kmer_list = true});
  dispatch_kmer_width(k, [&]<class W>() {
    for (KmerCount r; in->next(r);) {
      if (r.kmer.size() != k)
        in->fail("k-mer of " + std::to_string(r.kmer.size()) + " bases, the filter's k is " + std::to_string(k));
      W km{};
      try {
        km = encode_kmer<W>(r.kmer);
      } catch (const std::invalid_argument& e) {
        in->fail(e.what());
      }
      ask(r.kmer, km);
    }
  });
  return tally.done();
}

}  // namespace kmerbloom
