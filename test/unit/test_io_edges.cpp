// Edges of input and output: where outputs and temporary files go, checked
// before anything is read (check_output_file, Spool::check_dir); output names
// as long as the file system takes; a look at an input's first bytes that
// reading still returns (ByteSource::peek); bytes quoted in messages
// (printable).
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>

#include "seqio/decompress.hpp"
#include "count/spool.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/output.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

namespace fs = std::filesystem;

class IoEdges : public TempDirTest {
 protected:
  bool folder_is_empty() const { return fs::is_empty(dir_); }
  std::string error_of(const std::string& out) const {
    try {
      check_output_file(out);
    } catch (const OutputError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(IoEdges, CheckRefusesWhatOutputFileWouldAndLeavesNothing) {
  EXPECT_EQ(error_of("-"), "");
  EXPECT_EQ(error_of("/dev/null"), "");
  EXPECT_EQ(error_of(path("new.tsv")), "");
  EXPECT_TRUE(folder_is_empty());
  EXPECT_NE(error_of(path("missing/x.tsv")).find("missing/x.tsv: cannot create: No such file"), std::string::npos);
  EXPECT_NE(error_of(dir_).find(": is a directory"), std::string::npos);
  write("file", "x");
  EXPECT_NE(error_of(path("file/x.tsv")).find("Not a directory"), std::string::npos);
  EXPECT_NE(error_of(path(std::string(256, 'n'))).find("File name too long"), std::string::npos);
  EXPECT_EQ(error_of(""), "output path is empty");
  fs::remove(path("file"));
  EXPECT_TRUE(folder_is_empty());
}

TEST_F(IoEdges, NamesOfAnyLengthTheFileSystemTakes) {
  for (const size_t len : {250, 255}) {
    const std::string out = path(std::string(len, 'n'));
    EXPECT_EQ(error_of(out), "") << len;
    OutputFile f(out);
    f.write("ACGT\t2\n");
    f.commit();
    EXPECT_EQ(fs::file_size(out), 7u) << len;
    fs::remove(out);
  }
  EXPECT_TRUE(folder_is_empty());
  // A name too long is refused on opening, not by the rename after the writing.
  EXPECT_THROW({ OutputFile f(path(std::string(256, 'n'))); }, OutputError);
  EXPECT_TRUE(folder_is_empty());
}

TEST_F(IoEdges, TemporaryDirectoryMustHoldAFile) {
  EXPECT_NO_THROW(Spool::check_dir(dir_));
  EXPECT_TRUE(folder_is_empty());
  try {
    Spool::check_dir(path("missing"));
    FAIL() << "a missing directory passed";
  } catch (const SpoolError& e) {
    EXPECT_NE(std::string(e.what()).find(path("missing") + ": cannot create a temporary file"), std::string::npos)
        << e.what();
  }
  write("file", "x");
  EXPECT_THROW(Spool::check_dir(path("file")), SpoolError);
}

TEST_F(IoEdges, PeekedBytesAreReadAgain) {
  const std::string text = "KFF and then some more text\n";
  const std::string gz = path("t.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  for (const std::string& p : {write("t.txt", text), gz}) {
    detail::ByteSource src(p, p);
    char head[8] = {};
    ASSERT_EQ(src.peek(head, 3), 3u);
    EXPECT_EQ(std::string(head, 3), "KFF");
    ASSERT_EQ(src.peek(head, 5), 5u);  // a longer look takes the first bytes again
    std::string all(100, '\0');
    all.resize(src.read(all.data(), all.size()));
    EXPECT_EQ(all, text) << p;
  }
  detail::ByteSource empty(write("empty", ""), "empty");
  char c;
  EXPECT_EQ(empty.peek(&c, 1), 0u);
}

TEST(Printable, EscapesEveryByteATerminalShouldNotGet) {
  EXPECT_EQ(printable("ACGT 12"), "ACGT 12");
  EXPECT_EQ(printable(std::string("A\tC\x01\x8b\xff\0", 7)), "A\\x09C\\x01\\x8b\\xff\\x00");
  EXPECT_EQ(printable(std::string(70, 'a'), 60), std::string(60, 'a') + "...");
}

}  // namespace
}  // namespace kmerbloom
