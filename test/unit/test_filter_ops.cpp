// Filter files of k-mers (build, query, merge) and merging of count tables,
// checked against naive string-set oracles on seeded generated reads.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "formats/output.hpp"
#include "seqio/reader.hpp"
#include "count/merge_counts.hpp"
#include "kbf/kbf.hpp"
#include "kmer/hash.hpp"
#include "kmer/kmer.hpp"
#include "strings.hpp"

namespace kmerbloom {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "kb-filter-ops.XXXXXX").string();
    if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
    path_ = t;
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string random_dna(std::mt19937_64& rng, size_t n) {
  std::string s(n, 'A');
  for (char& c : s) c = "ACGT"[rng() & 3];
  return s;
}

std::string revcomp(const std::string& s) {
  std::string rc(s.rbegin(), s.rend());
  for (char& c : rc) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return rc;
}

// Reads sampled from a genome, both strands, a few with an N.
std::vector<std::string> sample_reads(std::mt19937_64& rng, const std::string& genome, size_t n, size_t len) {
  std::vector<std::string> reads;
  for (size_t i = 0; i < n; ++i) {
    std::string r = genome.substr(rng() % (genome.size() - len), len);
    if (rng() & 1) r = revcomp(r);
    if (rng() % 10 == 0) r[rng() % len] = 'N';
    reads.push_back(r);
  }
  return reads;
}

void write_fasta(const std::string& path, const std::vector<std::string>& reads, size_t first, size_t last) {
  std::ofstream out(path);
  for (size_t i = first; i < last; ++i) out << ">r" << i << " comment\n" << reads[i] << '\n';
}

std::string canonical(const std::string& s) { return std::min(s, revcomp(s)); }

// Canonical k-mers of a read as strings, skipping windows with a non-ACGT base.
std::vector<std::string> kmers_of(const std::string& read, unsigned k) {
  std::vector<std::string> out;
  for (size_t i = 0; i + k <= read.size(); ++i) {
    const std::string w = read.substr(i, k);
    if (w.find_first_not_of("ACGT") == std::string::npos) out.push_back(canonical(w));
  }
  return out;
}

bool holds(const LoadedFilter& f, const std::string& kmer) {
  return f.filter.contains(hash_kmer(encode_kmer<uint64_t>(kmer), f.meta.seed));
}

std::vector<unsigned char> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

bool same_bits(const LoadedFilter& a, const LoadedFilter& b) {
  if (a.filter.layers() != b.filter.layers()) return false;
  for (size_t i = 0; i < a.filter.layers(); ++i) {
    const auto wa = a.filter.layer(i).words(), wb = b.filter.layer(i).words();
    if (!std::equal(wa.begin(), wa.end(), wb.begin(), wb.end())) return false;
  }
  return true;
}

struct Fixture : ::testing::Test {
  TempDir dir;
  std::mt19937_64 rng{20240607};
  std::string genome = random_dna(rng, 20000);
  std::vector<std::string> reads = sample_reads(rng, genome, 900, 100);
  BuildOptions opts(std::vector<std::string> inputs, uint64_t expected) {
    BuildOptions o;
    o.inputs = std::move(inputs);
    o.k = 21;
    o.expected = expected;
    o.threads = 2;
    o.batch_bases = 3000;  // many batches
    return o;
  }
};

using FilterOpsBuild = Fixture;

TEST_F(FilterOpsBuild, ChunkedUnionEqualsWholeBuildBitForBit) {
  write_fasta(dir.file("all.fa"), reads, 0, reads.size());
  std::vector<std::string> chunks;
  for (size_t c = 0; c < 3; ++c) {
    chunks.push_back(dir.file("chunk" + std::to_string(c) + ".fa"));
    write_fasta(chunks.back(), reads, c * 300, (c + 1) * 300);
  }
  const BuildResult whole = build_filter(opts({dir.file("all.fa")}, 50000));
  FilterCombiner u(SetOp::union_of);
  for (size_t c = 0; c < 3; ++c) {
    BuildOptions o = opts({chunks[c]}, 50000);
    o.threads = static_cast<unsigned>(c + 1);
    u.add(build_filter(o).filter, chunks[c]);
  }
  const LoadedFilter merged = u.result();
  EXPECT_TRUE(same_bits(whole.filter, merged));
  write_filter(dir.file("whole.kbf"), whole.filter);
  write_filter(dir.file("merged.kbf"), merged);
  EXPECT_SAME(bytes_of(dir.file("whole.kbf")), bytes_of(dir.file("merged.kbf"))) << "files differ";
}

