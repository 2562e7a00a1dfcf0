#include "profile/read_counts.hpp"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

#include "common/bases.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/count_file.hpp"
#include "kmer/kmer.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom {
namespace {

// Records of the file in order: k bases each in kmers, one count each.
struct Block {
  std::string kmers;
  std::vector<uint64_t> counts;
  std::exception_ptr error;  // after these records, the file's error
};

bool canonical(std::string_view s) {
  for (size_t i = 0, j = s.size(); i < s.size(); ++i) {
    const char rc = kBaseChar[3 - kBaseCode[static_cast<uint8_t>(s[--j])]];
    if (s[i] != rc) return s[i] < rc;
  }
  return true;
}

// Reads and checks one record after `last` (empty before the first).
bool next_checked(CountFileReader& in, const std::string& last, unsigned k, KmerCount& r) {
  if (!in.next(r)) return false;
  if (k && r.kmer.size() != k)
    in.fail("k-mer of " + std::to_string(r.kmer.size()) + " bases, the first has " + std::to_string(k));
  if (r.kmer.empty() || r.kmer.size() > kMaxK)
    in.fail("k-mer of " + std::to_string(r.kmer.size()) + " bases: k must be 1 to " + std::to_string(kMaxK));
  for (const char c : r.kmer)
    if (c != 'A' && c != 'C' && c != 'G' && c != 'T')
      in.fail("not a k-mer of upper-case A, C, G, T: '" + printable(r.kmer) + "'");
  if (!last.empty() && r.kmer <= last)
    in.fail("k-mers out of order or repeated (" + printable(r.kmer) + " after " + last +
            "): the read counts must be sorted as count writes them");
  if (!canonical(r.kmer))
    in.fail(std::string(r.kmer) + " is not canonical: count the reads with canonical k-mers (count's default)");
  if (r.count == 0) in.fail("count 0");
  return true;
}

}  // namespace

// free: empty blocks for the parser; full: parsed ones for the consumer,
// closed at the end of the file. `current` is the block the consumer reads.
struct SortedReadCounts::Shared {
  std::unique_ptr<CountFileReader> in;
  detail::HandOff<Block> free, full;
  std::unique_ptr<Block> current;
  size_t at = 0;  // next record of current
  std::thread parser;

  void parse(std::string last, unsigned k) {
    std::unique_ptr<Block> b;
    KmerCount r;
    while (free.pop(b)) {
      b->kmers.clear();
      b->counts.clear();
      try {
        while (b->counts.size() < kBlockRecords && next_checked(*in, last, k, r)) {
          b->kmers.append(r.kmer);
          b->counts.push_back(r.count);
          last.assign(r.kmer);
        }
      } catch (...) {
        b->error = std::current_exception();
      }
      const bool end = b->error || b->counts.size() < kBlockRecords;
      full.push(std::move(b));
      if (end) break;
    }
    full.close();
  }
};

SortedReadCounts::SortedReadCounts(const std::string& path, unsigned expected_k) : shared_(std::make_unique<Shared>()) {
  Shared& s = *shared_;
  s.in = open_count_file(path, {true, size_t{1} << 20, true});
  KmerCount first;
  if (!next_checked(*s.in, {}, 0, first)) throw InputError(s.in->name() + ": no k-mers: the read counts are empty");
  k_ = static_cast<unsigned>(first.kmer.size());
  if (expected_k && k_ != expected_k)
    s.in->fail("k-mers of " + std::to_string(k_) + " bases, but -k is " + std::to_string(expected_k));
  // The first record opens the first block; the parser goes on from it.
  s.current = std::make_unique<Block>();
  s.current->kmers.assign(first.kmer);
  s.current->counts.push_back(first.count);
  for (size_t i = 0; i < kBlocks; ++i) s.free.push(std::make_unique<Block>());
  s.parser = detail::start_thread([&s, last = std::string(first.kmer), k = k_] { s.parse(last, k); }, 0, 1);
  advance();
}

SortedReadCounts::~SortedReadCounts() {
  shared_->free.abort();
  shared_->full.abort();
  shared_->parser.join();
}

void SortedReadCounts::advance() {
  Shared& s = *shared_;
  while (s.at == s.current->counts.size()) {
    if (s.current->error) std::rethrow_exception(s.current->error);
    std::unique_ptr<Block> next;
    if (!s.full.pop(next)) {
      done_ = true;
      return;
    }
    s.free.push(std::move(s.current));
    s.current = std::move(next);
    s.at = 0;
  }
  kmer_ = std::string_view(s.current->kmers).substr(s.at * k_, k_);
  count_ = s.current->counts[s.at++];
  min_count_ = std::min(min_count_, count_);
}

}  // namespace kmerbloom
