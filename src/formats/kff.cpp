// KffReader and KffSortedReader: KFF files section by section, every size and
// value checked before it is used.
#include "formats/kff.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "seqio/decompress.hpp"
#include "formats/kff_format.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "seqio/paths.hpp"

namespace kmerbloom {
namespace {

using namespace kff;

std::string hex(unsigned v) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", v);
  return b;
}

// ----------------------------------------------------------------- sources

class Raw {
 public:
  virtual ~Raw() = default;
  virtual size_t read(uint8_t* dst, size_t cap) = 0;
  // Moves n bytes ahead without reading them; false if the source cannot
  // (a stream) or the file is shorter.
  virtual bool skip(uint64_t) { return false; }
};

// Any input the sequence reader takes: a file, stdin, gzip.
class StreamRaw final : public Raw {
 public:
  explicit StreamRaw(std::unique_ptr<detail::ByteSource> src) : src_(std::move(src)) {}
  size_t read(uint8_t* dst, size_t cap) override { return src_->read(reinterpret_cast<char*>(dst), cap); }

 private:
  std::unique_ptr<detail::ByteSource> src_;
};

std::unique_ptr<detail::ByteSource> open_source(const std::string& path) {
  return std::make_unique<detail::ByteSource>(path, display_name(path));
}

// An open plain file, shared by the cursors of one KffSortedReader.
struct Fd {
  int fd = -1;
  uint64_t size = 0;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// A plain file read with pread from a given offset.
class FileRaw final : public Raw {
 public:
  FileRaw(std::shared_ptr<const Fd> fd, uint64_t at, std::string name) : fd_(std::move(fd)), at_(at), name_(std::move(name)) {}
  size_t read(uint8_t* dst, size_t cap) override {
    size_t got = 0;
    while (got < cap && at_ < fd_->size) {
      const ssize_t n = ::pread(fd_->fd, dst + got, cap - got, static_cast<off_t>(at_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(name_ + ": read error: " + std::strerror(errno));
      if (n == 0) break;
      got += static_cast<size_t>(n);
      at_ += static_cast<uint64_t>(n);
    }
    return got;
  }
  bool skip(uint64_t n) override {
    if (n > fd_->size - std::min(at_, fd_->size)) return false;
    at_ += n;
    return true;
  }

 private:
  std::shared_ptr<const Fd> fd_;
  uint64_t at_;
  std::string name_;
};

// Buffered bytes with their offset in the file.
class Input {
 public:
  Input(std::unique_ptr<Raw> raw, uint64_t at, size_t buffer)
      : raw_(std::move(raw)), buf_(std::max<size_t>(buffer, 4096)), base_(at) {}
  uint64_t offset() const { return base_ + begin_; }
  // The next n bytes, consumed; nullptr when the input ends first.
  const uint8_t* take(size_t n) {
    if (end_ - begin_ < n && !fill(n)) return nullptr;
    const uint8_t* p = buf_.data() + begin_;
    begin_ += n;
    return p;
  }
  bool at_end() { return begin_ == end_ && !fill(1); }
  // Whole records of `size` bytes, up to `most` (>= 1) of them, as many as
  // are buffered (at least one); consumed. nullptr when the input ends first.
  const uint8_t* take_records(size_t size, uint64_t most, size_t& got) {
    if (end_ - begin_ < size && !fill(size)) return nullptr;
    got = static_cast<size_t>(std::min<uint64_t>(most, (end_ - begin_) / size));
    const uint8_t* p = buf_.data() + begin_;
    begin_ += got * size;
    return p;
  }
  // Skips n bytes; false when the input ends first.
  bool skip(uint64_t n) {
    const uint64_t here = std::min<uint64_t>(n, end_ - begin_);
    begin_ += here;
    n -= here;
    if (n == 0) return true;
    base_ += end_;
    begin_ = end_ = 0;
    if (raw_->skip(n)) {
      base_ += n;
      return true;
    }
    for (; n > 0; n -= std::min<uint64_t>(n, buf_.size()))
      if (!take(std::min<uint64_t>(n, buf_.size()))) return false;
    return true;
  }

 private:
  bool fill(size_t n) {
    if (eof_) return false;
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    base_ += begin_;
    end_ -= begin_;
    begin_ = 0;
    if (buf_.size() < n) buf_.resize(n);
    while (end_ < n) {
      const size_t got = raw_->read(buf_.data() + end_, buf_.size() - end_);
      if (got == 0) {
        eof_ = true;
        return false;
      }
      end_ += got;
    }
    return true;
  }
  std::unique_ptr<Raw> raw_;
  std::vector<uint8_t> buf_;
  size_t begin_ = 0, end_ = 0;
  uint64_t base_;  // file offset of buf_[0]
  bool eof_ = false;
};

// The variables of one 'v' scope that data sections use.
struct Scope {
  std::optional<uint64_t> k, max, data_size, m;
};

// One data section, as the sorted reader's scan finds it.
struct SectionStart {
  uint64_t at;
  Scope scope;
  bool fixed = false;  // records of one size (KffReader::Impl::fixed_records)
  uint64_t blocks = 0;
  unsigned k = 0, data_size = 0;
};

// The bits of a packed k-mer's first byte that hold bases (the pad bits
// above them are left out: a writer may have set them).
uint8_t first_byte_bases(unsigned k) { return static_cast<uint8_t>(0xff >> (8 * packed_bytes(k) - 2 * k)); }

// The k-mer of a fixed record at `at` of a plain file, its pad bits cleared.
std::string kmer_at(const Fd& fd, uint64_t at, unsigned k, const std::string& name) {
  std::string kmer(packed_bytes(k), '\0');
  for (size_t got = 0; got < kmer.size();) {
    const ssize_t n = ::pread(fd.fd, kmer.data() + got, kmer.size() - got, static_cast<off_t>(at + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError(name + ": byte " + std::to_string(at) + ": file ends inside a block (truncated)");
    got += static_cast<size_t>(n);
  }
  kmer[0] = static_cast<char>(static_cast<uint8_t>(kmer[0]) & first_byte_bases(k));
  return kmer;
}

}  // namespace

// ------------------------------------------------------------------ reader

struct KffReader::Impl {
  Impl(std::string display, std::unique_ptr<Raw> raw, uint64_t at, size_t buffer)
      : name(std::move(display)), in(std::move(raw), at, buffer) {}

  std::string name;
  Input in;
  KffHeader header;
  std::array<std::array<char, 4>, 256> bases_of_byte{};  // a packed byte's 4 bases, in text
  Scope scope;
  std::optional<uint64_t> declared_k;  // the last k a 'v' section gave, whatever scopes followed
  bool one_section = false;  // a sorted reader's cursor: stops after its section
  bool done = false;
  // The section being read: its type (0 between sections) and where it starts.
  char type = 0;
  uint64_t section_at = 0, blocks_left = 0;
  unsigned k = 0, data_size = 0, count_bytes = 0, index_bytes = 0;
  uint64_t max = 0, m = 0;
  std::string minimizer, block;
  std::string packed;  // next_packed's k-mer where it is not the file's own bytes
  uint64_t block_kmers = 0, block_pos = 0, block_at = 0;
  // Every section's start, and what the index sections say, checked at the end.
  std::vector<std::pair<uint64_t, char>> starts, indexed;

  [[noreturn]] void fail(const std::string& what, std::optional<uint64_t> at = {}) const {
    std::string msg = name + ": byte " + std::to_string(at ? *at : in.offset());
    if (type) msg += std::string(" (section '") + type + "' at byte " + std::to_string(section_at) + ")";
    throw InputError(msg + ": " + what);
  }
  const uint8_t* need(size_t n, const char* what) {
    const uint8_t* p = in.take(n);
    if (!p) fail(std::string("file ends inside ") + what + " (truncated)");
    return p;
  }
  uint64_t number(unsigned width, const char* what) { return width ? load_be(need(width, what), width) : 0; }

  void read_header();
  void read_vars();
  void read_index(uint64_t at);
  bool open_section();
  void begin_data();
  void read_block();
  void skip_section();
  void check_index() const;
  bool next(std::string_view& kmer, uint64_t& count);
  bool next_packed(std::string_view& kmer, uint64_t& count);
  bool next_packed_batch(PackedBatch& b, size_t most);
  // A raw section of one k-mer a block in the encoding A, C, G, T: records
  // of one size whose k-mers are the file's own bytes.
  bool fixed_records() const { return type == 'r' && count_bytes == 0 && header.encoding == kKffEncodingACGT; }
  // A fixed record at p of k-mers of `bytes` bytes: its k-mer into `to`
  // (only the bits `bases` of the first byte: the pad bits cleared), its count.
  static uint64_t read_fixed(const uint8_t* p, char* to, size_t bytes, uint8_t bases, unsigned data_size) {
    copy_kmer_bytes(to, reinterpret_cast<const char*>(p), bytes);
    to[0] = static_cast<char>(p[0] & bases);
    return data_size ? load_be(p + bytes, data_size) : 1;
  }
  void unpack(const uint8_t* p, uint64_t bases, std::string& out) const {
    const uint64_t bytes = packed_bytes(bases);
    size_t pad = static_cast<size_t>(4 * bytes - bases);  // leading codes of the first byte, ignored
    for (uint64_t i = 0; i < bytes; ++i, pad = 0) out.append(bases_of_byte[p[i]].data() + pad, 4 - pad);
  }
};

void KffReader::Impl::read_header() {
  const uint8_t* h = in.take(12);
  if (!h || std::memcmp(h, kSignature, 3) != 0) fail("not a KFF file (no 'KFF' signature at the start)", 0);
  header.major = h[3];
  header.minor = h[4];
  if (header.major > kVersionMajor)
    fail("KFF version " + std::to_string(h[3]) + "." + std::to_string(h[4]) + ": kmerbloom reads KFF version 1", 3);
  header.encoding = h[5];
  const unsigned a = h[5] >> 6 & 3, c = h[5] >> 4 & 3, g = h[5] >> 2 & 3, t = h[5] & 3;
  if ((1u << a | 1u << c | 1u << g | 1u << t) != 15)
    fail("encoding " + hex(h[5]) + " gives two nucleotides the same code: kmerbloom cannot take it", 5);
  std::array<char, 4> base{};
  base[a] = 'A', base[c] = 'C', base[g] = 'G', base[t] = 'T';
  for (unsigned b = 0; b < 256; ++b)
    for (unsigned i = 0; i < 4; ++i) bases_of_byte[b][i] = base[b >> (6 - 2 * i) & 3];
  if (h[6] > 1) fail("'unique' flag " + std::to_string(h[6]) + " (must be 0 or 1)", 6);
  if (h[7] > 1) fail("'canonical' flag " + std::to_string(h[7]) + " (must be 0 or 1)", 7);
  header.unique = h[6], header.canonical = h[7];
  if (!in.skip(load_be(h + 8, 4))) fail("file ends inside the header's free block (truncated)");
}

void KffReader::Impl::read_vars() {
  scope = Scope{};  // a new scope: every value is undefined again
  const uint64_t n = number(8, "a 'v' section");
  std::string var;
  for (uint64_t i = 0; i < n; ++i) {
    var.clear();
    for (;;) {
      const char ch = static_cast<char>(*need(1, "a variable name"));
      if (ch == 0) break;
      if (var.size() == 255) fail("variable name longer than 255 bytes");
      var.push_back(ch);
    }
    const uint64_t v = number(8, "a variable's value");
    if (var == "k") scope.k = declared_k = v;
    else if (var == "max") scope.max = v;
    else if (var == "data_size") scope.data_size = v;
    else if (var == "m") scope.m = v;
  }
}

void KffReader::Impl::read_index(uint64_t at) {
  const uint64_t n = number(8, "an index section");
  if (n > (uint64_t{1} << 40)) fail("index of " + std::to_string(n) + " sections");
  const uint64_t end = at + 1 + 8 + 9 * n + 8;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* e = need(9, "an index section");
    indexed.emplace_back(end + load_be(e + 1, 8), static_cast<char>(e[0]));  // relative, two's complement
  }
  const uint64_t next = number(8, "an index section");
  if (next) indexed.emplace_back(end + next, 'i');
}

void KffReader::Impl::begin_data() {
  const char t = type;
  const char* missing = !scope.k ? "k" : !scope.max ? "max" : !scope.data_size ? "data_size" : (t == 'm' && !scope.m) ? "m" : nullptr;
  if (missing) fail(std::string("variable '") + missing + "' is not declared for this section");
  if (*scope.k < 1 || *scope.k > kKffMaxK)
    fail("k = " + std::to_string(*scope.k) + ": kmerbloom reads KFF files of k 1 to " + std::to_string(kKffMaxK));
  if (*scope.max < 1) fail("max = 0 (at least one k-mer a block)");
  if (*scope.data_size > 8)
    fail("data_size = " + std::to_string(*scope.data_size) + ": kmerbloom reads counts of at most 8 bytes");
  k = static_cast<unsigned>(*scope.k);
  max = *scope.max;
  data_size = static_cast<unsigned>(*scope.data_size);
  count_bytes = lg_field_bytes(max);
  minimizer.clear();
  if (t == 'm') {
    m = *scope.m;
    if (m < 1 || m > k) fail("m = " + std::to_string(m) + " with k = " + std::to_string(k) + " (need 1 <= m <= k)");
    index_bytes = lg_field_bytes(max > UINT64_MAX - k ? UINT64_MAX : k + max - 1);
    unpack(need(packed_bytes(m), "a minimizer"), m, minimizer);
  }
  blocks_left = number(8, "a section header");
  block_kmers = block_pos = 0;
}

void KffReader::Impl::read_block() {
  const uint64_t at = block_at = in.offset();
  const uint64_t n = count_bytes ? number(count_bytes, "a block") : 1;
  if (n < 1 || n > max) fail("block of " + std::to_string(n) + " k-mers (1 to max = " + std::to_string(max) + ")", at);
  if (n > kKffMaxBlockBases - (k - 1))
    fail("block of " + std::to_string(n) + " k-mers: longer than the " + std::to_string(kKffMaxBlockBases) +
         " bases kmerbloom takes", at);
  const uint64_t bases = n + k - 1;
  block.clear();
  if (type == 'r') {
    unpack(need(packed_bytes(bases), "a block's sequence"), bases, block);
  } else {
    const uint64_t pos = number(index_bytes, "a block"), stored = bases - m;
    if (pos > stored)
      fail("minimizer at " + std::to_string(pos) + " in a block of " + std::to_string(bases) + " bases", at);
    unpack(need(packed_bytes(stored), "a block's sequence"), stored, block);
    block.insert(static_cast<size_t>(pos), minimizer);
  }
  block_kmers = n;
  block_pos = 0;
  --blocks_left;
}

// Reads sections up to the next data section with blocks (true), or to the
// end of the file or of a cursor's section (false).
bool KffReader::Impl::open_section() {
  for (;;) {
    if (done || (one_section && type)) return done = true, false;
    const uint64_t at = in.offset();
    const uint8_t* p = in.take(1);
    type = 0;
    if (!p) fail("file ends without the final 'KFF' signature (truncated)");
    const char t = static_cast<char>(*p);
    if (t == 'K') {
      const uint8_t* ff = in.take(2);
      if (!ff || ff[0] != 'F' || ff[1] != 'F') fail("bad final signature (expected 'KFF')", at);
      if (!in.at_end()) fail("bytes after the final 'KFF' signature");
      check_index();
      return done = true, false;
    }
    if (t != 'v' && t != 'i' && t != 'r' && t != 'm')
      fail("unknown section type " + hex(static_cast<uint8_t>(t)) + " (KFF has 'v', 'r', 'm', 'i')", at);
    starts.emplace_back(at, t);
    type = t;
    section_at = at;
    if (t == 'v') {
      read_vars();
    } else if (t == 'i') {
      read_index(at);
    } else {
      begin_data();
      if (blocks_left || one_section) return true;
    }
  }
}

void KffReader::Impl::check_index() const {
  for (const auto& [at, t] : indexed) {
    const auto it = std::lower_bound(starts.begin(), starts.end(), std::make_pair(at, '\0'));
    if (it == starts.end() || it->first != at || it->second != t)
      throw InputError(name + ": the index points to a section '" + std::string(1, t) + "' at byte " +
                       std::to_string(at) + " that is not there");
  }
}

// Past every remaining block of the data section: arithmetic where blocks
// have one size, block by block otherwise.
void KffReader::Impl::skip_section() {
  const uint64_t size = packed_bytes(k) + data_size;
  if (type == 'r' && count_bytes == 0) {
    if (blocks_left > UINT64_MAX / size || !in.skip(blocks_left * size))
      fail(std::to_string(blocks_left) + " blocks of " + std::to_string(size) + " bytes: the file ends first (truncated)");
    blocks_left = 0;
  }
  while (blocks_left) {
    read_block();
    if (!in.skip(uint64_t{data_size} * block_kmers)) fail("file ends inside a block's data (truncated)");
  }
  block_kmers = block_pos = 0;
}

bool KffReader::Impl::next(std::string_view& kmer, uint64_t& count) {
  while (block_pos == block_kmers) {
    if (blocks_left == 0) {
      if (!open_section()) return false;
      continue;
    }
    read_block();
  }
  kmer = std::string_view(block).substr(static_cast<size_t>(block_pos++), k);
  count = data_size ? number(data_size, "a block's data") : 1;
  return true;
}

// In a raw section of one k-mer a block, in the encoding A, C, G, T: a
// record's own bytes (the pad bits above the first base cleared, where a
// writer left them set). Elsewhere the letters next() gives, packed.
bool KffReader::Impl::next_packed(std::string_view& kmer, uint64_t& count) {
  while (block_pos == block_kmers && blocks_left == 0)
    if (!open_section()) return false;
  if (block_pos < block_kmers || !fixed_records()) {
    std::string_view text;
    if (!next(text, count)) return false;
    packed.resize(packed_bytes(text.size()));
    pack_kmer_text(text, reinterpret_cast<uint8_t*>(packed.data()));
    kmer = packed;
    return true;
  }
  block_at = in.offset();
  const uint8_t* p = need(packed_bytes(k) + data_size, "a block");
  --blocks_left;
  packed.resize(packed_bytes(k));
  count = read_fixed(p, packed.data(), packed.size(), first_byte_bases(k), data_size);
  kmer = packed;
  return true;
}

// Up to `most` k-mers of one k into b, the records of fixed sections moved
// straight from the buffer; false when none is left.
bool KffReader::Impl::next_packed_batch(PackedBatch& b, size_t most) {
  b.n = 0;
  for (;;) {
    while (block_pos == block_kmers && blocks_left == 0)
      if (!open_section()) return b.n > 0;
    if (b.n == 0) b.reset(k, most);
    else if (k != b.k || b.n == b.capacity()) return true;  // a batch holds one k
    if (block_pos < block_kmers || !fixed_records()) {
      std::string_view kmer;
      if (!next_packed(kmer, b.counts[b.n])) return b.n > 0;
      copy_kmer_bytes(b.kmer_at(b.n++), kmer.data(), kmer.size());
      continue;
    }
    const size_t size = b.bytes + data_size;
    size_t got = 0;
    const uint8_t* p = in.take_records(size, std::min<uint64_t>(blocks_left, b.capacity() - b.n), got);
    if (!p) fail("file ends inside a block (truncated)");
    const uint8_t bases = first_byte_bases(k);
    const unsigned width = data_size;  // locals: the batch's stores may alias the members
    for (size_t i = 0; i < got; ++i, p += size, ++b.n) b.counts[b.n] = read_fixed(p, b.kmer_at(b.n), b.bytes, bases, width);
    blocks_left -= got;
    block_at = in.offset() - size;
  }
}

KffReader::KffReader(const std::string& path) : KffReader(open_source(path)) {}
KffReader::KffReader(std::unique_ptr<detail::ByteSource> source) {
  const std::string name = source->display();
  impl_ = std::make_unique<Impl>(name, std::make_unique<StreamRaw>(std::move(source)), 0, size_t{1} << 16);
  impl_->read_header();
}
KffReader::~KffReader() = default;
const KffHeader& KffReader::header() const { return impl_->header; }
bool KffReader::next(std::string_view& kmer, uint64_t& count) { return impl_->next(kmer, count); }
bool KffReader::next_packed_batch(PackedBatch& batch, size_t most) { return impl_->next_packed_batch(batch, most); }
unsigned KffReader::k() const { return impl_->k; }
KffReader::Place KffReader::place() const {
  const Impl& i = *impl_;
  const bool fixed = i.type == 'r' && i.count_bytes == 0;
  return {i.block_at, i.section_at, fixed ? static_cast<unsigned>(packed_bytes(i.k)) + i.data_size : 0, i.data_size};
}
uint64_t KffReader::bytes_read() const { return impl_->in.offset(); }

void KffReader::fail(const std::string& what) const { impl_->fail(what); }

bool is_kff_file(const std::string& path) {
  if (is_stream(path)) return false;  // a look would take its bytes away
  return starts_as_kff(*open_source(path));
}

bool starts_as_kff(detail::ByteSource& source) {
  char magic[3];
  return source.peek(magic, 3) == 3 && std::memcmp(magic, kSignature, 3) == 0;
}

// ----------------------------------------------------------- sorted reader

struct KffSortedReader::Cursor {
  std::unique_ptr<KffReader::Impl> impl;
  uint64_t start = 0;  // where its section begins
  std::string keys[2];  // the k-mer read last and the one before, by turns: one copy a k-mer
  unsigned last = 0;
  uint64_t count = 0;
  bool has = false;
  const std::string& kmer() const { return keys[last]; }
  const std::string& prev() const { return keys[last ^ 1]; }
};

KffSortedReader::KffSortedReader(const std::string& path, size_t buffer_bytes)
    : KffSortedReader(path, nullptr, buffer_bytes) {}

KffSortedReader::KffSortedReader(const std::string& path, std::unique_ptr<detail::ByteSource> source,
                                 size_t buffer_bytes)
    : path_(display_name(path)) {
  auto fd = std::make_shared<Fd>();
  if (!is_stream(path)) {  // a second open of a pipe would find it drained, or wait
    fd->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat sb {};
    uint8_t magic[2] = {};
    if (fd->fd >= 0 && ::fstat(fd->fd, &sb) == 0 && S_ISREG(sb.st_mode) && ::pread(fd->fd, magic, 2, 0) == 2 &&
        !(magic[0] == 0x1f && magic[1] == 0x8b))
      fd->size = static_cast<uint64_t>(sb.st_size);
    else
      fd.reset();  // a stream, gzip, or an error the stream reader reports
  } else {
    fd.reset();
  }
  if (!fd) {
    auto c = std::make_unique<Cursor>();
    if (!source) source = open_source(path);
    c->impl = std::make_unique<KffReader::Impl>(path_, std::make_unique<StreamRaw>(std::move(source)), 0, buffer_bytes);
    c->impl->read_header();
    canonical_ = c->impl->header.canonical;
    cursors_.push_back(std::move(c));
    return;
  }
  // Find the data sections, then read each from its own offset.
  KffReader::Impl scan(path_, std::make_unique<FileRaw>(fd, 0, path_), 0, size_t{1} << 16);
  scan.read_header();
  std::vector<SectionStart> found;
  while (scan.open_section()) {
    found.push_back({scan.section_at, scan.scope, scan.fixed_records(), scan.blocks_left, scan.k, scan.data_size});
    scan.skip_section();
  }
  canonical_ = scan.header.canonical;
  if (scan.declared_k) scanned_k_ = static_cast<unsigned>(*scan.declared_k);
  // Sections of fixed records of one k, each one's first k-mer after the
  // last of the one before (kmerbloom's own files): one cursor reads the
  // file front to back, with nothing to merge.
  sequential_ = true;
  std::string last;
  for (const SectionStart& s : found) {
    if (!s.fixed || s.k != found[0].k) {
      sequential_ = false;
      break;
    }
    if (s.blocks == 0) continue;
    const uint64_t first_at = s.at + 9, size = packed_bytes(s.k) + s.data_size;  // after 'r' and the block count
    if (!last.empty() && compare_kmer_bytes(kmer_at(*fd, first_at, s.k, path_), last) <= 0) {
      sequential_ = false;
      break;
    }
    last = kmer_at(*fd, first_at + (s.blocks - 1) * size, s.k, path_);
  }
  if (sequential_) {
    auto c = std::make_unique<Cursor>();
    c->impl = std::make_unique<KffReader::Impl>(path_, std::make_unique<FileRaw>(fd, 0, path_), 0, buffer_bytes);
    c->impl->read_header();
    cursors_.push_back(std::move(c));
    return;
  }
  const size_t each = std::max<size_t>(4096, buffer_bytes / std::max<size_t>(1, found.size()));
  for (const SectionStart& s : found) {
    auto c = std::make_unique<Cursor>();
    c->impl = std::make_unique<KffReader::Impl>(path_, std::make_unique<FileRaw>(fd, s.at, path_), s.at, each);
    c->start = s.at;
    c->impl->header = scan.header;
    c->impl->bases_of_byte = scan.bases_of_byte;
    c->impl->scope = s.scope;
    c->impl->one_section = true;
    cursors_.push_back(std::move(c));
  }
}

KffSortedReader::~KffSortedReader() = default;

unsigned KffSortedReader::declared_k() const {
  if (k_) return k_;
  if (scanned_k_) return scanned_k_;
  if (cursors_.size() == 1 && cursors_[0]->impl->declared_k) return static_cast<unsigned>(*cursors_[0]->impl->declared_k);
  return 0;
}

void KffSortedReader::advance(size_t i) {
  Cursor& c = *cursors_[i];
  std::string_view km;
  c.has = packed_ ? c.impl->next_packed(km, c.count) : c.impl->next(km, c.count);
  if (!c.has) return;
  c.last ^= 1;
  assign_kmer_bytes(c.keys[c.last], km);
  const unsigned k = c.impl->k;
  if (k_ == 0) k_ = k;
  if (k != k_)
    c.impl->fail("k = " + std::to_string(k) + " after k-mers of k = " + std::to_string(k_) + ": merging needs one k");
  if (compare_kmer_bytes(c.kmer(), c.prev()) < 0)  // packed bytes compare as their letters do
    c.impl->fail("k-mers out of order (" + text_of(c.kmer()) + " after " + text_of(c.prev()) + ")" +
                 (cursors_.size() == 1 && !c.impl->one_section && !sequential_
                      ? ": a KFF stream (stdin, gzip) must be sorted as a whole; give the file uncompressed"
                      : ""));
}

uint64_t KffSortedReader::bytes_read() const {
  uint64_t n = 0;
  for (const auto& c : cursors_) n += c->impl->in.offset() - c->start;
  return n;
}

// The cursor with the smallest k-mer is held apart from the heap of the
// others (top_): while its next k-mer stays below theirs, as through a
// whole section of a file whose sections are in order, a k-mer costs one
// comparison, not a pop and a push.
bool KffSortedReader::next(std::string_view& kmer, uint64_t& count) {
  if (started_ && packed_) throw std::logic_error("KffSortedReader::next after next_packed_batch");
  return step(kmer, count);
}

bool KffSortedReader::next_packed_batch(PackedBatch& b, size_t most) {
  if (!started_) packed_ = true;
  if (!packed_) throw std::logic_error("KffSortedReader::next_packed_batch after next");
  if (sequential_) {  // the records as they come; the caller checks their order
    started_ = true;
    KffReader::Impl& in = *cursors_[0]->impl;
    if (!in.next_packed_batch(b, most)) return false;
    if (k_ == 0) k_ = b.k;
    if (b.k != k_)
      in.fail("k = " + std::to_string(b.k) + " after k-mers of k = " + std::to_string(k_) + ": merging needs one k");
    return true;
  }
  b.n = 0;
  std::string_view kmer;
  uint64_t count = 0;
  while (b.n < most && step(kmer, count)) {
    if (b.n == 0) b.reset(k_, most);
    copy_kmer_bytes(b.kmer_at(b.n), kmer.data(), b.bytes);
    b.counts[b.n++] = count;
  }
  return b.n > 0;
}

std::string KffSortedReader::text_of(const std::string& kmer) const {
  return packed_ ? packed_kmer_letters(kmer.data(), k_) : kmer;
}

bool KffSortedReader::step(std::string_view& kmer, uint64_t& count) {
  const auto later = [&](size_t a, size_t b) {
    const int c = compare_kmer_bytes(cursors_[a]->kmer(), cursors_[b]->kmer());
    return c > 0 || (c == 0 && a > b);
  };
  constexpr size_t kNone = SIZE_MAX;
  if (!started_) {
    started_ = true;
    for (size_t i = 0; i < cursors_.size(); ++i) {
      advance(i);
      if (cursors_[i]->has) heap_.push_back(i);
    }
    std::make_heap(heap_.begin(), heap_.end(), later);
  } else if (top_ != kNone) {
    advance(top_);
    if (!cursors_[top_]->has) {
      top_ = kNone;
    } else if (!heap_.empty() && later(top_, heap_.front())) {
      heap_.push_back(top_);
      std::push_heap(heap_.begin(), heap_.end(), later);
      top_ = kNone;
    }
  }
  if (top_ == kNone) {
    if (heap_.empty()) return false;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    top_ = heap_.back();
    heap_.pop_back();
  }
  const Cursor& c = *cursors_[top_];
  kmer = c.kmer();
  count = c.count;
  return true;
}

void KffSortedReader::fail(const std::string& what) const { throw InputError(path_ + ": " + what); }

}  // namespace kmerbloom
