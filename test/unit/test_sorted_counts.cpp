// One reader of sorted count files (formats/sorted_counts.hpp) behind every
// command that reads them: the same faulty file gives the same words from
// sets' stream (read directly and parsed ahead), qv's read counts, hetmers'
// table and merge-counts, naming the file and the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "count/merge_counts.hpp"
#include "formats/kff.hpp"
#include "formats/output.hpp"
#include "formats/sorted_counts.hpp"
#include "profile/counted_kmers.hpp"
#include "profile/read_counts.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

class SortedCountsTest : public TempDirTest {
 protected:
  // Each reader of sorted counts, reading path to its end.
  std::vector<std::pair<const char*, std::function<void(const std::string&)>>> readers() const {
    const auto stream = [](bool threaded) {
      return [threaded](const std::string& path) {
        const auto in = open_sorted_counts(path, {.threaded = threaded});
        std::string_view kmer;
        uint64_t count = 0;
        while (in->next(kmer, count)) {
        }
      };
    };
    const auto packed = [](bool threaded) {
      return [threaded](const std::string& path) {
        const auto in = open_sorted_counts(path, {.threaded = threaded, .packed = true});
        PackedBatch b;
        while (in->next_packed_batch(b)) {
        }
      };
    };
    return {
        {"sets", packed(false)},
        {"sets, parsed ahead", packed(true)},
        {"letters", stream(false)},
        {"letters, parsed ahead", stream(true)},
        {"qv", [](const std::string& path) {
           SortedReadCounts r(path, 0);
           while (!r.done()) r.advance();
         }},
        {"hetmers", [this](const std::string& path) { read_count_file_kmers(path, 0, 100, dir_); }},
        {"merge-counts", [](const std::string& path) { merge_count_files({path}, 1, [](std::string_view, uint64_t) {}); }},
    };
  }
  static std::string error_of(const std::function<void(const std::string&)>& read, const std::string& path) {
    try {
      read(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(SortedCountsTest, EveryReaderWordsAFaultTheSameWay) {
  const std::vector<std::pair<std::string, std::string>> faults = {
      {"AAA\t1\nAACC\t1\n", "line 2: k-mer of 4 bases, the first has 3"},
      {"AAA\t1\nANA\t1\n", "line 2: k-mer ANA holds a letter other than A, C, G, T"},
      {"aaa\t1\n", "line 1: k-mer aaa holds a letter other than A, C, G, T"},
      {"AAC\t1\nAAA\t1\n", "line 2: k-mers out of order (AAA after AAC): inputs must be sorted and distinct"},
      {"AAA\t1\nAAA\t2\n", "line 2: k-mer repeated (AAA after AAA)"},
      {"AAA\t1\nAAC\t0\n", "line 2: k-mer AAC has count 0"},
      {"1\t5\n", "line 1: '1' is a number, not a k-mer: this looks like a histogram"},
  };
  int i = 0;
  for (const auto& [text, words] : faults) {
    const std::string path = write("fault" + std::to_string(i++) + ".tsv", text);
    for (const auto& [who, read] : readers()) {
      const std::string e = error_of(read, path);
      EXPECT_NE(e.find(path + ": " + words), std::string::npos) << who << " on " << text << ": " << e;
    }
  }
}

TEST_F(SortedCountsTest, AFaultFarAheadIsThrownInFileOrder) {
  std::string text;
  for (unsigned i = 0; i < 300000; ++i) {  // canonical 21-mers, increasing
    std::string kmer(21, 'A');
    for (unsigned j = 0, x = i; j < 10; ++j, x >>= 2) kmer[20 - j] = "ACGT"[x & 3];
    text += kmer + "\t3\n";
  }
  text.insert(text.find('\n', text.size() / 2) + 1, "AAAAAAAAAAAAAAAAAAAAA\t2\n");
  const std::string path = write("late.tsv", text);
  const size_t line = static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.find("AAAAAAAAAAAAAAAAAAAAA\t2")), '\n')) + 1;
  for (const auto& [who, read] : readers())
    EXPECT_NE(error_of(read, path).find("line " + std::to_string(line) + ": k-mers out of order"), std::string::npos)
        << who;
}

TEST_F(SortedCountsTest, CanonicalAndTheCallersKAreCheckedWhereAsked) {
  const std::string path = write("tt.tsv", "AAA\t1\nTTT\t2\n");
  const auto read_all = [&](const SortedCountsOptions& o) {
    const auto in = open_sorted_counts(path, o);
    std::string_view kmer;
    uint64_t count = 0;
    while (in->next(kmer, count)) {
    }
  };
  EXPECT_NO_THROW(read_all({}));
  EXPECT_EQ(error_of([&](const std::string&) { read_all({.canonical = true}); }, path),
            path + ": line 2: k-mer TTT is not canonical (its reverse complement is smaller): count without --no-canonical");
  EXPECT_EQ(error_of([&](const std::string&) { read_all({.expected_k = 4}); }, path),
            path + ": line 1: k-mer of 3 bases, but -k is 4");
  EXPECT_EQ(error_of([&](const std::string&) { read_all({.max_k = 2, .who = "hetmers"}); }, path),
            path + ": line 1: k-mer of 3 bases: hetmers takes k from 1 to 2");
}

// The k-mers of a KFF file as packed batches: the letters' k-mers, in their
// order, the count range applied, however the batches fall; a fault found
// in a batch named by the k-mer's place in the file.
TEST_F(SortedCountsTest, PackedBatchesAreTheLettersKmers) {
  std::string text;
  for (unsigned i = 0; i < 70000; ++i) {  // 31-mers, increasing: three batches
    std::string kmer(31, 'C');
    for (unsigned j = 0, x = i * 3; j < 16; ++j, x >>= 2) kmer[30 - j] = "ACGT"[x & 3];
    text += kmer + "\t" + std::to_string(1 + i % 5) + "\n";
  }
  const std::string tsv = write("p.tsv", text), kff = dir_ + "/p.kff";
  {
    const auto w = open_sorted_counts(tsv);
    OutputFile out(kff, false);
    KffWriter kw(out, {.k = 31, .min_count = 1, .section_kmers = 1000});  // in-order sections
    std::string_view kmer;
    uint64_t count = 0;
    while (w->next(kmer, count)) kw.add(kmer, count);
    kw.finish();
    out.commit();
  }
  for (const std::string& path : {tsv, kff})
    for (const bool threaded : {false, true}) {
      std::string letters, packed;
      const SortedCountsOptions o{.min_count = 2, .max_count = 4, .threaded = threaded};
      const auto a = open_sorted_counts(path, o);
      std::string_view kmer;
      uint64_t count = 0;
      while (a->next(kmer, count)) letters += std::string(kmer) + " " + std::to_string(count) + "\n";
      auto po = o;
      po.packed = true;
      const auto b = open_sorted_counts(path, po);
      PackedBatch batch;
      std::string t(31, 'A');
      size_t batches = 0;
      while (b->next_packed_batch(batch)) {
        ++batches;
        EXPECT_EQ(batch.k, 31u);
        for (size_t i = 0; i < batch.n; ++i) {
          decode_packed_kmer(reinterpret_cast<const uint8_t*>(batch.kmer(i).data()), 31, t.data());
          packed += t + " " + std::to_string(batch.counts[i]) + "\n";
        }
      }
      EXPECT_GT(batches, 1u) << path;
      EXPECT_FALSE(letters.empty());
      EXPECT_EQ(packed, letters) << path << (threaded ? ", parsed ahead" : "");
      EXPECT_EQ(b->read(), a->read());
      EXPECT_EQ(b->kept(), a->kept());
    }
  // A fault in a KFF file read front to back (one section: AAA, then AAA
  // where the writer put AAC) is named by the k-mer's place in the file.
  std::string bytes;
  {
    OutputFile out(dir_ + "/repeat.kff", false);
    KffWriter kw(out, {.k = 3, .min_count = 1, .max_count = 1});  // counts of one byte
    kw.add("AAA", 1);
    kw.add("AAC", 1);
    kw.finish();
    out.commit();
    std::ifstream in(dir_ + "/repeat.kff", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t at = bytes.find(std::string("\x00\x01\x01\x01", 4));  // AAA 1, AAC 1
  ASSERT_NE(at, std::string::npos);
  bytes[at + 2] = '\x00';  // AAC becomes AAA
  const std::string repeat = write("repeat.kff", bytes);
  for (const bool threaded : {false, true}) {
    const std::string e = error_of([&](const std::string& p) {
      const auto in = open_sorted_counts(p, {.threaded = threaded, .packed = true});
      PackedBatch b;
      while (in->next_packed_batch(b)) {
      }
    }, repeat);
    EXPECT_NE(e.find(repeat + ": k-mer 2: k-mer repeated (AAA after AAA): inputs must be sorted and distinct"),
              std::string::npos) << e;
  }
}

TEST_F(SortedCountsTest, TheCountRangeSkipsButStillChecks) {
  const std::string path = write("r.tsv", "AAA\t1\nAAC\t5\nAAG\t9\nAAT\t5\n");
  for (const bool threaded : {false, true}) {
    const auto in = open_sorted_counts(path, {.min_count = 2, .max_count = 5, .threaded = threaded});
    std::string_view kmer;
    uint64_t count = 0;
    std::string kept;
    while (in->next(kmer, count)) kept += std::string(kmer) + "=" + std::to_string(count) + " ";
    EXPECT_EQ(kept, "AAC=5 AAT=5 ");
    EXPECT_EQ(in->read(), 4u);
    EXPECT_EQ(in->kept(), 2u);
    EXPECT_EQ(in->k(), 3u);
  }
  const std::string bad = write("rb.tsv", "AAA\t1\nAAA\t1\n");  // both outside the range
  EXPECT_NE(error_of([&](const std::string& p) {
              const auto in = open_sorted_counts(p, {.min_count = 2});
              std::string_view kmer;
              uint64_t count = 0;
              while (in->next(kmer, count)) {
              }
            }, bad).find("line 2: k-mer repeated"),
            std::string::npos);
}

}  // namespace
}  // namespace kmerbloom
