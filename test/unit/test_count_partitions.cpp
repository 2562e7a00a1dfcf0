// The partitioned counter end to end: the same bytes for any thread count,
// a spill to temporary files gives the in-memory run's output, a full
// temporary directory is an error, a skewed partition still counts exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include <filesystem>
#include <fstream>
#include <limits>
#include <bit>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <cmath>
#include <string>
#include <vector>

#include "count/plan.hpp"
#include "count/spool.hpp"
#include "count/bins.hpp"
#include "count/counter.hpp"
#include "count/partition_count.hpp"
#include "count/tuning.hpp"
#include "formats/count_file.hpp"
#include "strings.hpp"

using namespace kmerbloom;
namespace fs = std::filesystem;

namespace {

// Reads of a random genome at ~20x with 1% substitutions.
std::vector<std::string> genome_reads(uint64_t seed, size_t genome_len, size_t n, size_t len) {
  std::mt19937_64 rng(seed);
  std::string genome(genome_len, 'A');
  for (auto& c : genome) c = "ACGT"[rng() % 4];
  std::vector<std::string> reads;
  for (size_t i = 0; i < n; ++i) {
    std::string r = genome.substr(rng() % (genome_len - len), len);
    if (rng() % 2) r = kbtest::revcomp(r);
    for (auto& c : r)
      if (rng() % 100 == 0) c = "ACGT"[rng() % 4];
    reads.push_back(std::move(r));
  }
  return reads;
}

fs::path write_fasta(const std::vector<std::string>& reads, const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / name;
  std::ofstream out(p);
  for (size_t i = 0; i < reads.size(); ++i) out << ">r" << i << "\n" << reads[i] << "\n";
  return p;
}

std::map<std::string, uint64_t> naive(const std::vector<std::string>& reads, unsigned k) {
  std::map<std::string, uint64_t> m;
  for (const auto& r : reads)
    for (size_t i = 0; i + k <= r.size(); ++i) {
      const std::string km = r.substr(i, k);
      ++m[std::min(km, kbtest::revcomp(km))];
    }
  return m;
}

// What an exact count of min_count 2 and histo_max 100 writes for `truth`:
// the TSV and the histogram (rows 1..100, the overflow row 101).
std::pair<std::string, std::vector<uint64_t>> expected_output(const std::map<std::string, uint64_t>& truth) {
  std::string want;
  std::vector<uint64_t> hist(102, 0);
  for (const auto& [km, c] : truth) {
    ++hist[std::min<uint64_t>(c, 101)];
    if (c >= 2) want += km + '\t' + std::to_string(c) + '\n';
  }
  return {want, hist};
}

struct Counted {
  std::string text;  // the sink's output, as the CLI's TSV
  CountResult result;
};

Counted run(CountOptions o) {
  Counted r;
  r.result = count_kmers(o, [&](std::string_view km, uint64_t c) {
    r.text.append(km);
    r.text += '\t' + std::to_string(c) + '\n';
  });
  return r;
}

fs::path empty_dir(const std::string& name) {
  const fs::path d = fs::path(::testing::TempDir()) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A budget that leaves 1 MB of spool memory.
uint64_t budget_with_1mb_spool(CountOptions o) {
  o.max_memory = 0;
  const CountPlan p = plan_count(o, estimate_count(o));
  return p.read_buffers + p.write_buffers + p.working_bytes + p.merge_buffers + (1u << 20);
}

CountOptions options(const fs::path& input, unsigned k, unsigned threads) {
  CountOptions o;
  o.inputs = {input.string()};
  o.k = k;
  o.threads = threads;
  o.histo_max = 100;
  o.batch_bases = 5000;  // many batches, so that threads interleave
  return o;
}

// The distinct-record index compares and hashes a record's packed bytes a
// word at a time, the last word overlapping the one before: at every length
// from 1 to 80 bytes, records that differ in one bit of any byte are told
// apart, by the comparison and by the tag, and equal ones are equal with
// equal tags. The buffers end where the records do (AddressSanitizer sees
// a read past them).
TEST(DistinctRecords, ComparisonAndTagSeeEveryByteAndNoMore) {
  std::mt19937_64 rng(5);
  for (unsigned bytes = 1; bytes <= 80; ++bytes) {
    std::vector<uint8_t> a(bytes);
    for (auto& x : a) x = static_cast<uint8_t>(rng());
    std::vector<uint8_t> b = a;
    const unsigned len = 4 * bytes;
    ASSERT_TRUE(detail::same_packed(a.data(), b.data(), bytes)) << bytes << " bytes";
    ASSERT_EQ(detail::record_tag(a.data(), len), detail::record_tag(b.data(), len)) << bytes << " bytes";
    for (unsigned at = 0; at < bytes; ++at) {
      b[at] = static_cast<uint8_t>(b[at] ^ (1u << (rng() % 8)));
      EXPECT_FALSE(detail::same_packed(a.data(), b.data(), bytes)) << bytes << " bytes, differing at " << at;
      EXPECT_NE(detail::record_tag(a.data(), len), detail::record_tag(b.data(), len)) << bytes << " bytes, at " << at;
      b[at] = a[at];
    }
  }
}

}  // namespace

TEST(CountPartitions, SameBytesForAnyThreadCount) {
  const auto reads = genome_reads(1, 20000, 3000, 120);
  const fs::path in = write_fasta(reads, "partitions_threads.fa");
  for (unsigned k : {21u, 31u, 45u}) {
    CountOptions o = options(in, k, 1);
    const Counted one = run(o);
    for (unsigned t = 2; t <= 4; ++t) {
      o.threads = t;
      const Counted many = run(o);
      EXPECT_SAME(many.text, one.text) << "k=" << k << " threads=" << t;
      EXPECT_SAME(many.result.histogram, one.result.histogram);
      EXPECT_DOUBLE_EQ(many.result.bloom.estimated_fpr, one.result.bloom.estimated_fpr);
    }
  }
}

// The packed sink gets what the text sink gets, in chunks, after one call
// of start with a bound that every count respects: the largest count, or
// max_count when that is smaller.
TEST(CountPartitions, PackedSinkGetsTheSameKmersAfterItsBound) {
  const auto reads = genome_reads(3, 20000, 3000, 120);
  const fs::path in = write_fasta(reads, "partitions_packed.fa");
  const auto truth = naive(reads, 31);
  uint64_t largest = 0;
  for (const auto& [km, c] : truth) largest = std::max(largest, c);
  for (const uint32_t max_count : {std::numeric_limits<uint32_t>::max(), uint32_t{20}}) {
    for (const unsigned k : {31u, 45u}) {
      CountOptions o = options(in, k, 2);
      o.max_count = max_count;
      const Counted letters = run(o);
      std::string text;
      std::vector<uint64_t> starts;
      uint64_t above = 0;
      size_t chunks = 0;
      PackedKmerSink sink;
      sink.start = [&](uint64_t bound) { starts.push_back(bound); };
      sink.add = [&](const PackedKmers& chunk) {
        EXPECT_EQ(chunk.k, k);
        EXPECT_EQ(starts.size(), 1u) << "start comes first";
        ++chunks;
        std::string km(k, 'N');
        for (size_t i = 0; i < chunk.n; ++i) {
          decode_packed_kmer(chunk.packed + i * ((k + 3) / 4), k, km.data());
          text += km + '\t' + std::to_string(chunk.counts[i]) + '\n';
          above += !starts.empty() && chunk.counts[i] > starts.front();
        }
      };
      const CountResult r = count_kmers(o, sink);
      EXPECT_SAME(text, letters.text) << "k=" << k;
      EXPECT_EQ(r.solid, letters.result.solid);
      ASSERT_EQ(starts.size(), 1u);
      EXPECT_EQ(above, 0u);
      if (k == 31) {
        EXPECT_EQ(starts.front(), std::min<uint64_t>(largest, max_count));
      }
      EXPECT_GE(chunks, 1u);
    }
  }
}

// The merge splits the k-mers into ranges by their first min(k, 5) bases
// (4 to 1,024 ranges) merged by several threads at once and written in
// order: every k, thread count and spool (runs in memory or read back from
// the temporary file in pieces) gives the naive count.
TEST(CountPartitions, MergedRangesGiveTheNaiveCountForAnyKAndThreads) {
  const auto reads = genome_reads(4, 100000, 20000, 150);
  const fs::path in = write_fasta(reads, "partitions_ranges.fa");
  const fs::path tmp = empty_dir("partitions_ranges_tmp");
  for (const unsigned k : {1u, 2u, 5u, 6u, 21u}) {
    const auto [want, hist] = expected_output(naive(reads, k));
    for (const unsigned t : {1u, 2u, 3u}) {
      CountOptions o = options(in, k, t);
      o.tmp_dir = tmp.string();
      EXPECT_SAME(run(o).text, want) << "k=" << k << " threads=" << t;
      o.max_memory = budget_with_1mb_spool(o);
      const Counted spilled = run(o);
      EXPECT_SAME(spilled.text, want) << "spilled, k=" << k << " threads=" << t;
      EXPECT_GT(spilled.result.spool.disk_bytes, 0u);
    }
  }
}

TEST(CountPartitions, ExactModeMatchesANaiveCountWithExactSingletons) {
  const auto reads = genome_reads(2, 20000, 3000, 120);
  const fs::path in = write_fasta(reads, "partitions_naive.fa");
  const auto truth = naive(reads, 31);
  const Counted r = run(options(in, 31, 2));
  const auto [want, hist] = expected_output(truth);
  EXPECT_SAME(r.text, want);
  EXPECT_SAME(r.result.histogram, hist);  // row 1 too: exact, not estimated
  EXPECT_EQ(r.result.distinct, truth.size());
  EXPECT_EQ(r.result.passes, 1u);
}

// A budget that leaves 1 MB of spool memory for some 5 MB of super-k-mers:
// most of them go to a temporary file, and the output is the same.
TEST(CountPartitions, SpillToTemporaryFilesGivesTheSameOutput) {
  const auto reads = genome_reads(3, 200000, 40000, 150);
  const fs::path in = write_fasta(reads, "partitions_spill.fa");
  const fs::path tmp = empty_dir("partitions_spill_tmp");
  CountOptions o = options(in, 31, 2);
  o.tmp_dir = tmp.string();
  const Counted memory = run(o);
  EXPECT_EQ(memory.result.spool.disk_bytes, 0u);
  o.max_memory = budget_with_1mb_spool(o);
  const Counted disk = run(o);
  EXPECT_GT(disk.result.spool.disk_bytes, uint64_t{3} << 20);
  EXPECT_LE(disk.result.spool.memory_peak, uint64_t{1} << 20);
  EXPECT_SAME(disk.text, memory.text);
  EXPECT_SAME(disk.result.histogram, memory.result.histogram);
  EXPECT_TRUE(fs::is_empty(tmp));
  // Without -M, the merge keeps what it read of the spilled runs for the
  // ranges after (RangeSorter::entries): the same output for any threads.
  o.max_memory = 0;
  detail::tune(o).spool_memory = 1u << 20;
  for (const unsigned t : {1u, 3u}) {
    o.threads = t;
    const Counted kept = run(o);
    EXPECT_GT(kept.result.spool.disk_bytes, uint64_t{3} << 20);
    EXPECT_SAME(kept.text, memory.text) << "threads=" << t;
    EXPECT_SAME(kept.result.histogram, memory.result.histogram);
  }
  EXPECT_TRUE(fs::is_empty(tmp));
}

TEST(CountPartitions, FullTemporaryDirectoryIsAnOutputError) {
  const auto reads = genome_reads(4, 200000, 40000, 150);
  const fs::path in = write_fasta(reads, "partitions_full.fa");
  const fs::path tmp = empty_dir("partitions_full_tmp");
  CountOptions o = options(in, 31, 2);
  o.tmp_dir = tmp.string();
  o.max_memory = budget_with_1mb_spool(o);
  detail::tune(o).tmp_disk_limit = 1u << 20;
  try {
    run(o);
    FAIL() << "no error";
  } catch (const OutputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(tmp.string() + ": no space left for temporary files"), std::string::npos) << msg;
    EXPECT_NE(msg.find("needed"), std::string::npos) << msg;
  }
  EXPECT_TRUE(fs::is_empty(tmp));
}

