// The FASTQ conformance corpus of Cock et al. (NAR 2010), as kept by Biopython
// (test/data/fastq-conformance/), read through SequenceReader: every file in
// the folder is checked.
//
// Choice documented here: error_qual_*, error_spaces and error_tabs are
// refused (quality characters must be '!'..'~', sequence characters letters or
// "-.*"), although a k-mer tool could ignore qualities. A file that breaks the
// quality alphabet is more likely damaged than merely unusual.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "seqio/reader.hpp"

namespace kmerbloom {
namespace {

namespace fs = std::filesystem;

// In the repository (test/data/), so a missing corpus is a failure, not a skip.
const fs::path kCorpus = fs::path(KMERBLOOM_TEST_DATA) / "fastq-conformance";

struct Rec {
  std::string name, seq, qual;
  bool operator==(const Rec&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Rec& r) {
  return os << "{" << r.name << "|" << r.seq << "|" << r.qual << "}";
}

std::vector<Rec> read_all(const fs::path& p) {
  SequenceReader r(p.string());
  RecordBatch b;
  std::vector<Rec> out;
  while (r.next_batch(b, 100)) {  // small batches: exercise the batch boundaries too
    for (size_t i = 0; i < b.size(); ++i)
      out.push_back({std::string(b.name(i)), std::string(b.seq(i)), std::string(b.qual(i))});
  }
  return out;
}

// Independent oracle: the whole file as lines, parsed the way Biopython's
// FastqGeneralIterator does (quality lines are read until the quality is as
// long as the sequence), or as simple FASTA. Valid plain-text files only.
std::vector<Rec> oracle(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(l);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::vector<Rec> out;
  size_t i = 0;
  if (p.extension() == ".fasta") {
    for (; i < lines.size(); ++i) {
      if (lines[i].starts_with('>'))
        out.push_back({lines[i].substr(1), "", ""});
      else
        out.back().seq += lines[i];
    }
    return out;
  }
  while (i < lines.size()) {
    Rec r{lines[i++].substr(1), "", ""};
    while (!lines.at(i).starts_with('+')) r.seq += lines[i++];
    ++i;
    if (!r.seq.empty() || (i < lines.size() && lines[i].empty())) r.qual += lines.at(i++);
    while (r.qual.size() < r.seq.size()) r.qual += lines.at(i++);
    out.push_back(r);
  }
  return out;
}

std::vector<std::string> names_and_seqs(const std::vector<Rec>& v) {
  std::vector<std::string> out;
  for (const auto& r : v) out.push_back(r.name + "\t" + r.seq);
  return out;
}

// The message of the InputError for p, or "" when p parses.
std::string error_of(const fs::path& p) {
  try {
    read_all(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// What each malformed file is refused for (an error_* file missing here only
// has to be refused with the file and a record named).
const std::map<std::string, std::string> kErrors = {
    {"error_diff_ids.fastq", "record 3 (line 11): quality title differs from sequence title"},
    {"error_double_qual.fastq", "record 4 (line 13): expected '@' at start of FASTQ record, found '+'"},
    {"error_double_seq.fastq", "record 4 (line 15): invalid character '@' in sequence"},
    {"error_long_qual.fastq", "record 4 (line 16): quality longer than sequence (26 vs 25)"},
    {"error_no_qual.fastq", "record 1 (line 5): quality shorter than sequence (0 vs 25)"},
    {"error_qual_del.fastq", "record 4 (line 16): invalid character '\\x7f' in quality"},
    {"error_qual_escape.fastq", "record 5 (line 20): invalid character '\\x1b' in quality"},
    {"error_qual_null.fastq", "record 1 (line 4): invalid character '\\x00' in quality"},
    {"error_qual_space.fastq", "record 4 (line 16): invalid character ' ' in quality"},
    {"error_qual_tab.fastq", "record 5 (line 20): invalid character '\\x09' in quality"},
    {"error_qual_unit_sep.fastq", "record 3 (line 12): invalid character '\\x1f' in quality"},
    {"error_qual_vtab.fastq", "record 1 (line 4): invalid character '\\x0b' in quality"},
    {"error_short_qual.fastq", "record 3 (line 13): quality shorter than sequence (24 vs 25)"},
    {"error_spaces.fastq", "record 1 (line 2): invalid character ' ' in sequence"},
    {"error_tabs.fastq", "record 1 (line 2): invalid character '\\x09' in sequence"},
    {"error_trunc_at_plus.fastq", "record 5 (line 19): truncated record"},
    {"error_trunc_at_qual.fastq", "record 5 (line 19): truncated record"},
    {"error_trunc_at_seq.fastq", "record 5 (line 18): truncated record"},
    {"error_trunc_in_plus.fastq", "record 5 (line 19): truncated record"},
    {"error_trunc_in_qual.fastq", "record 5 (line 20): truncated record"},
    {"error_trunc_in_seq.fastq", "record 5 (line 18): truncated record"},
    {"error_trunc_in_title.fastq", "record 5 (line 17): truncated record"},
};

// Record counts, fixed by looking at the files.
const std::map<std::string, size_t> kCounts = {
    {"example.fastq", 3},
    {"example.fasta", 3},
    {"tricky.fastq", 4},
    {"zero_length.fastq", 5},
    {"sanger_93.fastq", 1},
    {"solexa_example.fastq", 5},
    {"illumina_faked.fastq", 1},
    {"sanger_faked.fastq", 1},
    {"solexa_faked.fastq", 1},
    {"longreads_original_sanger.fastq", 10},
    {"wrapping_original_sanger.fastq", 3},
    {"misc_dna_original_sanger.fastq", 4},
    {"misc_rna_original_sanger.fastq", 4},
};

bool compressed(const fs::path& p) { return p.extension() == ".gz" || p.extension() == ".bgz"; }

class Conformance : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::is_directory(kCorpus)) << "corpus not found: " << kCorpus;
  }
  static std::vector<fs::path> files() {
    std::vector<fs::path> v;
    for (const auto& e : fs::directory_iterator(kCorpus))
      if (e.is_regular_file()) v.push_back(e.path());
    std::sort(v.begin(), v.end());
    return v;
  }
};

TEST_F(Conformance, EveryFile) {
  size_t n_errors = 0, n_valid = 0;
  for (const auto& p : files()) {
    const std::string name = p.filename().string();
    SCOPED_TRACE(name);
    if (name == "README.md" || name == "LICENSE.rst") continue;  // documentation
    if (name.starts_with("error_")) {
      ++n_errors;
      const std::string msg = error_of(p);
      ASSERT_FALSE(msg.empty()) << "accepted";
      EXPECT_TRUE(msg.starts_with(p.string() + ": record ")) << msg;
      if (auto it = kErrors.find(name); it != kErrors.end()) {
        EXPECT_NE(msg.find(it->second), std::string::npos) << msg;
      }
    } else if (name == "example.qual") {
      // QUAL holds numbers, not bases: refused as FASTA with a bad character.
      EXPECT_EQ(error_of(p), p.string() + ": record 1 (line 2): invalid character '2' in sequence (column 1)");
    } else if (p.extension() == ".fastq" || p.extension() == ".fasta" || compressed(p)) {
      ++n_valid;
      std::vector<Rec> got;
      ASSERT_NO_THROW(got = read_all(p));
      fs::path plain = p;
      if (compressed(p)) plain.replace_extension();  // example.fastq.gz -> example.fastq
      ASSERT_TRUE(fs::exists(plain)) << plain;
      EXPECT_EQ(got, oracle(plain));
      if (auto it = kCounts.find(plain.filename().string()); it != kCounts.end()) {
        EXPECT_EQ(got.size(), it->second);
      }
      EXPECT_FALSE(got.empty());
      for (const auto& r : got) {
        if (p.extension() != ".fasta") {
          EXPECT_EQ(r.qual.size(), r.seq.size());
        }
      }
    } else {
      ADD_FAILURE() << "unexpected file in the corpus; add a rule for it";
    }
  }
  EXPECT_GE(n_errors, kErrors.size());
  EXPECT_GE(n_valid, 40u);
}

TEST_F(Conformance, SameContentAcrossVariants) {
  const auto ex = read_all(kCorpus / "example.fastq");
  EXPECT_EQ(read_all(kCorpus / "example_dos.fastq"), ex);
  EXPECT_EQ(read_all(kCorpus / "example.fastq.gz"), ex);
  EXPECT_EQ(read_all(kCorpus / "example.fastq.bgz"), ex);
  EXPECT_EQ(read_all(kCorpus / "example_dos.fastq.bgz"), ex);
  EXPECT_EQ(names_and_seqs(read_all(kCorpus / "example.fasta")), names_and_seqs(ex));
  EXPECT_EQ(ex[0], (Rec{"EAS54_6_R1_2_1_413_324", "CCCTTCTTGTCTTCAGCGTTTCTCC", ";;3;;;;;;;;;;;;7;;;;;;;88"}));

  // A family's "original" file (often wrapped) and its "as_<encoding>"
  // conversions (four-line) hold the same reads; qualities agree when the
  // encoding is the same. The reader does not touch case or U.
  size_t families = 0;
  for (const auto& p : files()) {
    const std::string name = p.filename().string();
    const auto at = name.find("_original_");
    if (at == std::string::npos) continue;
    ++families;
    SCOPED_TRACE(name);
    const std::string family = name.substr(0, at);
    const std::string encoding = name.substr(at + 10);  // "sanger.fastq"
    const auto orig = read_all(p);
    size_t variants = 0;
    for (const auto& q : files()) {
      const std::string other = q.filename().string();
      if (!other.starts_with(family + "_as_")) continue;
      ++variants;
      SCOPED_TRACE(other);
      const auto conv = read_all(q);
      EXPECT_EQ(names_and_seqs(conv), names_and_seqs(orig));
      if (other == family + "_as_" + encoding) {
        EXPECT_EQ(conv, orig);
      }
    }
    EXPECT_EQ(variants, 3u);
  }
  EXPECT_EQ(families, 7u);

  const auto rna = read_all(kCorpus / "misc_rna_original_sanger.fastq");
  EXPECT_NE(rna[1].seq.find('U'), std::string::npos);
  EXPECT_NE(rna[1].seq.find('c'), std::string::npos);
  const auto tricky = read_all(kCorpus / "tricky.fastq");
  ASSERT_EQ(tricky.size(), 4u);
  EXPECT_EQ(tricky[1].qual, "@IIIIIIIIIIIIIIICDIIIII<%<6&-*).(*%+");
  EXPECT_EQ(tricky[3].seq, "TGGGAGGTTTTATGTGGAAAGCAGCAATGTACAAGA");
  EXPECT_EQ(tricky[3].qual, "IIIIIII.IIIIII1@44@-7.%<&+/$/%4(++(%");
  const auto zero = read_all(kCorpus / "zero_length.fastq");
  ASSERT_EQ(zero.size(), 5u);
  EXPECT_EQ(zero[2], (Rec{"EMWLCP001DHOHL", "", ""}));
}

}  // namespace
}  // namespace kmerbloom