TEST_F(FilterOpsBuild, SameBitsWhateverTheThreadsAndNoFalseNegatives) {
  write_fasta(dir.file("all.fa"), reads, 0, reads.size());
  BuildOptions o = opts({dir.file("all.fa")}, 0);
  o.threads = 1;
  const BuildResult one = build_filter(o);
  o.threads = 3;
  const BuildResult three = build_filter(o);
  EXPECT_TRUE(same_bits(one.filter, three.filter));
  EXPECT_EQ(one.stats.sizing, BuildSizing::estimated);
  std::set<std::string> truth;
  for (const auto& r : reads)
    for (const auto& km : kmers_of(r, 21)) truth.insert(km);
  EXPECT_EQ(one.stats.capacity, truth.size()) << "small inputs are sized from an exact count";
  for (const auto& km : truth) ASSERT_TRUE(holds(one.filter, km)) << km;
  // False positives on absent k-mers near the 1% target.
  std::mt19937_64 other(7);
  int fp = 0, n = 20000;
  for (int i = 0; i < n; ++i) {
    const std::string km = canonical(random_dna(other, 21));
    if (!truth.count(km)) fp += holds(one.filter, km);
  }
  EXPECT_LT(fp, n * 0.02);
  EXPECT_EQ(one.filter.meta.k, 21u);
  EXPECT_EQ(one.filter.meta.hash_name, kKmerHashName);
  EXPECT_FALSE(one.stats.over_capacity);
}

TEST_F(FilterOpsBuild, SolidOnlyWithMinCount) {
  write_fasta(dir.file("all.fa"), reads, 0, reads.size());
  BuildOptions o = opts({dir.file("all.fa")}, 0);
  o.min_count = 2;
  const BuildResult r = build_filter(o);
  std::map<std::string, int> counts;
  for (const auto& rd : reads)
    for (const auto& km : kmers_of(rd, 21)) ++counts[km];
  size_t solid = 0, single_hits = 0, singles = 0;
  for (const auto& [km, c] : counts) {
    if (c >= 2) {
      ++solid;
      ASSERT_TRUE(holds(r.filter, km)) << km;
    } else {
      ++singles;
      single_hits += holds(r.filter, km);
    }
  }
  EXPECT_EQ(r.stats.sizing, BuildSizing::counted);
  EXPECT_EQ(r.stats.keys_inserted, solid);
  EXPECT_EQ(r.filter.meta.min_count, 2u);
  EXPECT_LT(single_hits, singles / 20 + 5) << "k-mers seen once stay out (up to false positives)";
}

TEST_F(FilterOpsBuild, TooSmallExpectedIsFlagged) {
  write_fasta(dir.file("all.fa"), reads, 0, reads.size());
  const BuildResult r = build_filter(opts({dir.file("all.fa")}, 1000));
  EXPECT_TRUE(r.stats.over_capacity);
  EXPECT_GT(r.stats.estimated_fpr, 0.1);
  EXPECT_THROW(build_filter(opts({}, 10)), std::invalid_argument);
}

using FilterOpsQuery = Fixture;

