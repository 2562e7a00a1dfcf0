#include "kmerbloom/counter.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "kmerbloom/count_table.hpp"
#include "kmerbloom/kmer.hpp"

namespace kmerbloom {

void CountOptions::validate() const {
  if (inputs.empty()) throw std::invalid_argument("no input files");
  if (k < 1 || k > kMaxK) throw std::invalid_argument("-k must be between 1 and " + std::to_string(kMaxK) + ", got " + std::to_string(k));
  if (min_count < 1) throw std::invalid_argument("--min-count must be at least 1");
  if (max_count < min_count) throw std::invalid_argument("--max-count must not be below --min-count");
  if (threads < 1) throw std::invalid_argument("--threads must be at least 1");
  if (histo_max < 1) throw std::invalid_argument("--histo-max must be at least 1");
  if (batch_bases < 1) throw std::invalid_argument("batch size must be at least 1 base");
}

namespace {

void note(const CountHooks& hooks, const std::string& text) {
  if (hooks.log) hooks.log(text);
}

template <class W>
CountResult count_with(const CountOptions& opt, const KmerSink& sink, const CountHooks& hooks) {
  const KmerShape<W> shape(opt.k, opt.canonical);
  CountTable<W> table(opt.expected_kmers);
  std::vector<InputSummary> per_worker(opt.threads);

  PipelineOptions popt;
  popt.workers = opt.threads;
  popt.batch_bases = opt.batch_bases;
  run_pipeline(
      opt.inputs, popt,
      [&](const RecordBatch& batch, unsigned id) {
        InputSummary& sum = per_worker[id];
        for (size_t i = 0; i < batch.size(); ++i) {
          const std::string_view seq = batch.seq(i);
          ++sum.reads;
          sum.bases += seq.size();
          for_each_kmer(seq, shape, [&](W km) {
            ++sum.kmers;
            table.add(km);
          });
          sum.bases_skipped += count_non_acgt(seq);
        }
      },
      hooks.progress);

  CountResult r;
  for (const auto& s : per_worker) r.input.add(s);
  r.table_bytes = table.bytes();
  r.table_capacity = table.capacity();
  r.table_load = table.load();
  note(hooks, "counted " + std::to_string(r.input.kmers) + " k-mers, " + std::to_string(table.size()) + " distinct");

  r.histogram.assign(opt.histo_max + 2, 0);
  table.for_each([&](W, uint32_t c) {
    ++r.distinct;
    r.max_count = std::max<uint64_t>(r.max_count, c);
    ++r.histogram[std::min<uint64_t>(c, opt.histo_max + 1)];
  });
  r.singletons = r.histogram[1];

  std::string text(opt.k, 'A');
  table.drain_sorted([&](uint32_t c) { return c >= opt.min_count && c <= opt.max_count; },
                     [&](W km, uint32_t c) {
                       ++r.solid;
                       decode_kmer_to(km, opt.k, text.data());
                       sink(text, c);
                     });
  return r;
}

}  // namespace

CountResult count_kmers(const CountOptions& options, const KmerSink& sink, const CountHooks& hooks) {
  options.validate();
  return dispatch_kmer_width(options.k, [&]<class W>() { return count_with<W>(options, sink, hooks); });
}

}  // namespace kmerbloom
