// Raw byte input for the sequence reader: opens a file (or stdin) through
// htslib's hFILE and, when the content starts with the gzip magic, inflates it
// with isa-l, one member after the other on the caller's thread. A BGZF
// regular file that ends in BGZF's end-of-file block, read with
// inflate_threads > 1, is inflated by htslib's BGZF reader on a pool of that
// many threads instead (bgzf_mt: blocks inflated in parallel, handed back in
// order, each block's CRC checked); any other file is read member by member,
// whatever the threads. Plain gzip is one
// deflate stream a member: it cannot be inflated in parallel. Private to the
// library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

struct hFILE;          // htslib
struct BGZF;           // htslib
struct inflate_state;  // isa-l

namespace kmerbloom::detail {

// A forward-only byte stream over one input. Compression is detected from the
// first two bytes (1f 8b = gzip, anything else is passed through unchanged).
// gzip input may hold any number of members (`cat a.gz b.gz`, BGZF); every
// member's CRC and length are checked. Errors throw InputError with messages
// that start with the display name.
class ByteSource {
 public:
  // path "-" is standard input. display is the name used in error messages.
  // inflate_threads: BGZF files are inflated on this many threads (1: on the
  // caller's).
  ByteSource(const std::string& path, const std::string& display, unsigned inflate_threads = 1);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Writes up to cap bytes of (decompressed) content to dst and returns how
  // many were written. Returns 0 only at the end of the input; fills dst
  // completely otherwise, so that callers can use large buffers efficiently.
  size_t read(char* dst, size_t cap);
  // Copies up to n bytes of (decompressed) content ahead to dst without
  // consuming them: read() returns them first. Lets a reader tell a format
  // by its first bytes on a pipe, which cannot be opened twice.
  size_t peek(char* dst, size_t n);
  const std::string& display() const { return display_; }

  bool gzip() const { return gzip_; }
  // Threads inflating this input beside the caller's (0: none).
  unsigned inflating_threads() const { return pool_threads_; }
  uint64_t raw_bytes_read() const { return raw_read_; }  // bytes taken from the file
  uint64_t raw_size() const { return raw_size_; }        // 0 when not a regular file

 private:
  size_t read_raw(char* dst, size_t cap);
  size_t inflate_into(char* dst, size_t cap);
  bool fill_input();
  void start_member();
  [[noreturn]] void fail(const std::string& what) const;

  struct Closer {
    void operator()(hFILE* fp) const;
    void operator()(BGZF* fp) const;
  };
  size_t read_bgzf(char* dst, size_t cap);
  size_t read_next(char* dst, size_t cap);

  std::string display_;
  std::string ahead_;  // bytes peek() took, returned first by read()
  std::unique_ptr<hFILE, Closer> fp_;
  std::unique_ptr<BGZF, Closer> bgzf_fp_;  // a BGZF file inflated on a pool of threads
  unsigned pool_threads_ = 0;
  bool eof_ = false;  // the file has no more bytes
  bool gzip_ = false;
  bool member_done_ = false;  // the current gzip member ended (trailer checked)
  bool bgzf_ = false;               // the current (or last) member has BGZF's "BC" extra field
  bool last_member_empty_ = false;  // the last complete member held no data (BGZF's end-of-file block)
  uint64_t raw_read_ = 0;
  uint64_t raw_size_ = 0;
  std::unique_ptr<inflate_state> st_;
  std::unique_ptr<unsigned char[]> in_;  // compressed input buffer
};

}  // namespace kmerbloom::detail