TEST_F(FilterOpsQuery, FractionsAgainstANaiveSetInInputOrder) {
  // Filter of the first half of the genome; reads from all of it.
  const std::string half = genome.substr(0, 10000);
  std::vector<std::string> ref_reads = sample_reads(rng, half, 600, 100);
  write_fasta(dir.file("ref.fa"), ref_reads, 0, ref_reads.size());
  const BuildResult b = build_filter(opts({dir.file("ref.fa")}, 20000));
  std::set<std::string> truth;
  for (const auto& r : ref_reads)
    for (const auto& km : kmers_of(r, 21)) truth.insert(km);
  write_fasta(dir.file("q.fa"), reads, 0, reads.size());
  QueryOptions q;
  q.inputs = {dir.file("q.fa")};
  q.threads = 3;
  q.batch_bases = 500;
  q.threshold = 0.8;
  std::vector<ReadHits> got;
  std::vector<std::string> names;
  const QuerySummary s = query_reads(b.filter, q, [&](const ReadHits& r) {
    got.push_back(r);
    names.emplace_back(r.name);
  });
  ASSERT_EQ(got.size(), reads.size());
  uint64_t extra = 0, absent = 0, hits = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    EXPECT_EQ(names[i], "r" + std::to_string(i)) << "input order, name up to the first space";
    const auto kms = kmers_of(reads[i], 21);
    uint64_t naive = 0;
    for (const auto& km : kms) naive += truth.count(km);
    EXPECT_EQ(got[i].kmers, kms.size());
    ASSERT_GE(got[i].present, naive) << "no false negatives";
    extra += got[i].present - naive;
    absent += kms.size() - naive;
    hits += !kms.empty() && got[i].fraction() >= 0.8;
  }
  EXPECT_LT(extra, absent / 50 + 5) << "false positives near the 1% target";
  EXPECT_GT(absent, 10000u);
  EXPECT_EQ(s.reads, reads.size());
  EXPECT_EQ(s.reads_hit, hits);
  EXPECT_GT(s.reads_hit, 300u);
  EXPECT_LT(s.reads_hit, 600u);
}

TEST_F(FilterOpsQuery, KmerListAndKCheck) {
  write_fasta(dir.file("all.fa"), reads, 0, 100);
  const BuildResult b = build_filter(opts({dir.file("all.fa")}, 20000));
  const std::string present = reads[3].substr(10, 21);
  const std::string rc = revcomp(present);
  {
    std::ofstream l(dir.file("list.tsv"));
    l << present << "\t7\n" << rc << "\n\n>3\n" << std::string(21, 'A') << "\n";
  }
  std::vector<std::pair<std::string, bool>> got;
  const QuerySummary s = query_kmer_list(b.filter, dir.file("list.tsv"), 0.5, [&](std::string_view km, bool p) {
    got.emplace_back(std::string(km), p);
  });
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], std::make_pair(present, true));
  EXPECT_EQ(got[1], std::make_pair(rc, true)) << "canonical filter: either strand";
  EXPECT_EQ(s.kmers, 3u);
  {
    std::ofstream l(dir.file("bad.tsv"));
    l << present << "\n" << present.substr(1) << "\n";
  }
  try {
    query_kmer_list(b.filter, dir.file("bad.tsv"), 0.5, [](std::string_view, bool) {});
    FAIL() << "a 20-mer in a 21-mer query";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_query_k(b.filter.meta, 0));
  EXPECT_NO_THROW(check_query_k(b.filter.meta, 21));
  EXPECT_THROW(check_query_k(b.filter.meta, 31), FilterMismatch);
}

using FilterOpsMerge = Fixture;

TEST_F(FilterOpsMerge, IntersectionKeepsCommonKmers) {
  write_fasta(dir.file("a.fa"), reads, 0, 500);
  write_fasta(dir.file("b.fa"), reads, 400, 900);
  const BuildResult a = build_filter(opts({dir.file("a.fa")}, 30000));
  const BuildResult b = build_filter(opts({dir.file("b.fa")}, 30000));
  FilterCombiner c(SetOp::intersection);
  c.add(a.filter, "a");
  c.add(b.filter, "b");
  const LoadedFilter both = c.result();
  std::set<std::string> in_a, in_b;
  for (size_t i = 0; i < 500; ++i)
    for (const auto& km : kmers_of(reads[i], 21)) in_a.insert(km);
  for (size_t i = 400; i < 900; ++i)
    for (const auto& km : kmers_of(reads[i], 21)) in_b.insert(km);
  size_t only_a = 0, leaked = 0;
  for (const auto& km : in_a) {
    if (in_b.count(km)) {
      ASSERT_TRUE(holds(both, km));
    } else {
      ++only_a;
      leaked += holds(both, km);
    }
  }
  EXPECT_GT(only_a, 1000u);
  EXPECT_LT(leaked, only_a / 4) << "most k-mers of one input only drop out";
  const auto wa = a.filter.filter.layer(0).words(), wb = b.filter.filter.layer(0).words();
  const auto w = both.filter.layer(0).words();
  for (size_t i = 0; i < w.size(); ++i) ASSERT_EQ(w[i], wa[i] & wb[i]);
}

