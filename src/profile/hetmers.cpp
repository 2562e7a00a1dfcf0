#include "profile/hetmers.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <utility>

#include "common/error.hpp"
#include "common/format.hpp"
#include "count/spool.hpp"
#include "formats/output.hpp"
#include "kmer/kmer.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom {
namespace {

constexpr uint64_t kGridBytes = (kMaxPairCoverage + 1) * (kMaxMinorCoverage + 1) * sizeof(uint64_t);
constexpr uint64_t kFixedBytes = uint64_t{16} << 20;  // the process, output and input buffers
constexpr size_t kBlockKmers = size_t{1} << 14;       // oriented k-mers a block of the temporary file (256 KiB)
constexpr uint64_t kBucketKmers = uint64_t{1} << 16;  // reverse complements a bucket, about (1 MiB)
constexpr size_t kScatterKmers = 512;                 // a bucket's buffer in the scatter (8 KiB)
constexpr size_t kChunkKmers = size_t{1} << 11;       // canonical k-mers read at a time in the merge (32 KiB)
constexpr uint64_t kUnitKmers = uint64_t{1} << 17;    // a search unit's k-mers, at most where the data allow (2 MiB)
constexpr unsigned kMaxPrefixBases = 10;
constexpr size_t kPairwiseKmers = 16;  // a group this small is searched pair by pair
constexpr size_t kPairBlock = size_t{1} << 18;        // bytes of pairs a thread holds before spooling them

// One end of a pair: the oriented k-mer, its rank among all oriented k-mers
// (its degree mark) and its count.
struct PairEnd {
  uint64_t kmer, rank, count;
};
static_assert(sizeof(PairEnd) == 24);

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

// The oriented k-mers of a set in k-mer order: every canonical k-mer and its
// reverse complement (a palindrome once), 16 bytes each in an unlinked
// temporary file, with the rank of the first k-mer of every prefix of
// prefix_bases() bases. Built in two passes. The first reads the canonical
// k-mers (in order) and scatters their reverse complements into buckets by
// their first bucket bases, about kBucketKmers a bucket; the second, on the
// threads, sorts each bucket and merges it with the canonical k-mers of its
// prefix, which are a stretch of the set.
class OrientedKmers {
 public:
  // check(largest bucket) is called between the two passes (it may throw).
  OrientedKmers(const CountedKmers& set, unsigned k, uint64_t oriented, unsigned threads, uint64_t unit_kmers,
                uint64_t bucket_kmers, const std::function<void(uint64_t)>& check)
      : spool_(SpoolOptions{.dir = set.tmp_dir()}) {
    // Prefixes: about unit_kmers / 128 k-mers a prefix (1,024), at most
    // kMaxPrefixBases and k - 1 bases.
    const uint64_t per_prefix = std::max<uint64_t>(1, unit_kmers / 128);
    while (prefix_bases_ + 1 < k && prefix_bases_ < kMaxPrefixBases &&
           (uint64_t{1} << (2 * prefix_bases_)) * per_prefix < oriented)
      ++prefix_bases_;
    unsigned bucket_bases = 0;
    while (bucket_bases < prefix_bases_ && (uint64_t{1} << (2 * bucket_bases)) * bucket_kmers < oriented / 2)
      ++bucket_bases;
    const size_t buckets = size_t{1} << (2 * bucket_bases);
    const unsigned fine_shift = 2 * (k - prefix_bases_), bucket_shift = 2 * (k - bucket_bases);
    starts_.assign((size_t{1} << (2 * prefix_bases_)) + 1, 0);
    std::vector<uint64_t> canonical_starts(buckets + 1, 0);
    Spool scattered(SpoolOptions{.dir = set.tmp_dir()});
    std::vector<std::vector<Spool::Block>> bucket_blocks(buckets);
    {
      std::vector<std::vector<CountedKmer>> pending(buckets);
      const auto put = [&](size_t j) {
        bucket_blocks[j].push_back(
            scattered.put(pending[j].data(), static_cast<uint32_t>(pending[j].size() * sizeof(CountedKmer))));
        pending[j].clear();
      };
      std::vector<CountedKmer> block;
      uint64_t last = 0, seen = 0;
      for (size_t b = 0; b < set.blocks(); ++b) {
        set.read_block(b, block);
        for (const CountedKmer& c : block) {
          if (seen++ > 0 && c.kmer <= last) throw std::logic_error("hetmers: the k-mers are not in order");
          last = c.kmer;
          ++starts_[(c.kmer >> fine_shift) + 1];
          ++canonical_starts[(c.kmer >> bucket_shift) + 1];
          const uint64_t rc = reverse_complement(c.kmer, k);
          if (rc == c.kmer) continue;
          ++starts_[(rc >> fine_shift) + 1];
          const size_t j = rc >> bucket_shift;
          if (pending[j].capacity() == 0) pending[j].reserve(kScatterKmers);
          pending[j].push_back({rc, c.count});
          if (pending[j].size() == kScatterKmers) put(j);
        }
      }
      for (size_t j = 0; j < buckets; ++j)
        if (!pending[j].empty()) put(j);
    }
    scattered.seal();
    for (size_t i = 1; i < starts_.size(); ++i) starts_[i] += starts_[i - 1];
    for (size_t j = 1; j <= buckets; ++j) canonical_starts[j] += canonical_starts[j - 1];
    size_ = starts_.back();
    bucket_starts_.resize(buckets + 1);
    for (size_t j = 0; j <= buckets; ++j) bucket_starts_[j] = starts_[j << (2 * (prefix_bases_ - bucket_bases))];
    for (size_t j = 0; j < buckets; ++j)
      largest_bucket_ = std::max(largest_bucket_, bucket_starts_[j + 1] - bucket_starts_[j] -
                                                      (canonical_starts[j + 1] - canonical_starts[j]));
    check(largest_bucket_);
    // Each bucket sorted and merged with its canonical k-mers.
    blocks_.resize(buckets);
    std::atomic<size_t> next{0};
    detail::run_on_threads(
        std::max(1u, threads),
        [&](unsigned) {
          std::vector<CountedKmer> rcs, canonical, out;
          for (size_t j; (j = next.fetch_add(1)) < buckets;) {
            rcs.clear();
            for (const Spool::Block& b : bucket_blocks[j]) {
              const size_t at = rcs.size();
              rcs.resize(at + b.size / sizeof(CountedKmer));
              scattered.read(b, rcs.data() + at);
            }
            std::sort(rcs.begin(), rcs.end(), [](const CountedKmer& a, const CountedKmer& b) { return a.kmer < b.kmer; });
            uint64_t from = canonical_starts[j];
            const uint64_t to = canonical_starts[j + 1];
            size_t c = 0, r = 0;
            canonical.clear();
            while (r < rcs.size() || from < to || c < canonical.size()) {
              if (c == canonical.size() && from < to) {
                canonical.resize(std::min<uint64_t>(kChunkKmers, to - from));
                set.read(from, canonical.size(), canonical.data());
                from += canonical.size();
                c = 0;
              }
              const bool take_canonical = c < canonical.size() && (r == rcs.size() || canonical[c].kmer < rcs[r].kmer);
              out.push_back(take_canonical ? canonical[c++] : rcs[r++]);
              if (out.size() == kBlockKmers) put_out(j, out);
            }
            put_out(j, out);
          }
        },
        [&] { next = buckets; });
    spool_.seal();
  }

