// Streaming FASTA/FASTQ parser over ByteSource (see reader.hpp for the
// accepted syntax). Lines are found with memchr in one large decompressed
// buffer; each line is validated and appended to the batch arena right away,
// so only an incomplete last line is ever moved and no record is allocated.
#include "seqio/reader.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include "seqio/decompress.hpp"
#include "common/format.hpp"

namespace kmerbloom {
namespace {

// Decompressed bytes per refill; the buffer grows only for longer lines.
constexpr size_t kBufSize = size_t{1} << 20;
constexpr uint64_t kMaxLen = std::numeric_limits<uint32_t>::max();  // Record lengths are 32-bit

std::string show_char(unsigned char c) {
  char s[8];
  if (c >= 0x20 && c < 0x7f)
    std::snprintf(s, sizeof s, "'%c'", c);
  else
    std::snprintf(s, sizeof s, "'\\x%02x'", c);
  return s;
}

// Sequence alphabet: letters (IUPAC codes, U, any case), gap '-' and '.',
// stop '*'. Written without early exit so that GCC vectorises it; the slow
// search for the offending byte runs only on error.
inline bool is_seq_char(unsigned char c) {
  return static_cast<unsigned char>((c | 0x20) - 'a') < 26 || c == '-' || c == '.' || c == '*';
}
bool seq_ok(std::string_view s) {
  unsigned char bad = 0;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    bad |= static_cast<unsigned char>(static_cast<unsigned char>((c | 0x20) - 'a') > 25 && c != '-' && c != '.' &&
                                      c != '*');
  }
  return bad == 0;
}

// Quality alphabet: printable ASCII '!'..'~' (Phred+33 and the old +64
// variants all fall inside). Space, tab and control characters are refused:
// the conformance corpus treats them as errors and so do we.
inline bool is_qual_char(unsigned char c) { return static_cast<unsigned char>(c - 33) < 94; }
bool qual_ok(std::string_view s) {
  unsigned char bad = 0;
  for (const char ch : s) bad |= static_cast<unsigned char>(static_cast<unsigned char>(ch - 33) > 93);
  return bad == 0;
}

}  // namespace

struct SequenceReader::Impl {
  std::string path;
  std::string display;  // name in messages: the path, "<stdin>" for "-"
  detail::ByteSource src;

  std::unique_ptr<char[]> buf;
  size_t cap = kBufSize;
  size_t pos = 0;   // start of the unread text
  size_t end = 0;   // end of the valid text
  size_t scan = 0;  // memchr resumes here (bytes before it hold no '\n')
  bool src_eof = false;

  std::string_view line;      // current line, without "\n" / "\r\n"
  bool pending = false;       // next_line() returns `line` again
  bool unterminated = false;  // `line` ended at end of input without '\n'
  uint64_t line_no = 0;       // 1-based number of `line`
  // With pieces, a sequence or quality line longer than half the buffer comes
  // in parts: `line` is then a part, `line_start` false for all but the first.
  bool line_start = true;
  bool line_open = false;     // the line goes on in the next part
  uint64_t col = 0;           // 0-based column of line[0] in its line
  uint64_t next_col = 0;

  // Pieces (set_pieces): the record being cut, carried from one batch to the next.
  uint64_t piece_bases = 0;   // 0: whole records
  uint32_t overlap = 0;
  struct Open {
    bool active = false;
    uint32_t piece = 0;       // the next piece's number
    uint64_t bases = 0;       // sequence bases in the pieces so far, each once
    uint64_t line = 0;        // the header's line
    std::string name, tail;   // tail: the last `overlap` bases of the last piece
  } open;

  uint64_t records = 0;  // records started in this file (the current one included)
  SeqFormat fmt = SeqFormat::unknown;
  bool finished = false;
  std::string error;  // after an InputError the reader only repeats it