TEST_F(FilterOpsMerge, ShapeErrorsNameTheParameter) {
  write_fasta(dir.file("a.fa"), reads, 0, 100);
  const auto built = [&](auto&& tweak) {
    BuildOptions o = opts({dir.file("a.fa")}, 20000);
    tweak(o);
    return build_filter(o).filter;
  };
  const LoadedFilter base = built([](BuildOptions&) {});
  const auto error_of = [&](const LoadedFilter& other) -> std::string {
    try {
      check_same_shape(base, "a.kbf", other, "b.kbf");
    } catch (const FilterMismatch& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of(built([](BuildOptions& o) { o.k = 25; })).find("k differs: 21 in a.kbf, 25 in b.kbf"),
            std::string::npos);
  EXPECT_NE(error_of(built([](BuildOptions& o) { o.canonical = false; })).find("canonical differs"), std::string::npos);
  EXPECT_NE(error_of(built([](BuildOptions& o) { o.expected = 40000; })).find("layer 0 blocks differs"),
            std::string::npos);
  EXPECT_NE(error_of(built([](BuildOptions& o) { o.seed = 3; })).find("seed differs"), std::string::npos);
  EXPECT_NE(error_of(built([](BuildOptions& o) { o.fpr = 0.001; })).find("layer 0"), std::string::npos);
  EXPECT_EQ(error_of(built([](BuildOptions& o) { o.threads = 1; })), "");
  FilterCombiner c(SetOp::union_of);
  EXPECT_THROW(c.result(), std::logic_error);
  c.add(base, "a.kbf");
  EXPECT_THROW(c.add(built([](BuildOptions& o) { o.k = 25; }), "b.kbf"), FilterMismatch);
}

// Chains of several layers (as build makes from a stream): union keeps every
// key, intersection is refused.
TEST_F(FilterOpsMerge, MultiLayerChainsUniteButDoNotIntersect) {
  const auto chain = [](uint64_t first, uint64_t n) {
    ScalableBloomParams p;
    p.initial_capacity = 1000;
    ScalableBloom b(p);
    for (uint64_t i = first; i < first + n; ++i) b.insert(hash_kmer(i));
    return LoadedFilter{{21, true, kKmerHashName, 0, 1, ""}, std::move(b)};
  };
  const LoadedFilter a = chain(0, 5000), b = chain(3000, 5000);
  ASSERT_EQ(a.filter.layers(), b.filter.layers());
  ASSERT_GT(a.filter.layers(), 1u);
  FilterCombiner u(SetOp::union_of);
  u.add(a, "a");
  u.add(b, "b");
  const LoadedFilter all = u.result();
  for (uint64_t i = 0; i < 8000; ++i) ASSERT_TRUE(all.filter.contains(hash_kmer(i))) << i;
  FilterCombiner x(SetOp::intersection);
  EXPECT_THROW(x.add(a, "a"), FilterMismatch);
}

TEST_F(FilterOpsMerge, OpenFilterRefusesDamage) {
  write_fasta(dir.file("a.fa"), reads, 0, 100);
  write_filter(dir.file("a.kbf"), build_filter(opts({dir.file("a.fa")}, 20000)).filter);
  EXPECT_EQ(open_filter(dir.file("a.kbf")).meta.k, 21u);
  auto bytes = bytes_of(dir.file("a.kbf"));
  bytes[bytes.size() / 2] ^= 0x10;
  std::ofstream(dir.file("bad.kbf"), std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                              static_cast<std::streamsize>(bytes.size()));
  EXPECT_THROW(open_filter(dir.file("bad.kbf")), InputError);
  EXPECT_THROW(open_filter(dir.file("a.fa")), InputError);
  EXPECT_THROW(open_filter(dir.file("missing.kbf")), InputError);
  EXPECT_THROW(write_filter(dir.file("no/such/dir/x.kbf"), open_filter(dir.file("a.kbf"))), OutputError);
}

using FilterOpsMergeCounts = Fixture;

TEST_F(FilterOpsMergeCounts, PartitionsAndOverlapsSum) {
  std::map<std::string, uint64_t> truth;
  for (const auto& r : reads)
    for (const auto& km : kmers_of(r, 21)) ++truth[km];
  // Four disjoint partitions by partition_of (as count --partition), one gzipped.
  constexpr uint32_t kParts = 4;
  std::vector<std::string> parts;
  for (uint32_t p = 0; p < kParts; ++p)
    parts.push_back(dir.file("part" + std::to_string(p) + (p == 2 ? ".tsv.gz" : ".tsv")));
  {
    std::vector<std::string> text(kParts);
    for (const auto& [km, c] : truth)
      text[partition_of(hash_kmer(encode_kmer<uint64_t>(km)), kParts)] += km + "\t" + std::to_string(c) + "\n";
    for (uint32_t p = 0; p < kParts; ++p) {
      if (p == 2) {
        gzFile gz = gzopen(parts[p].c_str(), "wb");
        gzwrite(gz, text[p].data(), static_cast<unsigned>(text[p].size()));
        gzclose(gz);
      } else {
        std::ofstream(parts[p]) << text[p];
      }
    }
  }
  std::map<std::string, uint64_t> got;
  std::string last;
  const MergeCountsResult r = merge_count_files(parts, 1, [&](std::string_view km, uint64_t c) {
    EXPECT_LT(last, std::string(km)) << "sorted output";
    last = km;
    got[std::string(km)] = c;
  });
  EXPECT_SAME(got, truth);
  EXPECT_EQ(r.k, 21u);
  EXPECT_EQ(r.kmers_out, truth.size());
  // Overlapping inputs: counts of the same k-mer add up; --min-count applies to the sum.
  std::ofstream(dir.file("x.tsv")) << "AAA\t1\nCCC\t2\nGGG\t1\n";
  std::ofstream(dir.file("y.tsv")) << "AAA\t2\nGGG\t1\nTTT\t1\n";
  std::vector<std::string> out;
  merge_count_files({dir.file("x.tsv"), dir.file("y.tsv")}, 2,
                    [&](std::string_view km, uint64_t c) { out.push_back(std::string(km) + "=" + std::to_string(c)); });
  EXPECT_EQ(out, (std::vector<std::string>{"AAA=3", "CCC=2", "GGG=2"}));
}

TEST_F(FilterOpsMergeCounts, BadInputsNameFileAndLine) {
  const auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(dir.file("ok.tsv")) << "AAA\t1\n";
    std::ofstream(dir.file("bad.tsv")) << text;
    try {
      merge_count_files({dir.file("ok.tsv"), dir.file("bad.tsv")}, 1, [](std::string_view, uint64_t) {});
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of("CCC\t1\nAAA\t1\n").find("bad.tsv: line 2: k-mers out of order"), std::string::npos);
  EXPECT_NE(error_of("CCCC\t1\n").find("line 1: k-mer of 4 bases"), std::string::npos);
  EXPECT_NE(error_of("CCC\tx\n").find("not an unsigned integer"), std::string::npos);
  EXPECT_NE(error_of(">3\nCCC\n").find("FASTA"), std::string::npos);
  EXPECT_NE(error_of("CCC\n").find("expected KMER<TAB>COUNT"), std::string::npos);
  EXPECT_EQ(error_of("CCC\t1\r\n"), "") << "CRLF accepted";
}

TEST_F(FilterOpsMergeCounts, HistogramsAddRowByRow) {
  std::ofstream(dir.file("a.histo")) << "1 10\n2 5\n3 0\n";
  std::ofstream(dir.file("b.histo")) << "1\t1\n2 2\n3 7\n";
  const auto rows = sum_histograms({dir.file("a.histo"), dir.file("b.histo")});
  EXPECT_EQ(rows, (std::vector<std::pair<uint64_t, uint64_t>>{{1, 11}, {2, 7}, {3, 7}}));
  std::ofstream(dir.file("c.histo")) << "1 1\n2 2\n";
  EXPECT_THROW(sum_histograms({dir.file("a.histo"), dir.file("c.histo")}), InputError);
  std::ofstream(dir.file("d.histo")) << "1 1\n3 2\n4 1\n";
  EXPECT_THROW(sum_histograms({dir.file("a.histo"), dir.file("d.histo")}), InputError);
}

}  // namespace
}  // namespace kmerbloom