// The space a full disk message says is needed is projected over every
// input, not the first only: the same file given four times needs about four
// times the space of one (it fills the disk at the same point of the first),
// and no more than twice what the whole run writes.
TEST(CountPartitions, FullDiskProjectsOverEveryInput) {
  const auto reads = genome_reads(4, 200000, 40000, 150);
  const fs::path in = write_fasta(reads, "partitions_project.fa");
  const fs::path tmp = empty_dir("partitions_project_tmp");
  CountOptions o = options(in, 31, 1);
  o.tmp_dir = tmp.string();
  auto needed = [&](size_t files) {
    o.inputs.assign(files, in.string());
    o.max_memory = budget_with_1mb_spool(o);
    detail::tune(o).tmp_disk_limit = 4u << 20;
    try {
      run(o);
      ADD_FAILURE() << "no error";
    } catch (const OutputError& e) {
      const std::string msg = e.what();
      const size_t at = msg.find("about ");
      if (at != std::string::npos) return std::stod(msg.substr(at + 6)) * (1u << 20);
      ADD_FAILURE() << msg;
    }
    return 0.0;
  };
  const double one = needed(1), four = needed(4);
  detail::tune(o).tmp_disk_limit = ~uint64_t{0};
  const double written = static_cast<double>(run(o).result.spool.disk_bytes);
  EXPECT_GT(four, 3 * one) << "one input: " << one << " bytes, four: " << four;
  EXPECT_LT(four, 2 * written) << "the run wrote " << written << " bytes";
  EXPECT_TRUE(fs::is_empty(tmp));
}

