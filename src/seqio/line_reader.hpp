// Lines of a text file, plain or gzip (the decompressor of the sequence
// reader: several gzip members, BGZF, "-" for stdin). One reader for every
// text format the library reads: count files, histograms, k-mer lists.
//
// Ownership: a LineReader owns its file and buffer; a line returned by next()
// is a view into that buffer, valid until the next call. Thread safety: one
// thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kmerbloom {
namespace detail {
class ByteSource;
}

class LineReader {
 public:
  // buffer: initial bytes of buffer (at least 4 KiB); it doubles for a line
  // longer than itself. Throws InputError when the file cannot be opened.
  explicit LineReader(const std::string& path, size_t buffer = size_t{1} << 16);
  // Reads an input the library opened already (and may have peeked into).
  explicit LineReader(std::unique_ptr<detail::ByteSource> source, size_t buffer = size_t{1} << 16);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its '\n' or "\r\n"; false at the end of the file.
  // A last line without '\n' is a line. Throws InputError for damaged input.
  bool next(std::string_view& line);

  // 1-based number of the line next() returned last (0 before the first).
  uint64_t line_number() const { return line_; }
  // Byte offset in the (decompressed) input of the line next() returned
  // last, and of the byte after its '\n' (where the next line starts).
  uint64_t line_offset() const { return line_at_; }
  uint64_t next_offset() const { return base_ + begin_; }
  // The file's name in messages ("<stdin>" for "-").
  const std::string& name() const { return name_; }
  // Bytes taken from the file so far (compressed where it is), for progress.
  uint64_t raw_bytes_read() const;
  // Throws InputError("NAME: line N: what") for the line returned last.
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::string name_;
  std::unique_ptr<detail::ByteSource> src_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  uint64_t base_ = 0;     // input offset of buf_[0]
  uint64_t line_at_ = 0;  // input offset of the line returned last
  uint64_t line_ = 0;
  bool eof_ = false;
};

// Field helpers for the line formats. Blanks are spaces and tabs.
// Takes an unsigned decimal, after blanks, off the front of s; false (s
// unchanged) when there is none or it overflows 64 bits.
bool take_uint(std::string_view& s, uint64_t& v);
// True when s holds nothing but blanks.
inline bool is_blank(std::string_view s) { return s.find_first_not_of(" \t") == std::string_view::npos; }

}  // namespace kmerbloom