  uint64_t size() const { return size_; }
  unsigned prefix_bases() const { return prefix_bases_; }
  // The rank of the first k-mer whose first prefix_bases() bases are p (p = 4^prefix_bases(): size()).
  uint64_t start(uint64_t p) const { return starts_[p]; }
  // The k-mers of ranks [first, first + n) to out.
  void read(uint64_t first, uint64_t n, CountedKmer* out) const {
    while (n > 0) {
      const size_t j = static_cast<size_t>(std::upper_bound(bucket_starts_.begin(), bucket_starts_.end(), first) -
                                           bucket_starts_.begin()) - 1;
      const uint64_t off = first - bucket_starts_[j], b = off / kBlockKmers, o = off % kBlockKmers;
      const uint64_t len = std::min({n, kBlockKmers - o, bucket_starts_[j + 1] - first});
      spool_.read(blocks_[j][b], static_cast<uint32_t>(o * sizeof(CountedKmer)),
                  static_cast<uint32_t>(len * sizeof(CountedKmer)), out);
      out += len;
      first += len;
      n -= len;
    }
  }
  // Bytes held while it is built, at most (for k-mers oriented k-mers on
  // threads threads, and a largest bucket that kBucketKmers allows): the
  // scatter's buffers, then each thread's bucket, a stretch of canonical
  // k-mers and a block.
  static uint64_t bytes_building(uint64_t oriented, unsigned threads, uint64_t bucket_kmers, uint64_t largest_bucket) {
    uint64_t buckets = 1;
    while (buckets * bucket_kmers < oriented / 2) buckets *= 4;
    const uint64_t scatter = buckets * kScatterKmers * sizeof(CountedKmer);
    const uint64_t merge = threads * (largest_bucket + kChunkKmers + kBlockKmers) * sizeof(CountedKmer);
    return std::max(scatter, merge) + 2 * Spool::kStagingBytes;
  }
  uint64_t largest_bucket() const { return largest_bucket_; }
  uint64_t bytes() const { return (starts_.size() + bucket_starts_.size()) * sizeof(uint64_t); }

