#include "profile/hetmers.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "common/error.hpp"
#include "common/format.hpp"
#include "count/spool.hpp"
#include "formats/output.hpp"
#include "kmer/kmer.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom {
namespace {

// One oriented k-mer with one of its pieces masked. A k-mer is cut into up
// to three pieces of about k/3 bases; two k-mers at one base from each other
// agree on two of them, so they share the key of the third, and on no other
// key. key = mix64(the k-mer with that piece set to A's): spread evenly, so
// that partitions are ranges of keys. meta, from the top bit: the piece (2
// bits), unused (5), the count (10), the oriented k-mer's number (47: 2 x
// canonical number, + 1 for its reverse complement).
struct KeyEntry {
  uint64_t key;
  uint64_t meta;
  uint64_t kmer;
  unsigned piece() const { return static_cast<unsigned>(meta >> 62); }
  uint64_t count() const { return (meta >> 47) & 1023; }
  uint64_t id() const { return meta & ((uint64_t{1} << 47) - 1); }
  bool operator<(const KeyEntry& o) const { return key != o.key ? key < o.key : meta < o.meta; }
};
static_assert(sizeof(KeyEntry) == 24);
static_assert(kMaxPairCoverage < 1024, "counts of a pair's k-mers are kept in 10 bits");

constexpr uint64_t kGridBytes = (kMaxPairCoverage + 1) * (kMaxMinorCoverage + 1) * sizeof(uint64_t);
constexpr uint64_t kThreadFixedBytes = kGridBytes + 2 * (uint64_t{1} << 20);  // grid, k-mer block, pair text
constexpr uint64_t kFixedBytes = uint64_t{16} << 20;  // the process, output and input buffers
constexpr uint64_t kMinPartitionEntries = uint64_t{1} << 16;
constexpr unsigned kMaxPartitions = 1u << 16;
// Pieces a k-mer is cut into for its keys: three, fewer for k < 3.
constexpr unsigned key_pieces(unsigned k) { return k < 3 ? k : 3; }
constexpr size_t kSpoolBlock = size_t{1} << 20;  // bytes of pairs or text a thread holds before spooling them

// How many pairs each oriented k-mer is in: 0, 1 or more, two bits per
// k-mer. Thread-safe: mark() from any threads at once; several() after them.
class PairMarks {
 public:
  explicit PairMarks(uint64_t ids) : once_((ids + 63) / 64), more_((ids + 63) / 64) {}
  void mark(uint64_t id) {
    const uint64_t bit = uint64_t{1} << (id & 63);
    if (std::atomic_ref<uint64_t>(once_[id >> 6]).fetch_or(bit, std::memory_order_relaxed) & bit)
      std::atomic_ref<uint64_t>(more_[id >> 6]).fetch_or(bit, std::memory_order_relaxed);
  }
  bool several(uint64_t id) const { return (more_[id >> 6] >> (id & 63)) & 1; }
  uint64_t marked() const { return ones(once_); }
  uint64_t marked_several() const { return ones(more_); }
  static uint64_t bytes(uint64_t ids) { return 2 * 8 * ((ids + 63) / 64); }

