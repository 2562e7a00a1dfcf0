#include "seqio/decompress.hpp"

#include <fcntl.h>
#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <isa-l.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace kmerbloom::detail {
namespace {

// Compressed bytes per file read. 1 MiB amortises system calls and keeps
// isa-l's inner loop busy; decompressed output goes straight into the caller's
// (larger) buffer.
constexpr size_t kInSize = size_t{1} << 20;

std::string isal_error(int ret) {
  switch (ret) {
    case ISAL_INCORRECT_CHECKSUM:
      return "gzip CRC or length mismatch (corrupt input)";
    case ISAL_INVALID_WRAPPER:
      return "invalid gzip header (corrupt input)";
    case ISAL_UNSUPPORTED_METHOD:
      return "unsupported gzip compression method";
    case ISAL_INVALID_BLOCK:
    case ISAL_INVALID_SYMBOL:
    case ISAL_INVALID_LOOKBACK:
      return "corrupt gzip data";
    default:
      return "gzip decompression failed (isa-l error " + std::to_string(ret) + ")";
  }
}

// A gzip member header with BGZF's "BC" extra subfield (SAM specification,
// 4.1): 14 bytes up to the subfield's identifier.
constexpr size_t kBgzfHeader = 14;
bool is_bgzf_header(const unsigned char* p, size_t n) {
  return n >= kBgzfHeader && p[0] == 0x1f && p[1] == 0x8b && (p[3] & 4) != 0 && p[12] == 'B' && p[13] == 'C';
}

// The empty block every BGZF writer ends a file with (SAM specification, 4.1.2).
constexpr unsigned char kBgzfEof[28] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43,
                                        2,    0,    0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};
bool ends_in_bgzf_eof(int fd, uint64_t size) {
  unsigned char tail[sizeof kBgzfEof];
  return ::pread(fd, tail, sizeof tail, static_cast<off_t>(size - sizeof tail)) == static_cast<ssize_t>(sizeof tail) &&
         std::memcmp(tail, kBgzfEof, sizeof tail) == 0;
}

}  // namespace

ByteSource::ByteSource(const std::string& path, const std::string& display, unsigned inflate_threads)
    : display_(display) {
  // Open the descriptor ourselves rather than with hopen(path): hopen treats
  // "scheme:..." names as URLs (data:, s3:, ...), and we need the descriptor
  // for fstat anyway (directory check, size for the progress bar).
  int fd = STDIN_FILENO;
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat sb {};
  if (::fstat(fd, &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) {
      if (fd != STDIN_FILENO) ::close(fd);
      fail("is a directory");
    }
    if (S_ISREG(sb.st_mode)) raw_size_ = static_cast<uint64_t>(sb.st_size);
  }
  if (path == "-") {
    fp_.reset(hopen("-", "r"));
  } else {
    fp_.reset(hdopen(fd, "r"));
    if (!fp_) {
      const int err = errno;
      ::close(fd);
      errno = err;
    }
  }
  if (!fp_) fail(std::string("cannot open: ") + std::strerror(errno));

  unsigned char magic[kBgzfHeader] = {};
  const ssize_t n = hpeek(fp_.get(), magic, sizeof magic);
  if (n < 0) fail(std::string("read error: ") + std::strerror(errno));
  gzip_ = n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  bgzf_ = is_bgzf_header(magic, static_cast<size_t>(n));
  // A regular file that ends in BGZF's end-of-file block is all BGZF as far
  // as can be told at once; anything else (`cat a.bgz b.gz`, a cut file) is
  // read member by member below, which says what is wrong where it is.
  if (bgzf_ && inflate_threads > 1 && raw_size_ >= sizeof kBgzfEof && ends_in_bgzf_eof(fd, raw_size_)) {
    bgzf_fp_.reset(bgzf_hopen(fp_.get(), "r"));
    if (!bgzf_fp_) fail("cannot read as BGZF");
    fp_.release();  // the BGZF reader owns it now
    if (bgzf_mt(bgzf_fp_.get(), static_cast<int>(inflate_threads), 256) != 0) fail("cannot start the inflating threads");
    pool_threads_ = inflate_threads;
    return;
  }
  if (gzip_) {
    st_ = std::make_unique<inflate_state>();
    in_ = std::make_unique_for_overwrite<unsigned char[]>(kInSize);
    isal_inflate_init(st_.get());
    st_->next_in = in_.get();
    st_->avail_in = 0;
    start_member();
  }
}

ByteSource::~ByteSource() = default;

// Read-only: nothing to flush, so close errors cannot lose data.
void ByteSource::Closer::operator()(hFILE* fp) const { hclose_abruptly(fp); }
void ByteSource::Closer::operator()(BGZF* fp) const { bgzf_close(fp); }

void ByteSource::fail(const std::string& what) const { throw InputError(display_ + ": " + what); }

size_t ByteSource::read(char* dst, size_t cap) {
  if (ahead_.empty()) return read_next(dst, cap);
  const size_t n = std::min(cap, ahead_.size());
  std::memcpy(dst, ahead_.data(), n);
  ahead_.erase(0, n);
  return n < cap ? n + read_next(dst + n, cap - n) : n;
}