// Low-complexity reads put one minimizer's partition far above the mean;
// its filter grows a chain and the counts stay exact.
TEST(CountPartitions, SkewedPartitionStillCountsExactly) {
  auto reads = genome_reads(5, 20000, 2000, 120);
  std::mt19937_64 rng(6);
  for (int i = 0; i < 3000; ++i) {
    std::string r(120, 'A');
    for (auto& c : r)
      if (rng() % 30 == 0) c = "CGT"[rng() % 3];  // poly-A with scattered errors: many distinct k-mers
    reads.push_back(r);
  }
  const fs::path in = write_fasta(reads, "partitions_skew.fa");
  const auto truth = naive(reads, 31);
  // Sized for a quarter of the distinct k-mers, as if from the genome's
  // share alone: the poly-A partition's filter must grow.
  CountOptions o = options(in, 31, 2);
  o.expected_kmers = truth.size() / 4;
  const Counted r = run(o);
  std::string want;
  for (const auto& [km, c] : truth)
    if (c >= 2) want += km + '\t' + std::to_string(c) + '\n';
  EXPECT_SAME(r.text, want);
  EXPECT_EQ(r.result.distinct, truth.size());
  EXPECT_GT(static_cast<double>(r.result.partitions.max_kmers), 5 * r.result.partitions.mean_kmers);
  EXPECT_GT(r.result.bloom.layers.size(), 1u) << "the skewed partition's filter should have grown";
}

