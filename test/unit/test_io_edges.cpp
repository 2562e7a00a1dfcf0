// Edges of input and output: a look at an input's first bytes that reading
// still returns (ByteSource::peek); bytes quoted in messages (printable).
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "io/decompress.hpp"
#include "kmerbloom/format.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

class IoEdges : public TempDirTest {};

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