 private:
  void put_out(size_t j, std::vector<CountedKmer>& out) {
    if (out.empty()) return;
    blocks_[j].push_back(spool_.put(out.data(), static_cast<uint32_t>(out.size() * sizeof(CountedKmer))));
    out.clear();
  }

  unsigned prefix_bases_ = 0;
  uint64_t size_ = 0, largest_bucket_ = 0;
  Spool spool_;
  std::vector<std::vector<Spool::Block>> blocks_;  // by bucket, each written by one thread
  std::vector<uint64_t> starts_, bucket_starts_;
};

// The search's units. Two oriented k-mers at one base from each other, at
// position i, share their first i bases and their last k - 1 - i. With
// groups of the k-mers of one prefix of D bases (D = the set's
// prefix_bases() or fewer), a pair at i >= D lies within one group, and a
// pair at i < D within the four groups P b X (P: i bases, b: any base, X: D
// - 1 - i bases). Unit u < D 4^(D-1) is the four groups of a level i < D and
// a pair (P, X); unit D 4^(D-1) + g is group g, searched at every level from D
// on. D is the fewest bases whose largest unit holds at most kUnitKmers
// k-mers (the data decide it, not -M or -t, so the pairs come out in one
// order).
struct Units {
  unsigned d = 0, fine = 0;  // fine: the set's prefix bases
  uint64_t shallow = 0, total = 0, largest = 0;
  const OrientedKmers* set = nullptr;

  Units(const OrientedKmers& s, uint64_t unit_kmers) : fine(s.prefix_bases()), set(&s) {
    for (d = 0;; ++d) {
      largest = largest_unit();
      if (largest <= unit_kmers || d == fine) break;
    }
    shallow = d == 0 ? 0 : uint64_t{d} << (2 * (d - 1));
    total = shallow + (uint64_t{1} << (2 * d));
  }
  // The ranks of group g of prefixes of `bases` bases.
  std::pair<uint64_t, uint64_t> group(uint64_t g, unsigned bases) const {
    const unsigned shift = 2 * (fine - bases);
    return {set->start(g << shift), set->start((g + 1) << shift)};
  }
  uint64_t group_size(uint64_t g, unsigned bases) const {
    const auto [a, b] = group(g, bases);
    return b - a;
  }
  // Unit u < shallow: its level and its four groups.
  unsigned level(uint64_t u) const { return static_cast<unsigned>(u >> (2 * (d - 1))); }
  std::array<uint64_t, 4> groups(uint64_t u) const {
    const unsigned i = level(u), x_bases = d - 1 - i;
    const uint64_t r = u & ((uint64_t{1} << (2 * (d - 1))) - 1);
    const uint64_t p = r >> (2 * x_bases), x = r & ((uint64_t{1} << (2 * x_bases)) - 1);
    std::array<uint64_t, 4> g{};
    for (uint64_t b = 0; b < 4; ++b) g[b] = (p << (2 * (d - i))) | (b << (2 * x_bases)) | x;
    return g;
  }

