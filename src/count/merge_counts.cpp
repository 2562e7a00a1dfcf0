#include "count/merge_counts.hpp"

#include <memory>
#include <queue>
#include <stdexcept>
#include <tuple>

#include "common/format.hpp"
#include "formats/sorted_counts.hpp"

namespace kmerbloom {
namespace {

struct CountCursor {
  CountCursor(const std::string& path, size_t buffer)
      : in(open_sorted_counts(path, {.histogram_hint = "; give histograms with --histo", .fasta_form = false, .buffer_bytes = buffer})) {}
  std::unique_ptr<SortedCounts> in;
  std::string kmer;
  uint64_t count = 0;
  bool done = false;

  // Reads the next record; the first one read sets k for all files.
  void advance(unsigned& k, uint64_t& lines) {
    std::string_view next;
    if (!in->next(next, count)) {
      done = true;
      return;
    }
    if (k == 0) k = static_cast<unsigned>(next.size());
    if (next.size() != k)  // the first file's k (each file's own is checked by its reader)
      in->fail("k-mer of " + std::to_string(next.size()) + " bases, the first has " + std::to_string(k));
    kmer.assign(next);
    ++lines;
  }
};

}  // namespace

MergeCountsResult merge_count_files(const std::vector<std::string>& inputs, uint64_t min_count,
                                    const std::function<void(std::string_view, uint64_t)>& sink,
                                    PipelineProgress* progress) {
  if (inputs.empty()) throw std::invalid_argument("no input files");
  MergeCountsResult r;
  std::vector<std::unique_ptr<CountCursor>> cur;
  for (const auto& p : inputs) cur.push_back(std::make_unique<CountCursor>(p, (size_t{16} << 20) / inputs.size()));
  const auto later = [&](size_t a, size_t b) { return std::tie(cur[a]->kmer, a) > std::tie(cur[b]->kmer, b); };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < cur.size(); ++i) {
    cur[i]->advance(r.k, r.lines);
    if (!cur[i]->done) heap.push(i);
  }
  std::string key;
  uint64_t merged = 0;  // distinct k-mers, for the progress's pace
  while (!heap.empty()) {
    key = cur[heap.top()]->kmer;
    uint64_t sum = 0;
    while (!heap.empty() && cur[heap.top()]->kmer == key) {  // equal k-mers of every file, then the next
      const size_t i = heap.top();
      heap.pop();
      sum = cur[i]->count > UINT64_MAX - sum ? UINT64_MAX : sum + cur[i]->count;
      cur[i]->advance(r.k, r.lines);
      if (!cur[i]->done) heap.push(i);
    }
    if (sum >= min_count) {
      sink(key, sum);
      ++r.kmers_out;
    }
    if (progress && (++merged & 0xffff) == 0) {
      uint64_t bytes = 0;
      for (const auto& c : cur) bytes += c->in->bytes_read();
      progress->units_done = bytes;
    }
  }
  return r;
}

}  // namespace kmerbloom
