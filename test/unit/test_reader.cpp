// Unit tests of SequenceReader: syntax, compression and error reporting, on
// small inputs written to temporary files.
#include <gtest/gtest.h>
#include <htslib/bgzf.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "seqio/reader.hpp"
#include "temp_dir.hpp"
#include "strings.hpp"

namespace kmerbloom {
namespace {

struct Rec {
  std::string name, seq, qual;
  bool operator==(const Rec&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Rec& r) {
  return os << "{" << r.name << "|" << r.seq << "|" << r.qual << "}";
}

// A fresh directory per test (TempDirTest), and compressed files written into it.
class ReaderTest : public TempDirTest {
 protected:
  std::string write_gz(const std::string& name, const std::string& text, int level = 6) const {
    const std::string p = path(name);
    gzFile f = gzopen(p.c_str(), ("wb" + std::to_string(level)).c_str());
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    EXPECT_EQ(gzclose(f), Z_OK);
    return p;
  }
  // BGZF through htslib, in blocks of at most 64 KiB plus the empty EOF block.
  std::string write_bgzf(const std::string& name, const std::string& text) const {
    const std::string p = path(name);
    BGZF* f = bgzf_open(p.c_str(), "w");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(bgzf_write(f, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    EXPECT_EQ(bgzf_close(f), 0);
    return p;
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

std::vector<Rec> read_all(const std::string& p, uint64_t target_bases = 1 << 20, uint64_t max_records = 1 << 20,
                          unsigned inflate_threads = 1) {
  SequenceReader r(p, inflate_threads);
  RecordBatch b;
  std::vector<Rec> out;
  uint64_t expect_first = 0;
  while (r.next_batch(b, target_bases, max_records)) {
    EXPECT_EQ(b.first_record, expect_first);
    uint64_t bases = 0;
    for (size_t i = 0; i < b.size(); ++i) {
      out.push_back({std::string(b.name(i)), std::string(b.seq(i)), std::string(b.qual(i))});
      bases += b.records[i].seq_len;
    }
    EXPECT_EQ(bases, b.bases);
    expect_first += b.size();
    EXPECT_EQ(r.records_read(), expect_first);
  }
  EXPECT_EQ(r.records_read(), out.size());
  EXPECT_FALSE(r.next_batch(b, target_bases));  // stays at the end
  return out;
}

// The InputError message for reading p, or "" when it parses.
std::string error_of(const std::string& p, unsigned inflate_threads = 1) {
  try {
    read_all(p, 1 << 20, 1 << 20, inflate_threads);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Whether reading p throws InputError whose message names p and holds text.
::testing::AssertionResult fails_with(const std::string& p, const std::string& text, unsigned inflate_threads = 1) {
  const std::string msg = error_of(p, inflate_threads);
  if (msg.empty()) return ::testing::AssertionFailure() << p << " was accepted";
  if (msg.find(p) == std::string::npos || msg.find(text) == std::string::npos)
    return ::testing::AssertionFailure() << "message \"" << msg << "\" lacks \"" << text << "\"";
  return ::testing::AssertionSuccess();
}

const char* const kFastq =
    "@r1 first read\nACGTN\n+\nIIII#\n"
    "@r2\nacgt\n+r2\n!!!!\n"
    "@r3\nGG\n+\n@+\n";
const std::vector<Rec> kFastqRecs = {{"r1 first read", "ACGTN", "IIII#"}, {"r2", "acgt", "!!!!"}, {"r3", "GG", "@+"}};

TEST_F(ReaderTest, FastaMultiLine) {
  const auto p = write("a.fa", ">s1 desc here\nACGT\nacgt\n\nNN\n>s2\n>s3\nU-.*\n");
  SequenceReader r(p);
  RecordBatch b;
  ASSERT_TRUE(r.next_batch(b, 1000));
  EXPECT_EQ(b.format, SeqFormat::fasta);
  EXPECT_EQ(r.format(), SeqFormat::fasta);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b.name(0), "s1 desc here");
  EXPECT_EQ(b.seq(0), "ACGTacgtNN");
  EXPECT_EQ(b.records[0].qual_len, 0u);
  EXPECT_EQ(b.name(1), "s2");
  EXPECT_EQ(b.seq(1), "");  // empty record is valid
  EXPECT_EQ(b.seq(2), "U-.*");
  EXPECT_EQ(b.bases, 14u);
  EXPECT_FALSE(r.next_batch(b, 1000));
  EXPECT_EQ(b.size(), 0u);
}

TEST_F(ReaderTest, FastaNoFinalNewlineAndLeadingBlankLines) {
  EXPECT_EQ(read_all(write("a.fa", "\n\n>x\nAC\nGT")), (std::vector<Rec>{{"x", "ACGT", ""}}));
}

TEST_F(ReaderTest, FastqFourLine) {
  const auto p = write("a.fq", kFastq);
  EXPECT_EQ(read_all(p), kFastqRecs);
  SequenceReader r(p);
  RecordBatch b;
  ASSERT_TRUE(r.next_batch(b, 1));
  EXPECT_EQ(b.format, SeqFormat::fastq);
}

TEST_F(ReaderTest, FastqMultiLineQualityStartingWithAtAndPlus) {
  // Quality lines may begin with '@' or '+'; only the length tells where the
  // quality ends.
  const std::string text =
      "@a\nACGTAC\nGTAC\n+a\n@@@@@\n+++++\n"
      "@b\nAC\nGT\n+\n+@\n@+\n"
      "@c\nA\n+\n@\n";
  EXPECT_EQ(read_all(write("m.fq", text)),
            (std::vector<Rec>{{"a", "ACGTACGTAC", "@@@@@+++++"}, {"b", "ACGT", "+@@+"}, {"c", "A", "@"}}));
}

TEST_F(ReaderTest, Crlf) {
  std::string fq = kFastq, fa = ">s1\r\nAC\r\n\r\nGT\r\n>s2\r\n";
  std::string crlf;
  for (char c : fq) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(read_all(write("a.fq", crlf)), kFastqRecs);
  EXPECT_EQ(read_all(write("a.fa", fa)), (std::vector<Rec>{{"s1", "ACGT", ""}, {"s2", "", ""}}));
}

TEST_F(ReaderTest, EmptyInputs) {
  for (const char* text : {"", "\n", "\n\r\n\n"}) {
    const auto p = write("e.txt", text);
    SequenceReader r(p);
    RecordBatch b;
    EXPECT_FALSE(r.next_batch(b, 100)) << text;
    EXPECT_EQ(r.records_read(), 0u);
    EXPECT_EQ(r.format(), SeqFormat::unknown);
  }
  EXPECT_TRUE(read_all(write_gz("e.gz", "")).empty());
  EXPECT_TRUE(read_all(write_bgzf("e.bgz", "")).empty());
}

TEST_F(ReaderTest, ZeroLengthReads) {
  // Empty sequence with an empty quality line, with no quality line at all,
  // and at the very end of the file.
  const std::string text = "@a\n\n+\n\n@b\nAC\n+\nII\n@c\n+\n@d\n\n+\n";
  EXPECT_EQ(read_all(write("z.fq", text)),
            (std::vector<Rec>{{"a", "", ""}, {"b", "AC", "II"}, {"c", "", ""}, {"d", "", ""}}));
  EXPECT_TRUE(fails_with(write("z2.fq", "@a\n\n+\nI\n"), "quality longer than sequence (1 vs 0)"));
}

TEST_F(ReaderTest, BlankLines) {
  EXPECT_EQ(read_all(write("t.fq", std::string(kFastq) + "\n\n\r\n")), kFastqRecs);  // trailing: fine
  EXPECT_EQ(read_all(write("l.fq", std::string("\n\n") + kFastq)), kFastqRecs);      // leading: fine
  const auto p = write("m.fq", "@a\nAC\n+\nII\n\n@b\nAC\n+\nII\n");
  EXPECT_TRUE(fails_with(p, "record 2 (line 6): blank line 5 between FASTQ records"));
}

TEST_F(ReaderTest, Gzip) {
  EXPECT_EQ(read_all(write_gz("a.fq.gz", kFastq)), kFastqRecs);
  // Detection is by content, never by name.
  EXPECT_EQ(read_all(write_gz("a.fq", kFastq)), kFastqRecs);
  EXPECT_EQ(read_all(write("plain.gz", kFastq)), kFastqRecs);
}

TEST_F(ReaderTest, MultiMemberGzip) {
  const std::string a = slurp(write_gz("a.gz", "@a\nAC\n+\nII\n@b\nGG"));  // member ends mid-record
  const std::string b = slurp(write_gz("b.gz", "\n+\nJJ\n"));
  const std::string e = slurp(write_gz("e.gz", ""));
  const auto p = write("ab.gz", a + e + b + e);
  EXPECT_EQ(read_all(p), (std::vector<Rec>{{"a", "AC", "II"}, {"b", "GG", "JJ"}}));
}

TEST_F(ReaderTest, Bgzf) {
  // Large enough for several BGZF blocks, with records crossing blocks.
  std::string text;
  std::vector<Rec> expect;
  for (int i = 0; i < 3000; ++i) {
    Rec r{"read" + std::to_string(i), std::string(50 + i % 40, "ACGT"[i % 4]), ""};
    r.qual = std::string(r.seq.size(), static_cast<char>('!' + i % 90));
    text += "@" + r.name + "\n" + r.seq + "\n+\n" + r.qual + "\n";
    expect.push_back(r);
  }
  const auto p = write_bgzf("a.bgz", text);
  EXPECT_SAME(read_all(p), expect);
  SequenceReader r(p);
  RecordBatch b;
  while (r.next_batch(b, 1 << 20)) {
  }
  EXPECT_EQ(r.raw_bytes_read(), r.raw_size());
  EXPECT_EQ(r.raw_size(), slurp(p).size());
}

// BGZF inflated on a pool of threads (htslib's bgzf_mt): the same records,
// the same byte count, and its damage refused as the reader's own inflater
// refuses it, naming the file.
TEST_F(ReaderTest, BgzfOnAPoolOfThreads) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "@r" + std::to_string(i) + "\nACGTACGTTGCA" + "ACGT"[i % 4] + "\n+\nIIIIIIIIIIIII\n";
  const auto p = write_bgzf("pool.bgz", text);
  EXPECT_SAME(read_all(p, 1 << 16, 1 << 20, 3), read_all(p));
  SequenceReader r(p, 3);
  RecordBatch b;
  while (r.next_batch(b, 1 << 20)) {
  }
  EXPECT_EQ(r.raw_bytes_read(), r.raw_size());
  const std::string bgz = slurp(p);
  EXPECT_TRUE(fails_with(write("noeof3.bgz", bgz.substr(0, bgz.size() - 28)), "end-of-file block is missing", 3));
  EXPECT_TRUE(fails_with(write("cut3.bgz", bgz.substr(0, bgz.size() / 2)), "truncated gzip input", 3))
      << "a cut file is read member by member, as on one thread";
  const std::string gz = slurp(write_gz("tail.gz", "@z\nACGT\n+\nIIII\n"));
  const auto mixed = write("mixed.gz", bgz + gz);  // BGZF, then a plain gzip member
  EXPECT_EQ(read_all(mixed, 1 << 20, 1 << 20, 3), read_all(mixed)) << "accepted whatever the threads";
  const size_t block = (static_cast<uint8_t>(bgz[16]) | static_cast<uint8_t>(bgz[17]) << 8) + 1;  // BSIZE + 1
  std::string bad = bgz;
  bad[block - 8] = static_cast<char>(bad[block - 8] ^ 0xff);  // the first block's CRC32
  EXPECT_TRUE(fails_with(write("crc3.bgz", bad), "corrupt BGZF data (a block's deflate data or CRC)", 3));
  bad = bgz;
  for (size_t i = 30; i < 60; ++i) bad[i] = static_cast<char>(0xff);  // deflate data
  EXPECT_TRUE(fails_with(write("data3.bgz", bad), "BGZF", 3));
  EXPECT_EQ(read_all(write("plain.fq", text), 1 << 20, 1 << 20, 3).size(), 20000u) << "plain text: no pool";
}

TEST_F(ReaderTest, TruncatedGzipThrows) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "@r" + std::to_string(i) + "\nACGTACGTTGCA\n+\nIIIIIIIIIIII\n";
  const std::string gz = slurp(write_gz("full.gz", text));
  const std::string bgz = slurp(write_bgzf("full.bgz", text));
  // Cut in half, inside the header, just before the trailer's last byte.
  for (size_t cut : {gz.size() / 2, size_t{5}, gz.size() - 1})
    EXPECT_TRUE(fails_with(write("cut.gz", gz.substr(0, cut)), "truncated gzip input")) << cut;
  // BGZF: mid block, and dropping the EOF block plus part of the last block.
  for (size_t cut : {bgz.size() / 2, bgz.size() - 28 - 3})
    EXPECT_TRUE(fails_with(write("cut.bgz", bgz.substr(0, cut)), "truncated gzip input")) << cut;
  // Cut exactly at a block end, only the missing EOF block tells: refused
  // too, since a cut at an earlier block end looks the same.
  EXPECT_TRUE(fails_with(write("noeof.bgz", bgz.substr(0, bgz.size() - 28)), "end-of-file block is missing"));
}

TEST_F(ReaderTest, CorruptGzipThrows) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += ">s" + std::to_string(i) + "\nACGTTGCAACGTAAAACCCGGGTTT\n";
  const std::string gz = slurp(write_gz("ok.gz", text));
  std::string bad = gz;
  bad[gz.size() - 6] = static_cast<char>(bad[gz.size() - 6] ^ 0xff);  // CRC32 in the trailer
  EXPECT_TRUE(fails_with(write("crc.gz", bad), "gzip CRC or length mismatch"));
  bad = gz;
  bad[gz.size() - 2] = static_cast<char>(bad[gz.size() - 2] ^ 0x01);  // ISIZE
  EXPECT_TRUE(fails_with(write("isize.gz", bad), "gzip CRC or length mismatch"));
  bad = gz;
  for (size_t i = 20; i < 40; ++i) bad[i] = static_cast<char>(0xff);  // deflate data
  EXPECT_TRUE(fails_with(write("data.gz", bad), "gzip"));
  bad = gz;
  bad[2] = 7;  // compression method
  EXPECT_TRUE(fails_with(write("method.gz", bad), "gzip"));
  EXPECT_TRUE(fails_with(write("garbage.gz", gz + "junk"), "trailing garbage after gzip member"));
  EXPECT_TRUE(fails_with(write("zeros.gz", gz + std::string(8, '\0')), "trailing garbage after gzip member"));
  EXPECT_TRUE(fails_with(write("onebyte.gz", gz + "\x1f"), "trailing garbage after gzip member"));
  EXPECT_TRUE(fails_with(write("magic.gz", std::string("\x1f\x8b")), "truncated gzip input"));
}

TEST_F(ReaderTest, NotFastaOrFastq) {
  EXPECT_TRUE(fails_with(write("n.txt", "\n\nhello\n"), "line 3: not FASTA or FASTQ (first character 'h')"));
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise += static_cast<char>((i * 7919 + 13) % 256);
  noise[0] = '\x01';
  EXPECT_TRUE(fails_with(write("noise.bin", noise), "not FASTA or FASTQ (first character '\\x01')"));
  EXPECT_TRUE(fails_with(write_gz("n.gz",
                                  "\x7f"
                                  "ELF"),
                         "not FASTA or FASTQ (first character '\\x7f')"));
  EXPECT_TRUE(fails_with(write("one.bin", "\x1f"), "first character '\\x1f'"));
}

TEST_F(ReaderTest, BadSequenceCharacters) {
  EXPECT_TRUE(fails_with(write("nul.fa", std::string(">a\nAC\n>b\nAC\nA\0GT\n", 17)),
                         "record 2 (line 5): invalid character '\\x00' in sequence (column 2)"));
  EXPECT_TRUE(fails_with(write("nul.fq", std::string("@a\nAC\0T\n+\nIIII\n", 15)),
                         "record 1 (line 2): invalid character '\\x00'"));
  EXPECT_TRUE(fails_with(write("digit.fa", ">a\nAC1\n"), "invalid character '1' in sequence"));
  EXPECT_TRUE(fails_with(write("space.fa", ">a\nAC GT\n"), "invalid character ' ' in sequence"));
  EXPECT_TRUE(fails_with(write("tab.fq", "@a\nAC\tG\n+\nIIII\n"), "invalid character '\\x09' in sequence"));
  EXPECT_TRUE(fails_with(write("cr.fa", ">a\nAC\rGT\n"), "invalid character '\\x0d'"));
  EXPECT_TRUE(fails_with(write("hi.fa", ">a\nAC\xc3\xa9\n"), "invalid character '\\xc3'"));
}

TEST_F(ReaderTest, FastqErrors) {
  EXPECT_TRUE(fails_with(write("t1.fq", "@a\nACGT"), "record 1 (line 2): truncated record"));
  EXPECT_TRUE(fails_with(write("t2.fq", "@a\nACGT\n+\n"), "truncated record (quality shorter than sequence: 0 vs 4)"));
  EXPECT_TRUE(
      fails_with(write("t3.fq", "@a\nACGT\n+\nII"), "truncated record (quality shorter than sequence: 2 vs 4)"));
  EXPECT_TRUE(fails_with(write("t4.fq", "@a"), "truncated record"));
  EXPECT_TRUE(fails_with(write("long.fq", "@a\nACGT\n+\nIIIII\n"), "quality longer than sequence (5 vs 4)"));
  EXPECT_TRUE(fails_with(write("short.fq", "@a\nACGT\n+\nIII\n@b\nAC\n+\nII\n"),
                         "record 1 (line 5): quality shorter than sequence (3 vs 4)"));
  EXPECT_TRUE(fails_with(write("title.fq", "@a\nACGT\n+b\nIIII\n"),
                         "record 1 (line 3): quality title differs from sequence title"));
  EXPECT_TRUE(fails_with(write("qual.fq", "@a\nACGT\n+\nII I\n"), "invalid character ' ' in quality (column 3)"));
  EXPECT_TRUE(fails_with(write("del.fq", "@a\nACGT\n+\nII\x7fI\n"), "invalid character '\\x7f' in quality"));
  EXPECT_TRUE(fails_with(write("fa.fq", "@a\nACGT\n+\nIIII\n>b\nAC\n"),
                         "record 2 (line 5): expected '@' at start of FASTQ record, found '>'"));
  EXPECT_TRUE(fails_with(write("plus.fq", "@a\nACGT\n+\nIIII\n+\nIIII\n"), "record 2 (line 5): expected '@'"));
  EXPECT_TRUE(fails_with(write("seq.fq", "@a\nACGT\n@a\nACGT\n+\nIIII\n"),
                         "record 1 (line 3): invalid character '@' in sequence"));
}

TEST_F(ReaderTest, ErrorIsSticky) {
  const auto p = write("e.fq", "@a\nAC\n+\nII\n@b\nA!\n+\nII\n@c\nAC\n+\nII\n");
  SequenceReader r(p);
  RecordBatch b;
  ASSERT_TRUE(r.next_batch(b, 1));
  EXPECT_EQ(b.name(0), "a");
  for (int i = 0; i < 2; ++i) {
    try {
      r.next_batch(b, 1);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), p + ": record 2 (line 6): invalid character '!' in sequence (column 2)");
    }
    EXPECT_EQ(b.size(), 0u);
  }
}

TEST_F(ReaderTest, OpenErrors) {
  EXPECT_THROW(SequenceReader{path("missing.fq")}, InputError);
  try {
    SequenceReader r(path("missing.fq"));
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path("missing.fq") + ": cannot open: No such file or directory");
  }
  try {
    SequenceReader r(dir_);
    ADD_FAILURE() << "directory accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir_ + ": is a directory");
  }
  try {
    SequenceReader r("");
    ADD_FAILURE() << "empty path accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "(empty path): cannot open: No such file or directory");
  }
  if (geteuid() != 0) {  // root reads anything
    const auto p = write("secret.fq", kFastq);
    chmod(p.c_str(), 0);
    EXPECT_THROW(SequenceReader{p}, InputError);
  }
}

TEST_F(ReaderTest, RawSizeAndProgress) {
  const auto p = write_gz("a.gz", kFastq);
  SequenceReader r(p);
  EXPECT_EQ(r.path(), p);
  EXPECT_EQ(r.raw_size(), slurp(p).size());
  RecordBatch b;
  while (r.next_batch(b, 1)) {
  }
  EXPECT_EQ(r.raw_bytes_read(), r.raw_size());
}

TEST_F(ReaderTest, BatchesKeepEveryRecordOnce) {
  // Long enough to cross the 4 MiB parse buffer several times, with lines of
  // varied length, records of several lines and a line longer than the buffer.
  std::string fa, fq;
  std::vector<Rec> expect_fa, expect_fq;
  uint64_t seed = 42;
  auto rnd = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  for (int i = 0; i < 25000; ++i) {
    Rec r{"s" + std::to_string(i), "", ""};
    const size_t len = i == 777 ? (5u << 20) : rnd(400);
    for (size_t j = 0; j < len; ++j) r.seq += "ACGTN"[rnd(5)];
    r.qual = std::string(len, 'F');
    fa += ">" + r.name + "\n";
    for (size_t j = 0; j < len; j += 60) fa += r.seq.substr(j, 60) + "\n";
    fq += "@" + r.name + "\n" + r.seq + "\n+\n" + r.qual + "\n";
    expect_fq.push_back(r);
    r.qual.clear();
    expect_fa.push_back(r);
  }
  const auto pa = write("big.fa", fa);
  const auto pq = write_gz("big.fq.gz", fq, 1);
  for (uint64_t target : {uint64_t{0}, uint64_t{1000}, uint64_t{1} << 22}) {
    EXPECT_SAME(read_all(pa, target), expect_fa) << target;
    EXPECT_SAME(read_all(pq, target), expect_fq) << target;
  }
  EXPECT_SAME(read_all(pq, 1 << 30, 7), expect_fq);  // max_records bounds the batch

  SequenceReader r(pq);
  RecordBatch b;
  ASSERT_TRUE(r.next_batch(b, 1000));
  EXPECT_GE(b.bases, 1000u);
  EXPECT_LT(b.bases - b.records.back().seq_len, 1000u);  // stops at the first record reaching the target
  ASSERT_TRUE(r.next_batch(b, 0));
  EXPECT_EQ(b.size(), 1u);  // at least one record per batch
  ASSERT_TRUE(r.next_batch(b, 1 << 30, 3));
  EXPECT_EQ(b.size(), 3u);
}


// Reads p with pieces of `piece` bases overlapping by `overlap`, joins the
// pieces of each read again, and checks what a batch may hold: no piece over
// `piece` bases, no batch over target + piece, pieces after the first
// starting with the last `overlap` bases of the one before.
std::vector<std::string> read_in_pieces(const std::string& p, uint64_t piece, uint32_t overlap, uint64_t target,
                                        size_t* pieces = nullptr) {
  SequenceReader r(p);
  r.set_pieces(piece, overlap);
  RecordBatch b;
  b.keep_quality = false;
  std::vector<std::string> reads;
  std::string name;
  while (r.next_batch(b, target)) {
    EXPECT_LE(b.bases, target + piece);
    EXPECT_EQ(b.overlap, overlap);
    for (size_t i = 0; i < b.size(); ++i) {
      const std::string_view seq = b.seq(i);
      EXPECT_LE(seq.size(), piece);
      if (pieces) ++*pieces;
      if (b.starts_read(i)) {
        reads.emplace_back(seq);
        name = b.name(i);
        continue;
      }
      EXPECT_FALSE(reads.empty());
      if (reads.empty()) continue;
      std::string& read = reads.back();
      EXPECT_EQ(b.name(i), name);  // a piece keeps its read's name
      EXPECT_EQ(std::string_view(read).substr(read.size() - overlap), seq.substr(0, overlap));
      read += b.new_bases(i);
    }
  }
  return reads;
}

std::vector<std::string> seqs(const std::vector<Rec>& recs) {
  std::vector<std::string> s;
  for (const Rec& r : recs) s.push_back(r.seq);
  return s;
}

TEST_F(ReaderTest, PiecesJoinIntoTheRecords) {
  // Small pieces cut inside lines, across lines and at a record's last base.
  for (const std::string& text : {std::string(kFastq), std::string(">s1 d\nACGTACGTAC\nGTNNAC\r\n\n>s2\n>s3\nACGTACGTACGT\n")}) {
    const auto p = write("small", text);
    const auto whole = seqs(read_all(p));
    for (uint64_t piece : {3, 4, 5, 12}) {
      for (uint64_t target : {0, 7, 100}) {
        size_t pieces = 0;
        EXPECT_SAME(read_in_pieces(p, piece, 2, target, &pieces), whole) << piece << " " << target;
        EXPECT_GE(pieces, whole.size());
      }
    }
  }
  EXPECT_THROW(SequenceReader(write("x.fa", ">a\n")).set_pieces(4, 4), std::invalid_argument);
}

TEST_F(ReaderTest, PiecesOfLinesLongerThanTheBuffer) {
  // Lines of several MiB, longer than the 1 MiB read buffer: a genome as one
  // FASTA line (CRLF, trailing blanks), a long read as FASTQ whose quality line
  // starts with '+' and '@', short records around them; plain and gzip.
  uint64_t seed = 7;
  auto bases = [&seed](size_t n) {
    std::string s(n, 'A');
    for (char& c : s) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      c = "ACGTNacgt"[(seed >> 33) % 9];
    }
    return s;
  };
  const std::string genome = bases(3'000'001), read = bases(2'500'000), wrapped = bases(100'000);
  std::string fa = ">short\nACGT\n>genome\r\n" + genome + " \t\r\n>wrapped\n";
  for (size_t j = 0; j < wrapped.size(); j += 61) fa += wrapped.substr(j, 61) + "\n";
  fa += ">last\nGATTACA";
  std::string qual(read.size(), 'F');
  qual[0] = '+';
  qual[1u << 20] = '@';
  const std::string fq = "@a\nACGT\n+\nIIII\n@long\n" + read + "\n+long\n" + qual + "\n@b\nTT\n+\nII\n";
  const std::vector<std::string> want_fa = {"ACGT", genome, wrapped, "GATTACA"}, want_fq = {"ACGT", read, "TT"};
  for (const auto& p : {write("g.fa", fa), write_gz("g.fa.gz", fa, 1)}) {
    EXPECT_SAME(seqs(read_all(p)), want_fa);
    for (uint64_t piece : {uint64_t{1} << 17, uint64_t{1} << 22})
      EXPECT_SAME(read_in_pieces(p, piece, 30, 1 << 19), want_fa);
  }
  for (const auto& p : {write("r.fq", fq), write_gz("r.fq.gz", fq, 1)}) {
    EXPECT_SAME(seqs(read_all(p)), want_fq);
    EXPECT_SAME(read_in_pieces(p, 1 << 17, 254, 1 << 19), want_fq);
  }
}

TEST_F(ReaderTest, PiecesReportErrorsAtTheirColumn) {
  std::string line(3'000'000, 'C');
  line[2'000'000] = '!';
  const auto p = write("bad.fa", ">x\n" + line + "\n");
  for (const uint64_t piece : {uint64_t{0}, uint64_t{1} << 16}) {
    try {
      read_in_pieces(p, piece, 30, 1 << 19);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("record 1 (line 2): invalid character '!' in sequence (column 2000001)"),
                std::string::npos)
          << e.what();
    }
  }
  const std::string seq(3'000'000, 'A');
  const auto q = write("short.fq", "@x\n" + seq + "\n+\n" + std::string(seq.size() - 1, 'I') + "\n");
  const std::string want = "short.fq: record 1 (line 4): truncated record (quality shorter than sequence: 2999999 vs 3000000)";
  EXPECT_TRUE(fails_with(q, want));
  try {
    read_in_pieces(q, 1 << 16, 30, 1 << 19);
    ADD_FAILURE() << "accepted in pieces";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kmerbloom