 private:
  // The k-mers of the largest unit with d prefix bases.
  uint64_t largest_unit() const {
    uint64_t most = 0;
    for (uint64_t g = 0; g < (uint64_t{1} << (2 * d)); ++g) most = std::max(most, group_size(g, d));
    if (d > 0)
      for (uint64_t u = 0; u < (uint64_t{d} << (2 * (d - 1))); ++u) {
        uint64_t n = 0;
        for (const uint64_t g : groups(u)) n += group_size(g, d);
        most = std::max(most, n);
      }
    return most;
  }
};

// The search: pass 1 finds every pair unit by unit on the options' threads,
// marks each oriented k-mer's degree and keeps the pairs in a temporary file
// by unit; pass 2 reads them back in unit order and bins the unique ones.
class Search {
 public:
  Search(const OrientedKmers& set, const Units& units, const HetmerOptions& o, const std::string& tmp_dir)
      : set_(set), units_(units), o_(o), marks_(set.size()), spool_(SpoolOptions{.dir = tmp_dir}),
        pairs_(units.total) {}

  void find_pairs(HetmerResult& r) {
    std::atomic<uint64_t> next{0}, pairs{0};
    detail::run_on_threads(
        std::max(1u, o_.threads),
        [&](unsigned) {
          std::vector<CountedKmer> buf;
          std::vector<PairEnd> found;
          uint64_t n = 0;
          for (uint64_t u; (u = next.fetch_add(1)) < units_.total;) {
            n += search_unit(u, buf, found);
            done_one();
          }
          pairs += n;
        },
        [&] { next = units_.total; });
    r.pairs = pairs;
    r.kmers_in_pairs = marks_.marked();
    r.kmers_in_several = marks_.marked_several();
  }

  void bin_pairs(HetmerResult& r) {
    std::vector<PairEnd> pairs;
    std::string text;
    for (const auto& blocks : pairs_) {
      for (const Spool::Block& b : blocks) {
        pairs.resize(b.size / sizeof(PairEnd));
        spool_.read(b, pairs.data());
        for (size_t i = 0; i < pairs.size(); i += 2) bin_pair(pairs[i], pairs[i + 1], r, text);
      }
      done_one();
    }
    if (o_.pairs) o_.pairs->write(text);
  }

 private:
  void done_one() const {
    if (o_.progress) o_.progress->units_done.fetch_add(1, std::memory_order_relaxed);
  }

  // Loads unit u and appends its pairs to pairs_[u]; returns how many.
  uint64_t search_unit(uint64_t u, std::vector<CountedKmer>& buf, std::vector<PairEnd>& found) {
    found.clear();
    uint64_t n = 0;
    if (u < units_.shallow) {
      const std::array<uint64_t, 4> g = units_.groups(u);
      size_t cut[5] = {0, 0, 0, 0, 0};
      uint64_t rank[4];
      for (unsigned b = 0; b < 4; ++b) {
        const auto [first, end] = units_.group(g[b], units_.d);
        rank[b] = first;
        cut[b + 1] = cut[b] + (end - first);
      }
      buf.resize(cut[4]);
      for (unsigned b = 0; b < 4; ++b) set_.read(rank[b], cut[b + 1] - cut[b], buf.data() + cut[b]);
      n = merge4(buf.data(), cut, rank, units_.level(u), u, found);
    } else {
      const auto [first, end] = units_.group(u - units_.shallow, units_.d);
      buf.resize(end - first);
      set_.read(first, end - first, buf.data());
      n = search_group(buf.data(), buf.size(), first, units_.d, u, found);
    }
    flush(found, u);
    return n;
  }

  // Every pair at one base within a[0, n), k-mers of one prefix of `level`
  // bases, ranks from `rank`: at the level's base, then deeper in each part;
  // a small group pair by pair (any two that differ at one base).
  uint64_t search_group(const CountedKmer* a, size_t n, uint64_t rank, unsigned level, uint64_t u,
                        std::vector<PairEnd>& found) {
    if (n < 2 || level >= o_.k) return 0;
    if (n <= kPairwiseKmers) {
      uint64_t pairs = 0;
      for (size_t x = 0; x < n; ++x)
        for (size_t y = x + 1; y < n; ++y) {
          const uint64_t diff = a[x].kmer ^ a[y].kmer, bases = (diff | diff >> 1) & 0x5555555555555555ULL;
          if ((bases & (bases - 1)) == 0)  // one base differs (two k-mers of a set are never equal)
            pairs += add_pair(a[x], rank + x, a[y], rank + y, u, found);
        }
      return pairs;
    }
    const unsigned shift = 2 * (o_.k - 1 - level);
    size_t cut[5] = {0, 0, 0, 0, n};
    for (unsigned b = 1; b < 4; ++b)
      cut[b] = static_cast<size_t>(std::partition_point(a + cut[b - 1], a + n, [&](const CountedKmer& x) {
                                     return ((x.kmer >> shift) & 3) < b;
                                   }) - a);
    const uint64_t ranks[4] = {rank + cut[0], rank + cut[1], rank + cut[2], rank + cut[3]};
    uint64_t pairs = merge4(a, cut, ranks, level, u, found);
    for (unsigned b = 0; b < 4; ++b)
      pairs += search_group(a + cut[b], cut[b + 1] - cut[b], ranks[b], level + 1, u, found);
    return pairs;
  }