 private:
  static uint64_t ones(const std::vector<uint64_t>& v) {
    uint64_t n = 0;
    for (const uint64_t w : v) n += static_cast<uint64_t>(__builtin_popcountll(w));
    return n;
  }
  std::vector<uint64_t> once_, more_;
};

struct Plan {
  unsigned partitions = 1;
  uint64_t entries_per_partition = 0;  // reserved: the expected number with a margin
  uint64_t memory = 0;
};

uint64_t expected_with_margin(uint64_t entries, unsigned partitions) {
  const uint64_t mean = entries / partitions + 1;
  return mean + mean / 8 + 4096;  // a partition's size is binomial: 1/8 is many deviations above the mean
}

Plan plan_partitions(uint64_t entries, uint64_t ids, const HetmerOptions& o) {
  const unsigned t = std::max(1u, o.threads);
  const uint64_t fixed = kFixedBytes + PairMarks::bytes(ids) + t * kThreadFixedBytes;
  const uint64_t floor_bytes = fixed + t * (kMinPartitionEntries + 4096) * sizeof(KeyEntry);
  // The least -M: the floor, and room for the entries in kMaxPartitions
  // partitions (the loop below then stops there or before).
  const uint64_t least =
      std::max(floor_bytes, fixed + t * expected_with_margin(entries, kMaxPartitions) * sizeof(KeyEntry));
  const std::string fewer = t > 1 ? ", or use fewer threads" : "";
  if (o.max_memory < floor_bytes)
    throw BudgetError("hetmers needs at least " + format_megabytes(floor_bytes) + " for " + format_count(ids / 2) +
                          " k-mers on " + plural(t, "thread") + " (-M " + format_megabytes(o.max_memory) + ")",
                      least, fewer);
  const uint64_t per_thread = (o.max_memory - fixed) / t / sizeof(KeyEntry);
  Plan p;
  p.partitions = t;
  while (expected_with_margin(entries, p.partitions) > per_thread) {
    if (p.partitions >= kMaxPartitions)
      throw BudgetError("hetmers would need more than " + std::to_string(kMaxPartitions) + " partitions in -M " +
                            format_megabytes(o.max_memory),
                        least, fewer);
    p.partitions += std::max(1u, p.partitions / 8);
  }
  p.entries_per_partition = expected_with_margin(entries, p.partitions);
  p.memory = fixed + t * p.entries_per_partition * sizeof(KeyEntry);
  return p;
}

// The search of one run: its k-mers, its plan, its marks; run() does one
// pass over every partition on the options' threads.
class Search {
 public:
  Search(const CountedKmers& set, const HetmerOptions& o, const Plan& plan, uint64_t ids)
      : set_(set), o_(o), plan_(plan), marks_(ids), spool_(SpoolOptions{.dir = set.tmp_dir()}) {
    candidates_.resize(plan.partitions);
    lines_.resize(plan.partitions);
    const unsigned pieces = key_pieces(o.k);
    for (unsigned j = 0; j < pieces; ++j)
      for (unsigned pos = j * o.k / pieces; pos < (j + 1) * o.k / pieces; ++pos)
        piece_mask_[j] |= uint64_t{3} << (2 * (o.k - 1 - pos));
  }

  void run(bool second_pass, HetmerResult& r) {
    second_ = second_pass;
    next_ = 0;
    std::vector<Tally> tallies(std::max(1u, o_.threads));
    detail::run_on_threads(
        static_cast<unsigned>(tallies.size()), [&](unsigned t) { work(tallies[t]); },
        [&] { next_ = plan_.partitions; });  // the others stop at their next partition
    for (const Tally& t : tallies) {
      if (!second_) r.pairs += t.pairs;
      if (second_) {
        r.unique_pairs += t.unique;
        r.unique_pairs_canonical += t.canonical;
        r.grid.add(t.grid);
      }
    }
    if (!second_) {
      r.kmers_in_pairs = marks_.marked();
      r.kmers_in_several = marks_.marked_several();
    }
  }

  // The pair lines of every partition, in partition order.
  void write_pairs(OutputFile& out) {
    std::string buf;
    for (auto& blocks : lines_)
      for (const Spool::Block& b : blocks) {
        buf.resize(b.size);
        spool_.read(b, buf.data());
        out.write(buf);
      }
  }

 private:
  struct Tally {
    uint64_t pairs = 0, unique = 0, canonical = 0;
    SmudgeGrid grid;
  };

  void work(Tally& tally) {
    if (second_) {
      std::vector<KeyEntry> pairs;
      std::string text;
      for (unsigned p; (p = next_.fetch_add(1)) < plan_.partitions;) {
        for (const Spool::Block& b : candidates_[p]) {
          pairs.resize(b.size / sizeof(KeyEntry));
          spool_.read(b, pairs.data());
          for (size_t i = 0; i < pairs.size(); i += 2) bin_pair(pairs[i], pairs[i + 1], tally, text, p);
        }
        flush(text, lines_, p);
        done_one();
      }
      return;
    }
    std::vector<KeyEntry> entries, pairs;
    entries.reserve(plan_.entries_per_partition);
    std::vector<CountedKmer> block;
    for (unsigned p; (p = next_.fetch_add(1)) < plan_.partitions;) {
      entries.clear();
      collect(p, block, entries);
      std::sort(entries.begin(), entries.end());
      for (size_t i = 0, j; i < entries.size(); i = j) {
        for (j = i + 1;
             j < entries.size() && entries[j].key == entries[i].key && entries[j].piece() == entries[i].piece();)
          ++j;
        if (j - i > 1) mark_group(&entries[i], j - i, tally, pairs, p);
      }
      flush(pairs, candidates_, p);
      done_one();
    }
  }