size_t ByteSource::peek(char* dst, size_t n) {
  if (ahead_.size() < n) {
    const size_t had = ahead_.size();
    ahead_.resize(n);
    ahead_.resize(had + read_next(ahead_.data() + had, n - had));
  }
  const size_t got = std::min(n, ahead_.size());
  std::memcpy(dst, ahead_.data(), got);
  return got;
}

size_t ByteSource::read_next(char* dst, size_t cap) {
  if (bgzf_fp_) return read_bgzf(dst, cap);
  return gzip_ ? inflate_into(dst, cap) : read_raw(dst, cap);
}

size_t ByteSource::read_bgzf(char* dst, size_t cap) {
  size_t got = 0;
  while (got < cap) {
    const ssize_t n = bgzf_read(bgzf_fp_.get(), dst + got, cap - got);
    if (n < 0)
      fail(bgzf_fp_->errcode & BGZF_ERR_CRC      ? "gzip CRC or length mismatch (corrupt input)"
           : bgzf_fp_->errcode & BGZF_ERR_HEADER ? "invalid BGZF block header (corrupt input, or a plain gzip member after BGZF blocks)"
                                                 : "corrupt BGZF data (a block's deflate data or CRC)");
    if (n == 0) {
      raw_read_ = raw_size_;
      return got;
    }
    got += static_cast<size_t>(n);
  }
  raw_read_ = static_cast<uint64_t>(bgzf_tell(bgzf_fp_.get()) >> 16);  // the compressed offset of the block being read
  return got;
}

size_t ByteSource::read_raw(char* dst, size_t cap) {
  size_t got = 0;
  // hread already loops until the request is satisfied or EOF; the loop here
  // only guards against short reads from unusual backends.
  while (got < cap && !eof_) {
    const ssize_t n = hread(fp_.get(), dst + got, cap - got);
    if (n < 0) fail(std::string("read error: ") + std::strerror(errno));
    if (n == 0) {
      eof_ = true;
      break;
    }
    got += static_cast<size_t>(n);
    raw_read_ += static_cast<uint64_t>(n);
  }
  return got;
}

// Appends file bytes after the unconsumed input. Returns false when nothing
// could be added (end of file).
bool ByteSource::fill_input() {
  const size_t left = st_->avail_in;
  if (left == kInSize) fail("gzip decompression made no progress (corrupt input)");
  if (left > 0 && st_->next_in != in_.get()) std::memmove(in_.get(), st_->next_in, left);
  const size_t n = read_raw(reinterpret_cast<char*>(in_.get()) + left, kInSize - left);
  st_->next_in = in_.get();
  st_->avail_in = static_cast<uint32_t>(left + n);
  return n > 0;
}

void ByteSource::start_member() {
  // isal_inflate_reset clears the whole state, including the input pointers.
  uint8_t* next_in = st_->next_in;
  const uint32_t avail_in = st_->avail_in;
  isal_inflate_reset(st_.get());
  st_->crc_flag = ISAL_GZIP;  // parse the gzip header, verify CRC32 and ISIZE
  st_->next_in = next_in;
  st_->avail_in = avail_in;
  member_done_ = false;
}

size_t ByteSource::inflate_into(char* dst, size_t cap) {
  size_t produced = 0;
  while (produced < cap) {
    if (member_done_) {
      // Another member may follow (multi-member gzip, BGZF blocks); anything
      // else after a complete member is an error, not silently ignored.
      if (st_->avail_in < kBgzfHeader && !eof_) fill_input();
      if (st_->avail_in == 0) {  // clean end of input
        // Every BGZF writer ends the file with an empty block: without it,
        // a file cut at a block boundary would read as a shorter valid one.
        // Only the last member counts: `cat a.bgz b.gz` ends in plain gzip.
        if (bgzf_ && !last_member_empty_) fail("truncated BGZF input (the end-of-file block is missing)");
        break;
      }
      if (st_->avail_in < 2 || st_->next_in[0] != 0x1f || st_->next_in[1] != 0x8b)
        fail("trailing garbage after gzip member");
      bgzf_ = is_bgzf_header(st_->next_in, st_->avail_in);
      start_member();
    }
    if (st_->avail_in == 0 && !eof_) fill_input();

    const auto room = static_cast<uint32_t>(std::min<size_t>(cap - produced, UINT32_MAX));
    st_->next_out = reinterpret_cast<uint8_t*>(dst + produced);
    st_->avail_out = room;
    const uint32_t in_before = st_->avail_in;
    const int ret = isal_inflate(st_.get());
    if (ret != ISAL_DECOMP_OK && ret != ISAL_END_INPUT && ret != ISAL_OUT_OVERFLOW) fail(isal_error(ret));
    const size_t out = room - st_->avail_out;
    produced += out;

    if (st_->block_state == ISAL_BLOCK_FINISH) {
      member_done_ = true;
      last_member_empty_ = st_->total_out == 0;
      continue;
    }
    if (out == 0 && st_->avail_in == in_before) {
      // No progress: the decoder needs more input than it has. At end of file
      // that means the member was cut short (htslib's kseq would stop quietly
      // or spin here).
      if (eof_) fail("truncated gzip input");
      fill_input();  // at EOF the next round makes no progress either and fails
    }
  }
  return produced;
}

}  // namespace kmerbloom::detail
