#include "count/merge_counts.hpp"

#include <memory>
#include <queue>
#include <stdexcept>
#include <tuple>

#include "common/format.hpp"
#include "formats/count_file.hpp"

namespace kmerbloom {
namespace {

struct CountCursor {
  CountCursor(const std::string& path, size_t buffer) : in(open_count_file(path, {false, buffer, true})) {}
  std::unique_ptr<CountFileReader> in;
  std::string kmer;
  uint64_t count = 0;
  bool done = false;

  // A k-mer is A, C, G and T as count writes them; a histogram row (digits)
  // is the usual slip: merge-counts takes histograms with --histo.
  void check_letters(std::string_view text) const {
    if (text.find_first_not_of("ACGT") == std::string_view::npos) return;
    std::string quoted = "'";
    quoted.append(printable(text)).append("'");
    if (text.find_first_not_of("0123456789") == std::string_view::npos)
      in->fail(quoted + " is a number, not a k-mer: this looks like a histogram (COUNT FREQUENCY); "
               "give histograms with --histo");
    in->fail(quoted + " is not a k-mer of A, C, G and T as count writes them");
  }

  // Reads the next record; the first one read sets k for all files.
  void advance(unsigned& k, uint64_t& lines) {
    KmerCount r;
    if (!in->next(r)) {
      done = true;
      return;
    }
    check_letters(r.kmer);
    if (k == 0) k = static_cast<unsigned>(r.kmer.size());
    if (r.kmer.size() != k)
      in->fail("k-mer of " + std::to_string(r.kmer.size()) + " bases, the first has " + std::to_string(k));
    if (r.kmer < kmer)
      in->fail("k-mers out of order (" + printable(r.kmer) + " after " + printable(kmer) +
               "): inputs must be sorted as count writes them");
    kmer.assign(r.kmer);
    count = r.count;
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