  void done_one() const {
    if (o_.progress) o_.progress->units_done.fetch_add(1, std::memory_order_relaxed);
  }

  // The keys of partition p: every oriented k-mer, every piece.
  void collect(unsigned p, std::vector<CountedKmer>& block, std::vector<KeyEntry>& out) const {
    const unsigned k = o_.k;
    for (size_t b = 0; b < set_.blocks(); ++b) {
      set_.read_block(b, block);
      uint64_t id = 2 * b * CountedKmers::kKmersPerBlock;
      for (const CountedKmer& c : block) {
        const uint64_t rc = reverse_complement(c.kmer, k);
        add_keys(c.kmer, id, c.count, p, out);
        if (rc != c.kmer) add_keys(rc, id + 1, c.count, p, out);
        id += 2;
      }
    }
  }

  void add_keys(uint64_t kmer, uint64_t id, uint64_t count, unsigned p, std::vector<KeyEntry>& out) const {
    for (unsigned j = 0; j < key_pieces(o_.k); ++j) {
      const uint64_t key = mix64(kmer & ~piece_mask_[j]);
      if (static_cast<unsigned>((static_cast<u128>(key) * plan_.partitions) >> 64) != p) continue;
      out.push_back({key, uint64_t{j} << 62 | count << 47 | id, kmer});
    }
  }

  // Members of one group agree outside one piece: those at one base from each
  // other are pairs. Pairs within the coverage limit are marked and kept for
  // the second pass.
  void mark_group(const KeyEntry* g, size_t n, Tally& tally, std::vector<KeyEntry>& pairs, unsigned p) {
    for (size_t a = 0; a < n; ++a)
      for (size_t b = a + 1; b < n; ++b) {
        const uint64_t diff = g[a].kmer ^ g[b].kmer;
        if (__builtin_popcountll((diff | diff >> 1) & 0x5555555555555555ULL) != 1) continue;
        if (g[a].count() + g[b].count() > kMaxPairCoverage) continue;
        ++tally.pairs;
        marks_.mark(g[a].id());
        marks_.mark(g[b].id());
        pairs.push_back(g[a]);
        pairs.push_back(g[b]);
        if (pairs.size() * sizeof(KeyEntry) >= kSpoolBlock) flush(pairs, candidates_, p);
      }
  }

  // A pair of the first pass, binned when neither k-mer is in another pair.
  void bin_pair(const KeyEntry& a, const KeyEntry& b, Tally& tally, std::string& text, unsigned p) {
    if (marks_.several(a.id()) || marks_.several(b.id())) return;
    const uint64_t ca = a.count(), cb = b.count();
    ++tally.unique;
    ++tally.grid.at(ca + cb, std::min(ca, cb));
    if (!is_representative(a.kmer, b.kmer)) return;
    ++tally.canonical;
    if (o_.pairs) add_line(a.kmer, ca, b.kmer, cb, text, p);
  }

  // A pair {u, v} and its reverse complement {rc u, rc v} are both found:
  // the one whose (smaller, larger) k-mer comes first stands for both.
  bool is_representative(uint64_t u, uint64_t v) const {
    const uint64_t ru = reverse_complement(u, o_.k), rv = reverse_complement(v, o_.k);
    return std::pair(std::min(u, v), std::max(u, v)) <= std::pair(std::min(ru, rv), std::max(ru, rv));
  }