// A partition whose turned-away first sightings exceed
// first_sightings_bytes is recounted instead: the same exact output.
TEST(CountPartitions, RecountWhenTheFirstSightingsDoNotFit) {
  const auto reads = genome_reads(8, 20000, 3000, 120);
  const fs::path in = write_fasta(reads, "partitions_recount.fa");
  const auto truth = naive(reads, 31);
  CountOptions o = options(in, 31, 2);
  const Counted listed = run(o);
  detail::tune(o).first_sightings_bytes = 0;  // no list at all: every partition recounted
  const Counted recounted = run(o);
  const auto [want, hist] = expected_output(truth);
  EXPECT_SAME(recounted.text, want);
  EXPECT_SAME(recounted.result.histogram, hist);
  EXPECT_SAME(listed.text, recounted.text);
  EXPECT_SAME(listed.result.histogram, recounted.result.histogram);
  EXPECT_EQ(listed.result.partitions.recounted, 0u);
  EXPECT_EQ(recounted.result.partitions.recounted, recounted.result.partitions.count);
}

// Without -M a partition keeps all its first sightings, however far its
// distinct k-mers pass what its filter was sized for: 64 partitions of
// some 380,000 distinct k-mers each (more than the list's floor,
// kFirstSightingsBytes) sized for 1,000 k-mers in all (--expected) are not
// recounted, and count what a recount of every partition counts.
TEST(CountPartitions, WithoutABudgetNoPartitionIsRecounted) {
  std::mt19937_64 rng(12);
  std::string genome(24'000'000, 'A');
  for (auto& c : genome) c = "ACGT"[rng() % 4];
  const fs::path in = write_fasta({genome, genome.substr(0, 500'000)}, "partitions_no_recount.fa");
  CountOptions o = options(in, 31, 2);
  o.batch_bases = 1u << 19;
  detail::tune(o).cache_bytes = 1u << 20;
  o.expected_kmers = 1000;
  const Counted kept = run(o);
  EXPECT_EQ(kept.result.partitions.count, 64u);
  EXPECT_GT(kept.result.partitions.max_kmers, kFirstSightingsBytes / 8);
  EXPECT_EQ(kept.result.partitions.recounted, 0u);
  detail::tune(o).first_sightings_bytes = 0;
  const Counted recounted = run(o);
  EXPECT_EQ(recounted.result.partitions.recounted, 64u);
  EXPECT_SAME(kept.text, recounted.text);
  EXPECT_SAME(kept.result.histogram, recounted.result.histogram);
  EXPECT_EQ(kept.result.distinct, genome.size() - 30);
  fs::remove(in);
}

// The merge's ways to order a key range, sorting it whole or in slices (a
// count past 4,094 kept apart from the sorted words) and merging the
// partitions' sorted runs, give the naive count's output, counts past 6,000
// included, for k = 31, 23 and 45 (wider keys: always merged) and 1 to 3
// threads.
TEST(CountPartitions, SortedAndMergedRangesGiveTheSameCounts) {
  auto reads = genome_reads(13, 30000, 4000, 100);
  const std::vector<std::string> repeats = {reads[0].substr(0, 50), reads[1].substr(0, 60)};
  for (int i = 0; i < 8000; ++i) reads.push_back(repeats[i % 4 == 0]);  // 6,000 and 2,000 copies
  const fs::path in = write_fasta(reads, "partitions_sorted_ranges.fa");
  for (const unsigned k : {31u, 23u, 45u}) {
    const auto truth = naive(reads, k);
    const auto [want, hist] = expected_output(truth);
    uint64_t largest = 0;
    for (const auto& [km, c] : truth) largest = std::max(largest, c);
    ASSERT_GT(largest, 6000u);
    for (const int way : {0, 1, 2})  // sorted whole, in slices of about 16 k-mers, merged
      for (const unsigned t : {1u, 3u}) {
        CountOptions o = options(in, k, t);
        detail::tune(o).sort_ranges = way < 2;
        if (way == 1) detail::tune(o).sort_bytes = 16 * 16;
        const Counted c = run(o);
        EXPECT_SAME(c.text, want) << "k=" << k << " way=" << way << " threads=" << t;
        EXPECT_SAME(c.result.histogram, hist);
        EXPECT_EQ(c.result.merge.sorted, way < 2 && k <= 31);
        EXPECT_EQ(c.result.merge.ranges, 1024u);
        if (way == 1 && k <= 31) EXPECT_GT(c.result.merge.sliced, 500u);
        else EXPECT_EQ(c.result.merge.sliced, 0u);
      }
  }
}

// A cache planted far smaller than the partitions (the pilot measures them
// past four times the target): after the pilot (its first 2^20 occurrences) they
// are counted in sweeps, each with its own filter and table, and the output,
// histogram and distinct count stay those of the whole partitions, for
// any thread count, the recount path included, whether the sweeps take
// hash ranges of the k-mers or tag ranges of the records (the plan tags
// them here: 7 M occurrences want some 22,000 partitions of a 256-byte
// cache).
TEST(CountPartitions, PartitionsThatOutgrowTheCacheAreCountedInSweeps) {
  const auto reads = genome_reads(9, 60000, 20000, 150);
  const fs::path in = write_fasta(reads, "partitions_sweeps.fa");
  CountOptions o = options(in, 31, 2);
  o.batch_bases = 1u << 16;
  const Counted whole = run(o);
  EXPECT_EQ(whole.result.partitions.split, 0u);
  EXPECT_EQ(whole.result.partitions.max_sweeps, 1u);
  EXPECT_FALSE(whole.result.partitions.tagged);
  detail::tune(o).cache_bytes = 256;
  for (const std::optional<bool> tags : {std::optional<bool>{}, std::optional<bool>{false}}) {
    detail::tune(o).sweep_tags = tags;
    detail::tune(o).first_sightings_bytes.reset();
    for (unsigned t : {1u, 3u}) {
      o.threads = t;
      const Counted swept = run(o);
      EXPECT_EQ(swept.result.partitions.cache_bytes, 256u);
      EXPECT_EQ(swept.result.partitions.tagged, tags.value_or(true));
      EXPECT_GT(swept.result.partitions.split, 100u) << "threads=" << t;
      EXPECT_GT(swept.result.partitions.max_sweeps, 2u);
      EXPECT_SAME(swept.text, whole.text);
      EXPECT_SAME(swept.result.histogram, whole.result.histogram);
      EXPECT_EQ(swept.result.distinct, whole.result.distinct);
    }
    detail::tune(o).first_sightings_bytes = 0;
    const Counted recounted = run(o);
    EXPECT_GT(recounted.result.partitions.split, 0u);
    EXPECT_SAME(recounted.text, whole.text);
    EXPECT_SAME(recounted.result.histogram, whole.result.histogram);
  }
}

// A counting thread holds at most what the plan set aside for it
// (counting_bytes_per_thread, from the mean occurrences of a partition): the
// buffers' capacities measured while counting stay within it, and it is not
// far above them either, for short and long reads, with and without -M.
TEST(CountPartitions, TheCountersHoldWhatThePlanSetAside) {
  for (const size_t len : {150u, 5000u}) {
    const auto reads = genome_reads(12, 400000, 6000000 / len, len);
    const fs::path in = write_fasta(reads, "partitions_working.fa");
    CountOptions o = options(in, 31, 2);
    const Counted free_run = run(o);
    o.max_memory = uint64_t{256} << 20;
    const Counted held = run(o);
    const uint64_t used = held.result.counting_bytes, planned = held.result.counting_bytes_planned;
    EXPECT_LE(used, planned) << "len " << len;
    EXPECT_LE(planned, 4 * used) << "len " << len;
    EXPECT_LE(free_run.result.counting_bytes, free_run.result.counting_bytes_planned) << "len " << len;
    EXPECT_SAME(held.text, free_run.text);
    EXPECT_SAME(held.result.histogram, free_run.result.histogram);
  }
}

// Counting bin files (kmerbloom bin) plans its counters from the k-mers the
// bins hold: a plan that knew nothing of them set aside the 1 MiB floor a
// thread for bins of 750,000 occurrences.
TEST(CountPartitions, CountingBinFilesPlansFromTheirKmers) {
  const auto reads = genome_reads(13, 400000, 1200, 5000);
  const fs::path in = write_fasta(reads, "partitions_bins.fa");
  BinOptions b;
  b.inputs = {in.string()};
  b.output = (fs::path(::testing::TempDir()) / "partitions_bins.kbin").string();
  b.k = 31;
  b.bins = 8;
  write_bins(b);
  CountOptions o = options(in, 31, 2);
  o.inputs = {b.output};
  o.max_memory = uint64_t{256} << 20;
  const Counted binned = run(o);
  EXPECT_GT(binned.result.counting_bytes, 0u);
  EXPECT_LE(binned.result.counting_bytes, binned.result.counting_bytes_planned);
  EXPECT_SAME(binned.text, run(options(in, 31, 2)).text);
}

// count_kmers(options) writes options.output itself, in the format its name
// says or output_format gives: the TSV is the sink's text, the FASTA and
// KFF (k = 31, and 45 for wider keys; in place to a file, in order through
// gzip) read back to the same k-mers and counts, on 1 and 2 threads;
// output_begins is called once; an unknown format is refused.
TEST(CountPartitions, TheLibraryWritesTheOutputItsOptionsName) {
  const auto reads = genome_reads(17, 30000, 400, 150);
  const fs::path in = write_fasta(reads, "library_output.fa");
  const fs::path d = empty_dir("library_output");
  for (const unsigned k : {31u, 45u})
    for (const unsigned threads : {1u, 2u}) {
      const std::string want = run(options(in, k, threads)).text;
      for (const char* name : {"o.tsv", "o.fa", "o.kff", "o.kff.gz", "o.x"}) {
        CountOptions o = options(in, k, threads);
        o.output = (d / name).string();
        if (std::string(name) == "o.x") o.output_format = "kff";
        int begun = 0;
        CountHooks hooks;
        hooks.output_begins = [&] { ++begun; };
        const CountResult r = count_kmers(o, hooks);
        EXPECT_EQ(begun, 1) << name;
        EXPECT_EQ(r.solid, static_cast<uint64_t>(std::count(want.begin(), want.end(), '\n'))) << name;
        const auto back = open_count_file(o.output, {.fasta_form = true, .kmer_order = true});
        std::string text;
        KmerCount c;
        while (back->next(c)) text += std::string(c.kmer) + '\t' + std::to_string(c.count) + '\n';
        EXPECT_SAME(text, want) << name << " k = " << k << " threads " << threads;
      }
      std::ifstream tsv(d / "o.tsv");
      EXPECT_SAME(std::string(std::istreambuf_iterator<char>(tsv), {}), want);
    }
  CountOptions bad = options(in, 31, 1);
  bad.output = (d / "bad.tsv").string();
  bad.output_format = "csv";
  EXPECT_THROW(count_kmers(bad), std::invalid_argument);
}