  // Four lists a[cut[b], cut[b + 1]) of k-mers that differ at base `level`
  // and agree before it, each sorted by the bases after it (ranks of their
  // first k-mers in rank[b]): the k-mers that agree after it too are pairs.
  // One merge of the four, without a branch on which list moves (a coin
  // toss for the processor); pairs are rare.
  uint64_t merge4(const CountedKmer* a, const size_t* cut, const uint64_t* rank, unsigned level, uint64_t u,
                  std::vector<PairEnd>& found) {
    unsigned lists = 0;
    for (unsigned b = 0; b < 4; ++b) lists += cut[b + 1] > cut[b];
    if (lists < 2) return 0;  // (and no k-mer to read for an ended list)
    constexpr uint64_t kDone = ~uint64_t{0};  // above any k-mer's bases
    const uint64_t after = (uint64_t{1} << (2 * (o_.k - 1 - level))) - 1;
    const size_t last = cut[4] - 1;  // a k-mer to read, whatever an ended list's place
    size_t at[4] = {cut[0], cut[1], cut[2], cut[3]};
    uint64_t head[4];
    const auto load = [&](unsigned b) {
      const uint64_t v = a[std::min(at[b], last)].kmer & after;
      head[b] = at[b] < cut[b + 1] ? v : kDone;
    };
    for (unsigned b = 0; b < 4; ++b) load(b);
    uint64_t pairs = 0;
    for (;;) {
      const uint64_t least = std::min(std::min(head[0], head[1]), std::min(head[2], head[3]));
      if (least == kDone) break;
      const unsigned e0 = head[0] == least, e1 = head[1] == least, e2 = head[2] == least, e3 = head[3] == least;
      if (e0 + e1 + e2 + e3 > 1) [[unlikely]] {
        const unsigned with = e0 | e1 << 1 | e2 << 2 | e3 << 3;
        for (unsigned p = 0; p < 4; ++p)
          for (unsigned q = p + 1; q < 4; ++q)
            if ((with >> p & 1) && (with >> q & 1))
              pairs += add_pair(a[at[p]], rank[p] + (at[p] - cut[p]), a[at[q]], rank[q] + (at[q] - cut[q]), u, found);
      }
      at[0] += e0;
      at[1] += e1;
      at[2] += e2;
      at[3] += e3;
      for (unsigned b = 0; b < 4; ++b) load(b);
    }
    return pairs;
  }

  // A pair at one base, kept when its counts add up to at most kMaxPairCoverage.
  unsigned add_pair(const CountedKmer& e, uint64_t re, const CountedKmer& f, uint64_t rf, uint64_t u,
                    std::vector<PairEnd>& found) {
    if (e.count + f.count > kMaxPairCoverage) return 0;
    marks_.mark(re);
    marks_.mark(rf);
    found.push_back({e.kmer, re, e.count});
    found.push_back({f.kmer, rf, f.count});
    if (found.size() * sizeof(PairEnd) >= kPairBlock) flush(found, u);
    return 1;
  }

  // A pair of pass 1, binned when neither k-mer is in another pair.
  void bin_pair(const PairEnd& a, const PairEnd& b, HetmerResult& r, std::string& text) {
    if (marks_.several(a.rank) || marks_.several(b.rank)) return;
    ++r.unique_pairs;
    ++r.grid.at(a.count + b.count, std::min(a.count, b.count));
    if (!is_representative(a.kmer, b.kmer)) return;
    ++r.unique_pairs_canonical;
    if (o_.pairs) {
      add_line(a.kmer, a.count, b.kmer, b.count, text);
      if (text.size() >= kPairBlock) {
        o_.pairs->write(text);
        text.clear();
      }
    }
  }

