// Unit tests of the reader on inputs that users get wrong or that other tools
// accept: BGZF and plain gzip members in any order, spaces ending FASTA
// sequence lines, carriage-return-only line ends.
#include <gtest/gtest.h>
#include <htslib/bgzf.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "seqio/reader.hpp"

namespace kmerbloom {
namespace {

class ReaderMistakes : public TempDirTest {};

std::vector<std::string> sequences(const std::string& p) {
  SequenceReader r(p);
  RecordBatch b;
  std::vector<std::string> out;
  while (r.next_batch(b, 1 << 20))
    for (size_t i = 0; i < b.size(); ++i) out.emplace_back(b.seq(i));
  return out;
}

std::string gz_bytes(const std::string& text) {
  std::vector<unsigned char> out(compressBound(static_cast<uLong>(text.size())) + 64);
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  const size_t n = zs.total_out;
  deflateEnd(&zs);
  return {reinterpret_cast<const char*>(out.data()), n};
}

std::string bgzf_bytes(const ReaderMistakes& t, const std::string& text, bool eof_block) {
  const std::string p = t.path("tmp.bgz");
  BGZF* f = bgzf_open(p.c_str(), "w");
  EXPECT_NE(f, nullptr);
  EXPECT_EQ(bgzf_write(f, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  EXPECT_EQ(bgzf_close(f), 0);
  std::ifstream in(p, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!eof_block) bytes.resize(bytes.size() - 28);  // the empty end-of-file block
  return bytes;
}

TEST_F(ReaderMistakes, GzipMembersOfAnyKindMix) {
  const std::string a = "@a\nACGT\n+\nIIII\n", b = "@b\nGGCC\n+\nIIII\n";
  const std::vector<std::string> both = {"ACGT", "GGCC"};
  EXPECT_EQ(sequences(write("bp.gz", bgzf_bytes(*this, a, true) + gz_bytes(b))), both);
  EXPECT_EQ(sequences(write("pb.gz", gz_bytes(a) + bgzf_bytes(*this, b, true))), both);
  EXPECT_EQ(sequences(write("bb.gz", bgzf_bytes(*this, a, true) + bgzf_bytes(*this, b, true))), both);
  // A BGZF member without its end-of-file block is still refused when it
  // comes last, whatever came before.
  for (const std::string name : {"p_cut.gz", "b_cut.gz"}) {
    const std::string first = name[0] == 'p' ? gz_bytes(a) : bgzf_bytes(*this, a, true);
    const std::string p = write(name, first + bgzf_bytes(*this, b, false));
    EXPECT_THROW(
        try { sequences(p); } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("truncated BGZF"), std::string::npos) << e.what();
          throw;
        },
        InputError);
  }
  // ... but not when a plain member follows it: gzip -t accepts that too.
  EXPECT_EQ(sequences(write("bcut_p.gz", bgzf_bytes(*this, a, false) + gz_bytes(b))), both);
}

TEST_F(ReaderMistakes, SpacesEndingFastaSequenceLinesAreSkipped) {
  EXPECT_EQ(sequences(write("ws.fa", ">s1\nACGT  \nGG\t\n>s2 \t\nTT \t \r\n")),
            (std::vector<std::string>{"ACGTGG", "TT"}));
  // Inside the line it stays an error, and in FASTQ anywhere.
  EXPECT_THROW(sequences(write("inner.fa", ">s\nAC GT\n")), InputError);
  EXPECT_THROW(sequences(write("ws.fq", "@r\nACGT \n+\nIIIII\n")), InputError);
}

TEST_F(ReaderMistakes, CarriageReturnOnlyLineEndsAreNamed) {
  const std::string p = write("mac.fq", "@r1\rACGT\r+\rIIII\r@r2\rACGT\r+\rIIII\r");
  try {
    sequences(p);
    FAIL() << "CR-only line ends were accepted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(p + ": line 1: lines end in a carriage return alone"), std::string::npos) << msg;
  }
  // CRLF stays fine.
  EXPECT_EQ(sequences(write("dos.fq", "@r1\r\nACGT\r\n+\r\nIIII\r\n")), std::vector<std::string>{"ACGT"});
}

// kmerbloom's own binary files, and other binary data, given as reads are
// named for what they are, even when a '\r' follows in their header.
TEST_F(ReaderMistakes, BinaryFilesAreNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {std::string("KFF\x01\x00\x00\x1e\r\x01", 9), "a KFF file of k-mer counts"},
      {std::string("KMERBINS\x01\r\x00", 11), "a bin file of kmerbloom bin"},
      {std::string("KMBLOOM\0\x02\r", 10), "a filter file of kmerbloom build"},
      {std::string("\x89PNG\r\n\x1a\n", 8), "line 1: not FASTA or FASTQ (first character '\\x89')"},
  };
  for (const auto& [bytes, what] : cases) {
    const std::string p = write("in.bin", bytes);
    try {
      sequences(p);
      ADD_FAILURE() << what << ": accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(p + ": " + what), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kmerbloom