  Impl(const std::string& p, const std::string& d, unsigned inflate_threads)
      : path(p), display(d), src(p, d, inflate_threads) {
    // A small plain file gets a buffer its size: reading many small files
    // (or one file many times, as the fuzz target does) costs no 1 MiB each.
    if (!src.gzip() && src.raw_size() > 0 && src.raw_size() < kBufSize)
      cap = std::max<size_t>(4096, std::bit_ceil(static_cast<size_t>(src.raw_size()) + 1));
    buf = std::make_unique_for_overwrite<char[]>(cap);
  }

  [[noreturn]] void fail_at(uint64_t line_number, const std::string& what) const {
    throw InputError(display + ": record " + std::to_string(records) + " (line " + std::to_string(line_number) +
                     "): " + what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(line_no, what); }

  void refill() {
    const size_t tail = end - pos;
    if (pos > 0) {
      std::memmove(buf.get(), buf.get() + pos, tail);
      pos = 0;
      end = tail;
    }
    if (end == cap) {  // one line fills the whole buffer: grow
      if (cap > kMaxLen) fail_at(line_no + 1, "line longer than 4 GiB");
      auto bigger = std::make_unique_for_overwrite<char[]>(cap * 2);
      std::memcpy(bigger.get(), buf.get(), end);
      buf = std::move(bigger);
      cap *= 2;
    }
    scan = end;
    const size_t n = src.read(buf.get() + end, cap - end);
    if (n == 0) src_eof = true;
    end += n;
  }

  // Advances to the next line; false at end of input. A last line without a
  // newline still counts as a line.
  // A line that may come in parts (with pieces only): never a title line,
  // whose first character says what it is.
  enum Split { whole_lines, sequence_lines, quality_lines };
  bool next_line(Split how = whole_lines) {
    if (pending) {
      pending = false;
      return true;
    }
    const bool split = how != whole_lines && piece_bases;
    for (;;) {
      const char* base = buf.get();
      const auto* nl = static_cast<const char*>(std::memchr(base + scan, '\n', end - scan));
      size_t stop;
      bool whole = true;
      if (nl) {
        stop = static_cast<size_t>(nl - base);
        scan = stop + 1;
      } else if (src_eof) {
        if (pos == end) return false;
        stop = scan = end;
        unterminated = true;
      } else if (split && end - pos >= cap / 2 &&
                 (line_open || how == quality_lines || (base[pos] != '>' && base[pos] != '+'))) {
        // A part: a '\r' or blanks at its end wait for the next part, where
        // the line's real end decides what they are.
        stop = end;
        while (stop > pos + 1 && (base[stop - 1] == '\r' || base[stop - 1] == ' ' || base[stop - 1] == '\t')) --stop;
        scan = stop;
        whole = false;
      } else {
        refill();
        continue;
      }
      size_t len = stop - pos;
      if (whole && len > 0 && base[pos + len - 1] == '\r') --len;
      line = std::string_view(base + pos, len);
      pos = scan;
      line_start = !line_open;
      line_open = !whole;
      if (line_start) ++line_no;
      col = line_start ? 0 : next_col;
      next_col = col + len;
      return true;
    }
  }

  // Gives back the last n bytes of `line`: the next call returns them as the
  // line's next part.
  void unread(size_t n) {
    pos = scan = static_cast<size_t>(line.data() + line.size() - n - buf.get());
    next_col = col + line.size() - n;
    line_open = true;
    line.remove_suffix(n);
  }

  void check_seq(std::string_view s) const {
    if (seq_ok(s)) return;
    const auto* it =
        std::find_if(s.begin(), s.end(), [](char c) { return !is_seq_char(static_cast<unsigned char>(c)); });
    fail("invalid character " + show_char(static_cast<unsigned char>(*it)) + " in sequence (column " +
         std::to_string(col + (it - s.begin()) + 1) + ")");
  }
  void check_qual(std::string_view s) const {
    if (qual_ok(s)) return;
    const auto* it =
        std::find_if(s.begin(), s.end(), [](char c) { return !is_qual_char(static_cast<unsigned char>(c)); });
    fail("invalid character " + show_char(static_cast<unsigned char>(*it)) + " in quality (column " +
         std::to_string(col + (it - s.begin()) + 1) + "); allowed are '!'..'~'");
  }

  // Lines end at '\n' (a '\r' before it is dropped). A '\r' followed by
  // anything else in the first buffer means the file ends its lines with
  // '\r' alone (classic Mac OS): refused by name rather than read as one
  // huge line.
  void refuse_cr_only() {
    if (end == pos && !src_eof) refill();
    const char* b = buf.get() + pos;
    const size_t n = end - pos;
    if (n == 0 || (b[0] != '>' && b[0] != '@')) return;  // not text of ours: detect() names its first character
    const auto* nl = static_cast<const char*>(std::memchr(b, '\n', n));
    const auto* cr = static_cast<const char*>(std::memchr(b, '\r', nl ? static_cast<size_t>(nl - b) : n));
    if (!cr || cr + 1 == b + n || cr[1] == '\n') return;
    throw InputError(display + ": line 1: lines end in a carriage return alone (CR, classic Mac OS line ends); " +
                     "convert them to LF first, e.g. tr '\\r' '\\n' < IN > OUT");
  }

  // The files of kmerbloom's other formats are named for what they are
  // rather than parsed as text (whose first error would mislead).
  void refuse_own_formats() {
    if (end == pos && !src_eof) refill();
    const std::string_view head(buf.get() + pos, std::min<size_t>(end - pos, 64));
    struct Kind {
      std::string_view magic;
      const char* what;
      const char* way_out;
    };
    static constexpr const char* kSamtools = "; give its reads: samtools fastq IN > reads.fq";
    static constexpr Kind kKinds[] = {
        {"KFF", "a KFF file of k-mer counts (merge-counts and query --kmers read it)", ""},
        {"KMERBINS", "a bin file of kmerbloom bin (count reads it from a named file, not a stream)", ""},
        {std::string_view("KMBLOOM\0", 8), "a filter file of kmerbloom build (query, merge and info read it)", ""},
        // Aligned reads: their sequences come out with samtools.
        {std::string_view("BAM\1", 4), "a BAM file (aligned reads)", kSamtools},
        {"CRAM", "a CRAM file (aligned reads)", kSamtools},
        {"@HD\t", "a SAM file (aligned reads)", kSamtools},
        {"@SQ\t", "a SAM file (aligned reads)", kSamtools},
        {"@PG\t", "a SAM file (aligned reads)", kSamtools},
    };
    for (const auto& k : kKinds)
      if (head.starts_with(k.magic))
        throw InputError(display + ": " + k.what + ", not FASTA or FASTQ reads" + k.way_out);
  }

  // Format from the first character of the first non-blank line.
  void detect() {
    refuse_own_formats();
    refuse_cr_only();
    do {
      if (!next_line()) {
        finished = true;  // empty input: zero records
        return;
      }
    } while (line.empty());
    const auto c = static_cast<unsigned char>(line[0]);
    if (c == '>')
      fmt = SeqFormat::fasta;
    else if (c == '@')
      fmt = SeqFormat::fastq;
    else
      throw InputError(display + ": line " + std::to_string(line_no) + ": not FASTA or FASTQ (first character " +
                       show_char(c) + ")");
    pending = true;
  }

  static uint32_t len32(size_t n) { return static_cast<uint32_t>(n); }
  void check_len(size_t n, const char* what) const {
    if (n > kMaxLen) fail(std::string(what) + " longer than 4 GiB");
  }

  // A record whose header is the current line ('>' or '@' and the name):
  // the name goes to the arena, the sequence starts after it.
  RecordBatch::Record begin_record(std::string& a) {
    RecordBatch::Record r{};
    r.name_off = a.size();
    r.name_len = len32(line.size() - 1);
    r.line = line_no;
    a.append(line.data() + 1, line.size() - 1);
    r.seq_off = a.size();
    return r;
  }

  // The next piece of the record cut at the end of the last one: its name
  // again, then the last `overlap` bases of that piece.
  RecordBatch::Record resume_record(std::string& a) {
    RecordBatch::Record r{};
    r.name_off = a.size();
    r.name_len = len32(open.name.size());
    r.line = open.line;
    r.piece = open.piece;
    a += open.name;
    r.seq_off = a.size();
    a += open.tail;
    open.active = false;
    return r;
  }

  // Appends sequence to the record r; false when its piece is full, the
  // bases that did not fit given back to the next piece.
  bool append_seq(std::string& a, const RecordBatch::Record& r) {
    const uint64_t held = a.size() - r.seq_off;
    if (!piece_bases || held + line.size() <= piece_bases) {
      a.append(line);
      return true;
    }
    const size_t fit = static_cast<size_t>(piece_bases - held);
    a.append(line.data(), fit);
    unread(line.size() - fit);
    return false;
  }

  // Ends the piece r of a record that goes on: the next call resumes it.
  void cut_piece(RecordBatch& b, RecordBatch::Record& r) {
    std::string& a = b.arena;
    const size_t len = a.size() - r.seq_off;
    r.seq_len = len32(len);
    r.qual_off = a.size();
    if (r.piece == 0) {
      open.name.assign(a, r.name_off, r.name_len);
      open.line = r.line;
      open.bases = 0;
    }
    open.bases += len - (r.piece ? overlap : 0);
    open.tail.assign(a, a.size() - overlap, overlap);
    open.piece = std::max<uint32_t>(r.piece + 1, 1);  // saturates: any piece after the first is > 0
    open.active = true;
    b.records.push_back(r);
    b.bases += len;
  }

  // Each reader appends one record to b, or returns false at end of input.
  bool read_fasta(RecordBatch& b) {
    std::string& a = b.arena;
    RecordBatch::Record r;
    if (open.active) {
      r = resume_record(a);
    } else {
      if (!next_line()) return false;
      ++records;
      // Blank lines are skipped before '>' lines are handed back, so this holds
      // for every record; checked anyway to keep the invariant local.
      if (line.empty() || line[0] != '>') fail("expected '>' at start of FASTA record");
      r = begin_record(a);
    }
    while (next_line(sequence_lines)) {
      if (line.empty()) continue;
      if (line_start && line[0] == '>') {
        pending = true;
        break;
      }
      // Spaces and tabs at the end of a FASTA sequence line are left over
      // from editors and line wrapping: skipped, as Biopython and seqkit do.
      // (Inside a FASTQ sequence they stay an error.)
      if (!line_open)
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      check_seq(line);
      if (!append_seq(a, r)) {
        cut_piece(b, r);
        return true;
      }
    }
    const size_t seq_len = a.size() - r.seq_off;
    check_len(seq_len, "sequence");
    r.seq_len = len32(seq_len);
    r.qual_off = a.size();
    b.records.push_back(r);
    b.bases += seq_len;
    return true;
  }

  bool read_fastq(RecordBatch& b) {
    if (open.active) return read_fastq_body(b, resume_record(b.arena));
    if (!next_line()) return false;
    if (line.empty()) {
      // Blank lines may only trail the last record.
      const uint64_t blank = line_no;
      while (next_line())
        if (!line.empty()) {
          ++records;
          fail("blank line " + std::to_string(blank) + " between FASTQ records");
        }
      return false;
    }
    ++records;
    if (line[0] != '@')
      fail("expected '@' at start of FASTQ record, found " + show_char(static_cast<unsigned char>(line[0])));
    return read_fastq_body(b, begin_record(b.arena));
  }

  // The rest of a FASTQ record from its sequence (or the piece r of it) on.
  bool read_fastq_body(RecordBatch& b, RecordBatch::Record r) {
    std::string& a = b.arena;
    // Sequence: every line up to the '+' line.
    for (;;) {
      if (!next_line(sequence_lines)) fail("truncated record (end of input before the '+' line)");
      if (line_start && !line.empty() && line[0] == '+') break;
      check_seq(line);
      if (!append_seq(a, r)) {
        cut_piece(b, r);
        return true;
      }
    }
    const size_t piece_len = a.size() - r.seq_off;
    check_len(piece_len, "sequence");
    r.seq_len = len32(piece_len);
    // The whole record's length, over its pieces.
    const uint64_t seq_len = r.piece ? open.bases + piece_len - overlap : piece_len;

    const std::string_view plus = line.substr(1);
    if (!plus.empty() && plus != std::string_view(a.data() + r.name_off, r.name_len))
      fail(unterminated ? "truncated record (end of input in the '+' line)"
                        : "quality title differs from sequence title");

    // Quality: lines until it is as long as the sequence, so quality lines
    // starting with '@' or '+' are read correctly. At least one line belongs
    // to the quality, except for an empty read whose next line is a title.
    r.qual_off = a.size();
    size_t qual_len = 0;
    if (seq_len == 0) {
      if (next_line() && !line.empty()) {
        if (line[0] != '@') fail("quality longer than sequence (" + std::to_string(line.size()) + " vs 0)");
        pending = true;
      }
    }
    for (bool first = true; qual_len < seq_len; first = false) {
      if (!next_line(quality_lines))
        fail("truncated record (quality shorter than sequence: " + std::to_string(qual_len) + " vs " +
             std::to_string(seq_len) + ")");
      if (qual_len + line.size() > seq_len) {
        // A title line after a short quality overshoots: name the real cause.
        if (!first && line_start && line[0] == '@')
          fail("quality shorter than sequence (" + std::to_string(qual_len) + " vs " + std::to_string(seq_len) + ")");
        fail("quality longer than sequence (" + std::to_string(qual_len + line.size()) + " vs " +
             std::to_string(seq_len) + ")");
      }
      check_qual(line);
      if (b.keep_quality) a.append(line);
      qual_len += line.size();
    }
    r.qual_len = b.keep_quality ? len32(qual_len) : 0;
    b.records.push_back(r);
    b.bases += piece_len;
    return true;
  }
};

SequenceReader::SequenceReader(const std::string& path, unsigned inflate_threads)
    : impl_(std::make_unique<Impl>(path, path.empty() ? "(empty path)" : display_name(path), inflate_threads)) {}

SequenceReader::~SequenceReader() = default;

bool SequenceReader::next_batch(RecordBatch& batch, uint64_t target_bases, uint64_t max_records) {
  Impl& d = *impl_;
  batch.clear();
  // Parsing cannot resume in the middle of a broken record: repeat the error.
  if (!d.error.empty()) throw InputError(d.error);
  try {
    if (d.fmt == SeqFormat::unknown && !d.finished) d.detect();
    batch.first_record = d.records;
    batch.format = d.fmt;
    batch.overlap = d.overlap;
    if (d.finished) return false;
    const uint64_t max = std::max<uint64_t>(max_records, 1);
    do {
      const bool got = d.fmt == SeqFormat::fasta ? d.read_fasta(batch) : d.read_fastq(batch);
      if (!got) {
        d.finished = true;
        break;
      }
    } while (batch.bases < target_bases && batch.records.size() < max);
  } catch (const InputError& e) {
    d.error = e.what();
    batch.clear();
    throw;
  }
  return !batch.records.empty();
}

void SequenceReader::set_pieces(uint64_t max_bases, uint32_t overlap) {
  if (max_bases && max_bases <= overlap) throw std::invalid_argument("pieces must be longer than their overlap");
  impl_->piece_bases = max_bases;
  impl_->overlap = overlap;
}

const std::string& SequenceReader::path() const { return impl_->path; }
SeqFormat SequenceReader::format() const { return impl_->fmt; }
uint64_t SequenceReader::records_read() const { return impl_->records; }
uint64_t SequenceReader::raw_bytes_read() const { return impl_->src.raw_bytes_read(); }
uint64_t SequenceReader::raw_size() const { return impl_->src.raw_size(); }

}  // namespace kmerbloom
