// The text formats of io/: lines (plain or gzip), histogram files (kmerbloom's
// dense rows and jellyfish's sparse ones), count files (TSV and FASTA form).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "formats/count_file.hpp"
#include "formats/histogram_file.hpp"
#include "seqio/line_reader.hpp"
#include "strings.hpp"

namespace kmerbloom {
namespace {

namespace fs = std::filesystem;

class TextFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (fs::temp_directory_path() / "kb-text-files.XXXXXX").string();
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text, bool gzip = false) {
    const std::string p = (dir_ / name).string();
    if (gzip) {
      gzFile f = gzopen(p.c_str(), "wb");
      gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
      gzclose(f);
    } else {
      std::ofstream(p, std::ios::binary) << text;
    }
    return p;
  }
  static std::string error_of(const std::function<void()>& f) { return kbtest::error_of<InputError>(f); }
  fs::path dir_;
};

std::vector<std::string> all_lines(const std::string& path, size_t buffer) {
  LineReader in(path, buffer);
  std::vector<std::string> v;
  for (std::string_view l; in.next(l);) v.emplace_back(l);
  return v;
}

TEST_F(TextFiles, LinesPlainOrGzipCrlfLongAndUnterminated) {
  const std::string longline(20000, 'A');
  const std::string text = "one\r\n\ntwo\n" + longline + "\nlast";
  const std::vector<std::string> want{"one", "", "two", longline, "last"};
  EXPECT_SAME(all_lines(write("t.txt", text), 4096), want);
  EXPECT_SAME(all_lines(write("t.txt.gz", text, true), 4096), want);
  LineReader in(write("n.txt", "a\nb\n"));
  std::string_view l;
  ASSERT_TRUE(in.next(l));
  ASSERT_TRUE(in.next(l));
  EXPECT_EQ(in.line_number(), 2u);
  EXPECT_FALSE(in.next(l));
  EXPECT_EQ(error_of([&] { LineReader r(write("m.txt", "x\ny\n")); r.next(l); r.next(l); r.fail("bad"); }),
            (dir_ / "m.txt").string() + ": line 2: bad");
  EXPECT_NE(error_of([&] { LineReader r((dir_ / "missing").string()); }), "");
}

TEST_F(TextFiles, HistogramDenseAndSparse) {
  const HistogramFile dense = read_histogram(write("k.histo", "1 10\n2 0\n3 4\n"));
  EXPECT_TRUE(dense.dense);
  EXPECT_EQ(dense.last_row, 3u);
  EXPECT_EQ(dense.frequency, (std::vector<uint64_t>{0, 10, 0, 4}));
  const HistogramFile sparse = read_histogram(write("j.histo", "1 7\n3\t2\r\n\n6 1\n", true));
  EXPECT_FALSE(sparse.dense);
  EXPECT_EQ(sparse.frequency, (std::vector<uint64_t>{0, 7, 0, 2, 0, 0, 1}));
  EXPECT_NE(error_of([&] { read_histogram(write("b.histo", "1 5\n2 x\n")); }).find("line 2"), std::string::npos);
  EXPECT_NE(error_of([&] { read_histogram(write("e.histo", "\n")); }).find("no histogram rows"), std::string::npos);
}

// jellyfish histo leaves out zero rows: a missing row adds 0, next to
// kmerbloom's dense rows, and the dense file's overflow row stays the last.
TEST_F(TextFiles, SumHistogramsTakesJellyfishRows) {
  const std::string kb = write("kb.histo", "1 10\n2 0\n3 4\n4 0\n5 1\n");
  const std::string jf = write("jf.histo", "1 7\n3 2\n5 3\n");
  EXPECT_EQ(sum_histograms({kb, jf}),
            (std::vector<std::pair<uint64_t, uint64_t>>{{1, 17}, {2, 0}, {3, 6}, {4, 0}, {5, 4}}));
  EXPECT_EQ(sum_histograms({jf, jf}), (std::vector<std::pair<uint64_t, uint64_t>>{{1, 14}, {3, 4}, {5, 6}}));
  const std::string beyond = write("far.histo", "1 1\n9 1\n");
  const std::string e = error_of([&] { sum_histograms({kb, beyond}); });
  EXPECT_NE(e.find("far.histo: row 9"), std::string::npos) << e;
  EXPECT_NE(e.find("same --histo-max"), std::string::npos) << e;
}

TEST_F(TextFiles, CountFileTsvAndFastaForm) {
  auto read_all = [](const std::string& path, bool fasta) {
    std::vector<std::pair<std::string, uint64_t>> v;
    const auto in = open_count_file(path, {fasta, 4096});
    for (KmerCount r; in->next(r);) v.emplace_back(std::string(r.kmer), r.count);
    return v;
  };
  const std::vector<std::pair<std::string, uint64_t>> want{{"ACG", 3}, {"CGT", 12}};
  EXPECT_EQ(read_all(write("c.tsv", "ACG\t3\r\n\nCGT 12\n"), false), want);
  EXPECT_EQ(read_all(write("c.tsv.gz", "ACG\t3\nCGT\t12", true), false), want);
  EXPECT_EQ(read_all(write("c.fa", ">3\nACG\n>12\nCGT\n"), true), want);
  const std::string fa = write("f.fa", ">3\nACG\n");
  EXPECT_NE(error_of([&] { read_all(fa, false); }).find("line 1: FASTA record"), std::string::npos);
  EXPECT_NE(error_of([&] { read_all(write("x.tsv", "ACG\tx\n"), true); }).find("not an unsigned integer"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_all(write("y.tsv", "ACG\n"), true); }).find("line 1: expected KMER<TAB>COUNT"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_all(write("z.fa", ">3\n>4\nACG\n"), true); }).find("line 2: '>' line without"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_all(write("w.fa", "ACG\t1\n>3\n"), true); }).find("file ends"), std::string::npos);
}

}  // namespace
}  // namespace kmerbloom