  // A pair {u, v} and its reverse complement {rc u, rc v} are both found:
  // the one whose (smaller, larger) k-mer comes first stands for both.
  bool is_representative(uint64_t u, uint64_t v) const {
    const uint64_t ru = reverse_complement(u, o_.k), rv = reverse_complement(v, o_.k);
    return std::pair(std::min(u, v), std::max(u, v)) <= std::pair(std::min(ru, rv), std::max(ru, rv));
  }

  void add_line(uint64_t u, uint64_t cu, uint64_t v, uint64_t cv, std::string& text) const {
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
  }

  // Moves found to the spool, as the next block of unit u.
  void flush(std::vector<PairEnd>& found, uint64_t u) {
    if (found.empty()) return;
    pairs_[u].push_back(spool_.put(found.data(), static_cast<uint32_t>(found.size() * sizeof(PairEnd))));
    found.clear();
  }

  const OrientedKmers& set_;
  const Units& units_;
  const HetmerOptions& o_;
  PairMarks marks_;
  Spool spool_;  // unlinked temporary file: the pairs of pass 1
  std::vector<std::vector<Spool::Block>> pairs_;  // by unit, each written by the one thread that searched it
};

}  // namespace

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
  const unsigned t = std::max(1u, o.threads);
  const uint64_t unit_kmers = o.unit_kmers ? o.unit_kmers : kUnitKmers;
  const uint64_t bucket_kmers = o.bucket_kmers ? o.bucket_kmers : kBucketKmers;
  // Memory: the process, the marks, the grid, the prefixes' ranks, then the
  // larger of the building (largest_bucket: the reverse complements of the
  // largest bucket) and the search (largest_unit: its k-mers).
  const auto need = [&](uint64_t largest_bucket, uint64_t largest_unit, uint64_t prefix_bytes) {
    const uint64_t search = t * (largest_unit * sizeof(CountedKmer) + kPairBlock) + Spool::kStagingBytes;
    return kFixedBytes + PairMarks::bytes(r.oriented_kmers) + kGridBytes + prefix_bytes +
           std::max(OrientedKmers::bytes_building(r.oriented_kmers, t, bucket_kmers, largest_bucket), search);
  };
  const auto refuse = [&](uint64_t needed) {
    const std::string fewer = t > 1 ? ", or use fewer threads" : "";
    throw BudgetError("hetmers needs at least " + format_megabytes(needed) + " for " + format_count(r.kmers) +
                          " k-mers on " + plural(t, "thread") + " (-M " + format_megabytes(o.max_memory) + ")",
                      needed, fewer);
  };
  // What it needs when the k-mers spread evenly: refused before anything is
  // written when -M is below it; what the k-mers need, once their prefixes
  // are known.
  const uint64_t even = std::min(r.oriented_kmers, unit_kmers);
  if (const uint64_t n = need(std::min(r.oriented_kmers / 2, bucket_kmers), even, 0); o.max_memory < n) refuse(n);
  const auto begin = [&](const std::string& name, uint64_t units) {
    if (o.pass) o.pass(name);
    if (!o.progress) return;
    o.progress->units_done = 0;
    o.progress->units_total = units;
    o.progress->unit = "units";
  };
  begin("pass 1: the k-mers and their reverse complements, sorted", 0);
  const OrientedKmers oriented(set, o.k, r.oriented_kmers, t, unit_kmers, bucket_kmers, [&](uint64_t largest_bucket) {
    if (const uint64_t n = need(largest_bucket, even, 0); o.max_memory < n) refuse(n);
  });
  const Units units(oriented, unit_kmers);
  r.partitions = static_cast<unsigned>(std::min<uint64_t>(units.total, UINT32_MAX));
  r.memory_planned = need(oriented.largest_bucket(), units.largest, oriented.bytes());
  if (o.max_memory < r.memory_planned) refuse(r.memory_planned);
  Search search(oriented, units, o, set.tmp_dir());
  begin("pass 2: pairs at one base, unit by unit", units.total);
  search.find_pairs(r);
  begin("pass 3: the unique pairs, binned", units.total);
  search.bin_pairs(r);
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
