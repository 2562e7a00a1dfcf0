// kmerbloom filter (normalize/read_filter.hpp): the count-min sketch against exact counts,
// and filter_reads on reads generated from a random genome with a known
// origin per read: coverage kept, order, byte identity, pairs, determinism,
// weak k-mer trimming against a string oracle, errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "kmer/hash.hpp"
#include "normalize/read_filter.hpp"
#include "strings.hpp"

using namespace kmerbloom;
using kbtest::revcomp;
namespace fs = std::filesystem;

namespace {

class TempDir {
 public:
  TempDir() {
    static int n = 0;
    path_ = fs::temp_directory_path() / ("kb-normalize-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

struct Read {
  std::string name, seq, qual;
  size_t pos = 0;  // origin on the genome (forward strand)
};

std::string fastq(const Read& r) { return "@" + r.name + "\n" + r.seq + "\n+\n" + r.qual + "\n"; }

// Genome of g bases; reads of length len at `coverage`, random strand,
// substitution errors at `error_rate`. Names carry the origin.
struct Sim {
  std::string genome;
  std::vector<Read> reads;        // single reads, or mate 1 of each pair
  std::vector<Read> mates;        // mate 2 (paired only)
};

Sim simulate(uint64_t seed, size_t g, size_t len, double coverage, double error_rate, bool paired) {
  std::mt19937_64 rng(seed);
  Sim s;
  s.genome.resize(g);
  for (auto& c : s.genome) c = "ACGT"[rng() % 4];
  const size_t frag = paired ? 3 * len : len;
  const auto n = static_cast<size_t>(coverage * static_cast<double>(g) / static_cast<double>(paired ? 2 * len : len));
  std::uniform_real_distribution<double> u(0, 1);
  auto make = [&](size_t pos, bool reverse, const std::string& name) {
    Read r;
    r.pos = pos;
    r.name = name;
    r.seq = s.genome.substr(pos, len);
    for (auto& c : r.seq)
      if (u(rng) < error_rate) c = "ACGT"[(std::string("ACGT").find(c) + 1 + rng() % 3) % 4];
    if (reverse) r.seq = revcomp(r.seq);
    r.qual.resize(len);
    for (auto& q : r.qual) q = static_cast<char>('5' + rng() % 10);
    return r;
  };
  for (size_t i = 0; i < n; ++i) {
    const size_t start = rng() % (g - frag + 1);
    const bool rev = rng() % 2;
    std::ostringstream id;
    id << 'r' << i;
    if (!paired) {
      id << " pos=" << start;
      s.reads.push_back(make(start, rev, id.str()));
    } else {
      s.reads.push_back(make(start, rev, id.str() + "/1"));
      s.mates.push_back(make(start + frag - len, !rev, id.str() + "/2"));
    }
  }
  return s;
}

std::string join(const std::vector<Read>& rs) {
  std::string out;
  for (const auto& r : rs) out += fastq(r);
  return out;
}

struct Output {
  std::string out[2];
  ReadFilterResult result;
};

Output run(const ReadFilterOptions& o) {
  Output out;
  out.result = filter_reads(o, [&](unsigned s, std::string_view t) { out.out[s].append(t); });
  return out;
}

// Splits 4-line FASTQ text into records.
std::vector<std::string> records(const std::string& text) {
  std::vector<std::string> r;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = pos;
    for (int i = 0; i < 4; ++i) end = text.find('\n', end) + 1;
    r.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return r;
}

bool is_subsequence(const std::vector<std::string>& sub, const std::vector<std::string>& all) {
  size_t j = 0;
  for (const auto& s : sub) {
    while (j < all.size() && all[j] != s) ++j;
    if (j == all.size()) return false;
    ++j;
  }
  return true;
}

std::string name_of(const std::string& record) { return record.substr(1, record.find('\n') - 1); }

}  // namespace

TEST(NormalizeSketch, NeverUnderCounts) {
  // Crowded on purpose (40 keys per block) so that collisions are everywhere.
  for (uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 rng(seed);
    CountMinSketch sketch(100);
    std::unordered_map<uint64_t, unsigned> truth;
    std::vector<uint64_t> keys(4000);
    for (auto& k : keys) k = mix64(rng());
    for (int i = 0; i < 60000; ++i) {
      // Skewed: low indices much more frequent, some keys pass 255.
      const uint64_t k = keys[std::min<size_t>(keys.size() - 1, static_cast<size_t>(std::pow(rng() % 4000, 2) / 4000))];
      sketch.add(k);
      ++truth[k];
    }
    size_t saturated = 0;
    for (const auto& [k, c] : truth) {
      ASSERT_GE(sketch.estimate(k), std::min(c, CountMinSketch::kMaxCount)) << "seed " << seed;
      saturated += c >= CountMinSketch::kMaxCount;
    }
    EXPECT_GT(saturated, 0u);
  }
}

TEST(NormalizeSketch, ExactWhenSparse) {
  CountMinSketch sketch(1 << 14);
  std::mt19937_64 rng(7);
  std::vector<uint64_t> keys(1000);
  for (auto& k : keys) k = mix64(rng());
  for (size_t i = 0; i < keys.size(); ++i)
    for (size_t j = 0; j <= i % 7; ++j) sketch.add(keys[i]);
  size_t exact = 0;
  for (size_t i = 0; i < keys.size(); ++i) exact += sketch.estimate(keys[i]) == i % 7 + 1;
  EXPECT_GE(exact, 995u);
}

TEST(NormalizeSketch, CollisionRateAndKeysMatchModel) {
  const uint64_t blocks = 20000;
  const uint64_t n = static_cast<uint64_t>(CountMinSketch::kKeysPerBlock * blocks);
  CountMinSketch sketch(blocks);
  std::mt19937_64 rng(11);
  for (uint64_t i = 0; i < n; ++i) sketch.add(mix64(rng()));
  const CountMinSketch::Fill f = sketch.fill();
  const double model = CountMinSketch::expected_collision_rate(n, blocks);
  EXPECT_NEAR(model, 0.0164, 0.001);
  EXPECT_NEAR(f.collision_rate, model, 0.1 * model);
  EXPECT_NEAR(f.keys, static_cast<double>(n), 0.02 * static_cast<double>(n));
  // The measured rate is what absent keys see.
  uint64_t hits = 0;
  const int probes = 200000;
  for (int i = 0; i < probes; ++i) hits += sketch.estimate(mix64(rng() ^ 0x5555)) > 0;
  EXPECT_NEAR(static_cast<double>(hits) / probes, f.collision_rate, 0.15 * f.collision_rate);
  EXPECT_EQ(CountMinSketch::blocks_for_keys(0), 1u);
  EXPECT_EQ(CountMinSketch::blocks_for_keys(600), 100u);
}

TEST(NormalizeSketch, CollisionRateIsTheShareOfAbsentKeysReadingNonZero) {
  // A key's block comes from the high bits of its hash, its 4 counters from
  // the low 16 bits: every possible absent key of a block is one of 2^16 low
  // patterns. The statistic must equal the share of them reading non-zero.
  for (const uint64_t blocks : {1u, 3u}) {
    for (const int adds : {1, 5, 40}) {
      CountMinSketch sketch(blocks);
      std::mt19937_64 rng(static_cast<uint64_t>(adds) * 31 + blocks);
      for (int i = 0; i < adds; ++i) sketch.add(mix64(rng()));
      uint64_t nonzero = 0;
      for (uint64_t b = 0; b < blocks; ++b) {
        // The middle of block b, low 16 bits cleared (far from its edges).
        const auto mid = static_cast<uint64_t>(((static_cast<u128>(2 * b + 1) << 64) / (2 * blocks)));
        for (uint64_t low = 0; low < (1u << 16); ++low) nonzero += sketch.estimate((mid & ~uint64_t{0xffff}) | low) > 0;
      }
      const double share = static_cast<double>(nonzero) / static_cast<double>(blocks << 16);
      EXPECT_NEAR(sketch.fill().collision_rate, share, 1e-12) << blocks << " blocks, " << adds << " keys";
    }
  }
}

TEST(NormalizeSketch, ModelRateMatchesSimulation) {
  // expected_collision_rate() against the mean measured rate of sketches
  // filled with n random keys, at several loads.
  for (const double load : {1.0, 6.0, 12.0}) {
    const uint64_t blocks = 4000;
    const auto n = static_cast<uint64_t>(load * blocks);
    std::mt19937_64 rng(static_cast<uint64_t>(load * 10));
    CountMinSketch sketch(blocks);
    for (uint64_t i = 0; i < n; ++i) sketch.add(mix64(rng()));
    const double model = CountMinSketch::expected_collision_rate(n, blocks);
    EXPECT_NEAR(sketch.fill().collision_rate, model, 0.08 * model) << load << " keys per block";
  }
  EXPECT_EQ(CountMinSketch::expected_collision_rate(0, 10), 0.0);
}

TEST(NormalizeMates, BaseName) {
  EXPECT_EQ(mate_base_name("read7/1"), "read7");
  EXPECT_EQ(mate_base_name("read7/2 extra"), "read7");
  EXPECT_EQ(mate_base_name("M01:1:2 1:N:0:ACGT"), "M01:1:2");
  EXPECT_EQ(mate_base_name("x\t2:N"), "x");
  EXPECT_EQ(mate_base_name("read/3"), "read/3");
  EXPECT_EQ(mate_base_name("/1"), "");
}

TEST(NormalizeFilter, KeepsEveryGenomePositionCovered) {
  TempDir dir;
  const Sim s = simulate(21, 30000, 100, 100, 0.005, false);
  write_file(dir.file("in.fq"), join(s.reads));
  ReadFilterOptions o;
  o.inputs = {dir.file("in.fq")};
  o.threads = 2;
  const Output out = run(o);
  const auto kept = records(out.out[0]);
  ASSERT_EQ(kept.size(), out.result.out.reads);
  EXPECT_LT(kept.size(), s.reads.size() / 2) << "normalization of 100x to 20x";
  // Every base the input covers (the genome ends may be left bare by chance)
  // is covered by a kept read.
  std::vector<int> cover(s.genome.size() + 1, 0), raw(s.genome.size() + 1, 0);
  for (const auto& rec : kept) {
    const std::string name = name_of(rec);
    const size_t pos = std::stoul(name.substr(name.find("pos=") + 4));
    ++cover[pos];
    --cover[pos + 100];
  }
  for (const auto& r : s.reads) {
    ++raw[r.pos];
    --raw[r.pos + 100];
  }
  int depth = 0, raw_depth = 0;
  size_t uncovered = 0, raw_uncovered = 0;
  for (size_t i = 0; i < s.genome.size(); ++i) {
    depth += cover[i];
    raw_depth += raw[i];
    raw_uncovered += raw_depth == 0;
    uncovered += depth == 0 && raw_depth > 0;
  }
  EXPECT_LT(raw_uncovered, 10u);
  EXPECT_EQ(uncovered, 0u);
  EXPECT_EQ(out.result.in.reads, s.reads.size());
  EXPECT_EQ(out.result.kept.reads + out.result.above_coverage.reads, s.reads.size());
}

TEST(NormalizeFilter, OrderedSubsequenceByteIdentical) {
  TempDir dir;
  const Sim s = simulate(22, 8000, 120, 60, 0.01, false);
  const std::string in = join(s.reads);
  write_file(dir.file("in.fq"), in);
  ReadFilterOptions o;
  o.inputs = {dir.file("in.fq")};
  o.target_coverage = 10;
  o.batch_bases = 5000;  // many chunks
  o.threads = 3;
  const Output out = run(o);
  const auto kept = records(out.out[0]), all = records(in);
  ASSERT_FALSE(kept.empty());
  ASSERT_LT(kept.size(), all.size());
  EXPECT_TRUE(is_subsequence(kept, all));
}

TEST(NormalizeFilter, DeterministicAcrossThreadsAndBatches) {
  TempDir dir;
  const Sim s = simulate(23, 10000, 100, 80, 0.01, true);
  write_file(dir.file("r1.fq"), join(s.reads));
  write_file(dir.file("r2.fq"), join(s.mates));
  ReadFilterOptions o;
  o.inputs = {dir.file("r1.fq"), dir.file("r2.fq")};
  o.paired_files = true;
  o.target_coverage = 15;
  o.threads = 1;
  const Output ref = run(o);
  ASSERT_FALSE(ref.out[0].empty());
  for (unsigned t : {2u, 4u}) {
    for (uint64_t batch : {uint64_t{1} << 20, uint64_t{3000}}) {
      o.threads = t;
      o.batch_bases = batch;
      const Output again = run(o);
      EXPECT_SAME(again.out[0], ref.out[0]) << t << " threads, batch " << batch;
      EXPECT_SAME(again.out[1], ref.out[1]) << t << " threads, batch " << batch;
    }
  }
}

TEST(NormalizeFilter, PairsNeverSplit) {
  TempDir dir;
  const Sim s = simulate(24, 10000, 100, 80, 0.01, true);
  write_file(dir.file("r1.fq"), join(s.reads));
  write_file(dir.file("r2.fq"), join(s.mates));
  std::string inter;
  for (size_t i = 0; i < s.reads.size(); ++i) inter += fastq(s.reads[i]) + fastq(s.mates[i]);
  write_file(dir.file("inter.fq"), inter);

  ReadFilterOptions o;
  o.inputs = {dir.file("r1.fq"), dir.file("r2.fq")};
  o.paired_files = true;
  o.threads = 2;
  o.batch_bases = 7000;
  const Output two = run(o);
  const auto k1 = records(two.out[0]), k2 = records(two.out[1]);
  ASSERT_EQ(k1.size(), k2.size());
  ASSERT_GT(k1.size(), 0u);
  ASSERT_LT(k1.size(), s.reads.size());
  for (size_t i = 0; i < k1.size(); ++i) ASSERT_EQ(mate_base_name(name_of(k1[i])), mate_base_name(name_of(k2[i])));
  EXPECT_EQ(two.result.fragments_out, k1.size());
  EXPECT_TRUE(is_subsequence(k1, records(join(s.reads))));
  EXPECT_TRUE(is_subsequence(k2, records(join(s.mates))));

  // Interleaved input makes the same decisions, written interleaved or split.
  ReadFilterOptions oi;
  oi.inputs = {dir.file("inter.fq")};
  oi.interleaved = true;
  oi.threads = 2;
  oi.batch_bases = 5001;  // odd batch ends: pairs must not be cut
  const Output one = run(oi);
  std::string expect;
  for (size_t i = 0; i < k1.size(); ++i) expect += k1[i] + k2[i];
  EXPECT_SAME(one.out[0], expect);
  oi.split_mates = true;
  const Output split = run(oi);
  EXPECT_SAME(split.out[0], two.out[0]);
  EXPECT_SAME(split.out[1], two.out[1]);
}

// The pair rule on pairs made to isolate each mate (an oracle apart from
// cli/filter_model.py): a pair stays while either mate is below the target
// coverage, and goes when either mate is weak or short, whichever mate it is.
TEST(NormalizeFilter, PairRuleEachMateDecides) {
  TempDir dir;
  std::mt19937_64 rng(33);
  const auto random_read = [&](size_t len) {
    Read r;
    r.seq.resize(len);
    for (auto& c : r.seq) c = "ACGT"[rng() % 4];
    r.qual.assign(len, 'I');
    return r;
  };
  const Read same1 = random_read(80), same2 = random_read(80);
  constexpr size_t kPairs = 30;
  constexpr unsigned kC = 5;
  enum Mate { repeated, fresh, tiny };
  // Runs filter on kPairs pairs whose mates are `same1`/`same2` (repeated),
  // a new random read each time (fresh) or shorter than k (tiny).
  const auto filter = [&](Mate m1, Mate m2, bool normalize, WeakMode weak) {
    std::string r1, r2;
    for (size_t i = 0; i < kPairs; ++i) {
      Read a = m1 == repeated ? same1 : random_read(m1 == fresh ? 80 : 10);
      Read b = m2 == repeated ? same2 : random_read(m2 == fresh ? 80 : 10);
      a.name = b.name = 'p';
      a.name += std::to_string(i) + "/1";
      b.name += std::to_string(i) + "/2";
      r1 += fastq(a);
      r2 += fastq(b);
    }
    write_file(dir.file("r1.fq"), r1);
    write_file(dir.file("r2.fq"), r2);
    ReadFilterOptions o;
    o.inputs = {dir.file("r1.fq"), dir.file("r2.fq")};
    o.paired_files = true;
    o.k = 21;
    o.target_coverage = kC;
    o.normalize = normalize;
    o.weak = weak;
    o.threads = 2;
    const Output out = run(o);
    EXPECT_EQ(records(out.out[0]).size(), out.result.fragments_out);
    EXPECT_EQ(records(out.out[1]).size(), out.result.fragments_out);
    return out.result;
  };
  // Normalization: a fresh mate is always below C, so its pair always stays.
  EXPECT_EQ(filter(repeated, fresh, true, WeakMode::none).fragments_out, kPairs) << "mate 2 below C";
  EXPECT_EQ(filter(fresh, repeated, true, WeakMode::none).fragments_out, kPairs) << "mate 1 below C";
  EXPECT_EQ(filter(repeated, repeated, true, WeakMode::none).fragments_out, kC) << "both reach C together";
  // Weak k-mers (seen once): the pair goes whichever mate holds them.
  EXPECT_EQ(filter(repeated, fresh, false, WeakMode::drop).fragments_out, 0u) << "mate 2 weak";
  EXPECT_EQ(filter(fresh, repeated, false, WeakMode::drop).fragments_out, 0u) << "mate 1 weak";
  EXPECT_EQ(filter(repeated, repeated, false, WeakMode::drop).fragments_out, kPairs) << "no weak mate";
  // A short mate drops its pair, even beside a mate below C.
  const ReadFilterResult short2 = filter(fresh, tiny, true, WeakMode::none);
  EXPECT_EQ(short2.fragments_out, 0u) << "mate 2 short";
  EXPECT_EQ(short2.short_reads.reads, 2 * kPairs);
  EXPECT_EQ(filter(tiny, fresh, true, WeakMode::none).fragments_out, 0u) << "mate 1 short";
}

TEST(NormalizeFilter, MateErrorsNameFileAndRecord) {
  TempDir dir;
  const Sim s = simulate(25, 5000, 100, 20, 0, true);
  std::vector<Read> bad = s.mates;
  bad[37].name = "other/2";
  write_file(dir.file("r1.fq"), join(s.reads));
  write_file(dir.file("bad.fq"), join(bad));
  std::vector<Read> shorter(s.mates.begin(), s.mates.end() - 3);
  write_file(dir.file("short.fq"), join(shorter));
  ReadFilterOptions o;
  o.paired_files = true;
  o.batch_bases = 2000;
  auto message = [&](std::vector<std::string> in) {
    o.inputs = std::move(in);
    try {
      run(o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string m1 = message({dir.file("r1.fq"), dir.file("bad.fq")});
  EXPECT_NE(m1.find("bad.fq: record 38 (line 149): mate name 'other/2'"), std::string::npos) << m1;
  EXPECT_NE(m1.find("other/2"), std::string::npos) << m1;
  const std::string m2 = message({dir.file("r1.fq"), dir.file("short.fq")});
  EXPECT_NE(m2.find("record " + std::to_string(s.reads.size() - 2)), std::string::npos) << m2;
  EXPECT_NE(m2.find("short.fq"), std::string::npos) << m2;
  const std::string m3 = message({dir.file("short.fq"), dir.file("r1.fq")});
  EXPECT_NE(m3.find("more records"), std::string::npos) << m3;

  // Interleaved: an odd record count, and mates out of step.
  std::string odd;
  for (size_t i = 0; i < 10; ++i) odd += fastq(s.reads[i]) + fastq(s.mates[i]);
  write_file(dir.file("odd.fq"), odd + fastq(s.reads[10]));
  write_file(dir.file("step.fq"), fastq(s.reads[0]) + fastq(s.reads[1]));
  o.paired_files = false;
  o.interleaved = true;
  EXPECT_NE(message({dir.file("odd.fq")}).find("odd.fq: record 21 (line 81)"), std::string::npos);
  EXPECT_NE(message({dir.file("step.fq")}).find("step.fq: record 2 (line 5): mate name"), std::string::npos);
}

TEST(NormalizeFilter, TrimAndDropWeakMatchOracle) {
  TempDir dir;
  const unsigned k = 21;
  Sim s = simulate(26, 4000, 90, 15, 0.01, false);
  s.reads[5].seq.resize(15);  // shorter than k
  s.reads[5].qual.resize(15);
  write_file(dir.file("in.fq"), join(s.reads));
  std::unordered_map<std::string, int> count;
  for (const auto& r : s.reads)
    for (size_t i = 0; i + k <= r.seq.size(); ++i) {
      const std::string km = r.seq.substr(i, k);
      ++count[std::min(km, revcomp(km))];
    }
  auto weak = [&](const std::string& km) { return count[std::min(km, revcomp(km))] < 3; };
  std::string want_trim, want_drop;
  for (const auto& r : s.reads) {
    if (r.seq.size() < k) continue;
    size_t j = 0;
    while (j + k <= r.seq.size() && !weak(r.seq.substr(j, k))) ++j;
    if (j + k > r.seq.size()) {
      want_trim += fastq(r);
      want_drop += fastq(r);
    } else if (j > 0) {
      Read t = r;
      t.seq.resize(j + k - 1);
      t.qual.resize(j + k - 1);
      want_trim += fastq(t);
    }
  }
  ReadFilterOptions o;
  o.inputs = {dir.file("in.fq")};
  o.k = k;
  o.normalize = false;
  o.min_count = 3;
  o.threads = 2;
  o.weak = WeakMode::trim;
  const Output trim = run(o);
  EXPECT_SAME(trim.out[0], want_trim);
  EXPECT_EQ(trim.result.short_reads.reads, 1u);
  EXPECT_GT(trim.result.trimmed_reads, 0u);
  o.weak = WeakMode::drop;
  const Output drop = run(o);
  EXPECT_SAME(drop.out[0], want_drop);

  // The same from a solid k-mer file (TSV), any orientation, and FASTA form.
  std::string tsv, fa;
  for (const auto& [km, c] : count) {
    tsv += revcomp(km) + "\t" + std::to_string(c) + "\n";
    fa += ">" + std::to_string(c) + "\n" + km + "\n";
  }
  write_file(dir.file("solid.tsv"), tsv);
  write_file(dir.file("solid.fa"), fa);
  o.solid_path = dir.file("solid.tsv");
  EXPECT_SAME(run(o).out[0], want_drop);
  o.solid_path = dir.file("solid.fa");
  o.weak = WeakMode::trim;
  EXPECT_SAME(run(o).out[0], want_trim);
  write_file(dir.file("bad.tsv"), "ACGT\t3\n");
  o.solid_path = dir.file("bad.tsv");
  EXPECT_THROW(run(o), InputError);
}

TEST(NormalizeFilter, FastaStaysFastaAndShortReadsGo) {
  TempDir dir;
  const Sim s = simulate(27, 5000, 100, 60, 0.0, false);
  std::string fa;
  for (const auto& r : s.reads) fa += ">" + r.name + "\n" + r.seq + "\n";
  fa += ">tiny\nACGTACGT\n>nnn\n" + std::string(50, 'N') + "\n";
  write_file(dir.file("in.fa"), fa);
  ReadFilterOptions o;
  o.inputs = {dir.file("in.fa")};
  o.target_coverage = 5;
  const Output out = run(o);
  EXPECT_EQ(out.result.format, SeqFormat::fasta);
  EXPECT_EQ(out.result.short_reads.reads, 2u);
  EXPECT_EQ(out.out[0].find("tiny"), std::string::npos);
  EXPECT_EQ(out.out[0].substr(0, s.reads[0].name.size() + 1), ">" + s.reads[0].name);
  EXPECT_EQ(out.out[0].find('+'), std::string::npos);
  // Mixing FASTA and FASTQ inputs is refused.
  write_file(dir.file("in.fq"), join(s.reads));
  o.inputs = {dir.file("in.fa"), dir.file("in.fq")};
  EXPECT_THROW(run(o), InputError);
}

TEST(NormalizeFilter, OptionsValidate) {
  ReadFilterOptions o;
  EXPECT_THROW(o.validate(), std::invalid_argument);  // no inputs
  o.inputs = {"x.fq"};
  o.target_coverage = 256;
  EXPECT_THROW(o.validate(), std::invalid_argument);
  o.target_coverage = 20;
  o.normalize = false;
  EXPECT_THROW(o.validate(), std::invalid_argument);  // nothing to do
  o.weak = WeakMode::drop;
  o.inputs = {"-"};
  EXPECT_THROW(o.validate(), std::invalid_argument);  // two passes over stdin
  o.solid_path = "s.tsv";
  EXPECT_NO_THROW(o.validate());
  o.paired_files = true;
  EXPECT_THROW(o.validate(), std::invalid_argument);  // one input
}

TEST(NormalizeFilter, LongKmersThreads) {
  // k > 31 takes the 128-bit k-mer path, with normalization and trimming.
  TempDir dir;
  const Sim s = simulate(28, 6000, 120, 50, 0.005, false);
  const std::string in = join(s.reads);
  write_file(dir.file("in.fq"), in);
  ReadFilterOptions o;
  o.inputs = {dir.file("in.fq")};
  o.k = 45;
  o.target_coverage = 10;
  o.weak = WeakMode::trim;
  o.threads = 1;
  const Output one = run(o);
  o.threads = 3;
  o.batch_bases = 4000;
  const Output three = run(o);
  EXPECT_SAME(one.out[0], three.out[0]);
  EXPECT_GT(one.result.above_coverage.reads, 0u);
  EXPECT_GT(one.result.trimmed_reads, 0u);
  EXPECT_EQ(one.result.kept.reads + one.result.above_coverage.reads + one.result.weak.reads +
                one.result.short_reads.reads,
            s.reads.size());
}