  void add_line(uint64_t u, uint64_t cu, uint64_t v, uint64_t cv, std::string& text, unsigned p) {
    if (std::pair(cv, v) < std::pair(cu, u)) {
      std::swap(u, v);
      std::swap(cu, cv);
    }
    text += decode_kmer(u, o_.k);
    text += '\t';
    text += std::to_string(cu);
    text += '\t';
    text += decode_kmer(v, o_.k);
    text += '\t';
    text += std::to_string(cv);
    text += '\n';
    if (text.size() >= kSpoolBlock) flush(text, lines_, p);
  }

  // Moves buf (pairs or text) to the spool, as the next block of partition p.
  template <class Buffer>
  void flush(Buffer& buf, std::vector<std::vector<Spool::Block>>& blocks, unsigned p) {
    if (buf.empty()) return;
    Spool::Block b = spool_.put(buf.data(), static_cast<uint32_t>(buf.size() * sizeof(buf[0])));
    {
      std::lock_guard lock(spool_mu_);
      blocks[p].push_back(std::move(b));
    }
    buf.clear();
  }

  const CountedKmers& set_;
  const HetmerOptions& o_;
  const Plan& plan_;
  PairMarks marks_;
  uint64_t piece_mask_[3] = {0, 0, 0};  // the bases of each piece
  bool second_ = false;
  std::atomic<unsigned> next_{0};
  Spool spool_;  // unlinked temporary file: candidate pairs, pair lines
  std::mutex spool_mu_;
  std::vector<std::vector<Spool::Block>> candidates_;  // first-pass pairs by partition, in key order
  std::vector<std::vector<Spool::Block>> lines_;       // --pairs text by partition, in key order
};

}  // namespace

uint64_t hetmer_minimum_memory(uint64_t kmers, unsigned threads) {
  const unsigned t = std::max(1u, threads);
  return kFixedBytes + PairMarks::bytes(2 * kmers) + t * kThreadFixedBytes +
         t * (kMinPartitionEntries + 4096) * sizeof(KeyEntry);
}

HetmerResult find_hetmers(const CountedKmers& set, const HetmerOptions& o) {
  if (o.k == 0 || o.k > kMaxSmallK) throw std::invalid_argument("hetmers takes k from 1 to 31");
  HetmerResult r;
  r.kmers = set.size();
  // Oriented k-mers: palindromes (even k only) are their own reverse complement.
  std::vector<CountedKmer> block;
  for (size_t b = 0; b < set.blocks(); ++b) {
    set.read_block(b, block);
    for (const CountedKmer& c : block) {
      if (c.count >= kMaxPairCoverage)
        throw std::invalid_argument("hetmers: a k-mer of count " + std::to_string(c.count) + " (at most " +
                                    std::to_string(kMaxPairCoverage - 1) + ")");
      r.oriented_kmers += reverse_complement(c.kmer, o.k) == c.kmer ? 1 : 2;
    }
  }
  const uint64_t ids = 2 * set.size();
  const Plan plan = plan_partitions(r.oriented_kmers * key_pieces(o.k), ids, o);
  r.partitions = plan.partitions;
  r.memory_planned = plan.memory;
  Search search(set, o, plan, ids);
  const auto begin = [&](const std::string& name) {
    if (o.pass) o.pass(name);
    if (!o.progress) return;
    o.progress->units_done = 0;
    o.progress->units_total = plan.partitions;
    o.progress->unit = "partitions";
  };
  begin("pass 1: pairs at one base, partition by partition");
  search.run(false, r);
  begin("pass 2: the unique pairs, binned");
  search.run(true, r);
  if (o.pairs) search.write_pairs(*o.pairs);
  return r;
}

void write_smu(const SmudgeGrid& grid, OutputFile& out) {
  for (uint64_t sum = 0; sum <= kMaxPairCoverage; ++sum)
    for (uint64_t minor = 0; minor < kMaxMinorCoverage && minor <= sum; ++minor)
      if (const uint64_t n = grid.at(sum, minor)) {
        out.put_uint(minor);
        out.put('\t');
        out.put_uint(sum - minor);
        out.put('\t');
        out.put_uint(n);
        out.put('\n');
      }
}

}  // namespace kmerbloom
