#include "lookup/count_index.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <numeric>
#include <stdexcept>

#include "common/bases.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/kff.hpp"
#include "formats/kff_format.hpp"
#include "formats/output.hpp"
#include "formats/sorted_counts.hpp"
#include "kmer/kmer.hpp"
#include "seqio/decompress.hpp"
#include "seqio/queues.hpp"

namespace kmerbloom {
namespace {

constexpr char kMagic[8] = {'K', 'B', 'I', 'N', 'D', 'E', 'X', '1'};
constexpr size_t kHeaderBytes = 56;
constexpr uint64_t kEnds = 64 << 10;  // the bytes at each end of the counts a checksum covers
enum : uint8_t { kTsv = 1, kKff = 2 };

unsigned words_for(unsigned k) { return std::max(1u, (k + 31) / 32); }

// 2 bits a base from the top of word 0: word order is text order.
void pack_text(std::string_view kmer, uint64_t* key, unsigned words) {
  std::fill(key, key + words, 0);
  for (size_t i = 0; i < kmer.size(); ++i)
    key[i / 32] |= uint64_t{kBaseCode[static_cast<uint8_t>(kmer[i])]} << (62 - 2 * (i % 32));
}

struct FileFacts {
  uint64_t bytes = 0;
  uint32_t head_crc = 0, tail_crc = 0;
};

uint32_t crc_of(const void* data, size_t n, uint32_t crc = 0) {
  return static_cast<uint32_t>(crc32_z(crc, static_cast<const Bytef*>(data), n));
}

// n bytes of fd at offset `at` into dst, or InputError naming the file.
void read_exactly(int fd, char* dst, size_t n, uint64_t at, const std::string& name) {
  for (size_t got = 0; got < n;) {
    const ssize_t r = pread(fd, dst + got, n - got, static_cast<off_t>(at + got));
    if (r <= 0)
      throw InputError(name + ": cannot read at byte " + std::to_string(at + got) + ": " +
                       (r < 0 ? std::strerror(errno) : "file ends early"));
    got += static_cast<size_t>(r);
  }
}

// Size and the checksums of the first and last 64 KiB of an open file.
FileFacts facts_of(int fd, const std::string& name) {
  struct stat st {};
  if (fstat(fd, &st) != 0) throw InputError(name + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InputError(name + ": not a regular file: an index needs a file it can seek in");
  FileFacts f;
  f.bytes = static_cast<uint64_t>(st.st_size);
  std::vector<char> buf(static_cast<size_t>(std::min(kEnds, f.bytes)));
  const auto crc_at = [&](uint64_t at) {
    read_exactly(fd, buf.data(), buf.size(), at, name);
    return crc_of(buf.data(), buf.size());
  };
  f.head_crc = crc_at(0);
  f.tail_crc = crc_at(f.bytes - buf.size());
  return f;
}

struct Fd {
  int fd;
  Fd(const std::string& path, const std::string& name) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd < 0) throw InputError(name + ": cannot open: " + std::strerror(errno));
  }
  ~Fd() { ::close(fd); }
};

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T get(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// What to run for a KFF file the index cannot take.
std::string rewrite(const std::string& counts) {
  return "rewrite it with kmerbloom sets union " + counts + " -o NEW.kff, then index NEW.kff";
}

}  // namespace

std::string default_index_path(const std::string& counts) { return counts + ".kbi"; }

CountIndexSummary build_count_index(const std::string& counts, const std::string& index_path,
                                    const CountIndexOptions& o) {
  const std::string name = display_name(counts);
  if (counts == "-") throw InputError("an index needs a count file, not stdin");
  FileFacts facts;
  bool kff = false;
  {
    Fd f(counts, name);
    facts = facts_of(f.fd, name);
    detail::ByteSource source(counts, name);
    if (source.gzip())
      throw InputError(name + ": gzip-compressed: an index needs the plain file (gunzip it, or count into KFF)");
    kff = starts_as_kff(source);
  }
  CountIndexSummary s;
  s.format = kff ? "kff" : "tsv";
  s.file_bytes = facts.bytes;
  std::optional<bool> canonical = o.canonical;
  if (kff) {
    KffReader header(counts);
    if (header.header().encoding != kKffEncodingACGT)
      throw InputError(name + ": KFF with another 2-bit code than A, C, G, T = 0, 1, 2, 3: " + rewrite(counts));
    if (!canonical) canonical = header.header().canonical;
  }
  const auto in = open_sorted_counts(counts, {.max_k = kMaxK,
                                             .who = "index",
                                             .fasta_form = false,
                                             .buffer_bytes = size_t{1} << 20,
                                             .kff_file_order = true});

  std::vector<uint64_t> keys;
  struct Made {  // a block as it is read
    uint64_t offset, records, section;
    unsigned record_bytes, data_size;
  };
  std::vector<Made> made;
  unsigned words = 0;
  uint64_t block_bytes = 0;
  const auto start = [&](unsigned k) {  // the k, and what it sizes
    s.k = k;
    words = words_for(k);
    block_bytes = o.block_bytes ? o.block_bytes : std::max<uint64_t>(4096, (128 * (8 * words + 16) + 4095) / 4096 * 4096);
  };
  bool all_canonical = true;
  std::string_view kmer;
  uint64_t count = 0;
  const auto next = [&] {
    try {
      return in->next(kmer, count);
    } catch (const InputError& e) {
      if (!kff || std::string_view(e.what()).find("out of order") == std::string_view::npos) throw;
      throw InputError(std::string(e.what()) + "; KFF sections must be in k-mer order with one another (KMC writes "
                       "one a bin): " + rewrite(counts));
    }
  };
  while (next()) {
    const CountFileReader::Place p = *in->place();
    if (words == 0) start(static_cast<unsigned>(kmer.size()));
    if (kff && p.record_bytes == 0)
      in->fail("blocks of several k-mers ('m' sections or max > 1): an index takes raw sections of one k-mer a block; " +
               rewrite(counts));
    if (made.empty() || (kff && p.section != made.back().section) || p.offset - made.back().offset >= block_bytes) {
      made.push_back({p.offset, 0, p.section, p.record_bytes, p.data_size});
      keys.resize(keys.size() + words);
      pack_text(kmer, keys.data() + keys.size() - words, words);
    }
    ++made.back().records;
    if (!kff && !o.canonical && all_canonical) all_canonical = is_canonical_text(kmer);
  }
  if (words == 0) start(in->declared_k());  // no k-mers: an empty KFF file's k, or 0
  s.kmers = in->read();
  s.canonical = canonical.value_or(all_canonical);
  s.blocks = made.size();
  s.block_bytes = block_bytes;

  std::string out(kMagic, sizeof kMagic);
  put<uint32_t>(out, s.k);
  put<uint8_t>(out, s.canonical);
  put<uint8_t>(out, kff ? kKff : kTsv);
  put<uint16_t>(out, static_cast<uint16_t>(words));
  put<uint64_t>(out, block_bytes);
  put<uint64_t>(out, facts.bytes);
  put<uint32_t>(out, facts.head_crc);
  put<uint32_t>(out, facts.tail_crc);
  put<uint64_t>(out, s.kmers);
  put<uint64_t>(out, s.blocks);
  for (const uint64_t w : keys) put<uint64_t>(out, w);
  for (size_t b = 0; b < made.size(); ++b) {
    const Made& m = made[b];
    const uint64_t end = kff ? m.offset + m.records * m.record_bytes : (b + 1 < made.size() ? made[b + 1].offset : facts.bytes);
    if (end - m.offset > UINT32_MAX) throw InputError(name + ": a line longer than 4 GiB");
    put<uint64_t>(out, m.offset);
    put<uint32_t>(out, static_cast<uint32_t>(end - m.offset));
    put<uint16_t>(out, static_cast<uint16_t>(m.record_bytes));
    put<uint8_t>(out, static_cast<uint8_t>(m.data_size));
    put<uint8_t>(out, 0);
  }
  put<uint32_t>(out, crc_of(out.data(), out.size()));
  s.index_bytes = out.size();
  OutputFile f(index_path, false);
  f.write(out);
  f.commit();
  return s;
}

// ------------------------------------------------------------------ look-ups

CountIndex::CountIndex(const std::string& counts, const std::string& index_path) : counts_path_(counts) {
  const std::string path = index_path.empty() ? default_index_path(counts) : index_path;
  const std::string iname = display_name(path), cname = display_name(counts);
  if (::access(counts.c_str(), R_OK) != 0) throw InputError(cname + ": cannot open: " + std::strerror(errno));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(iname + ": cannot open: " + std::strerror(errno) + " (make it with kmerbloom index " + counts + ")");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto bad = [&](const std::string& what) -> InputError {
    return InputError(iname + ": " + what + ": not an index of kmerbloom, or damaged; make it again with kmerbloom index " + counts);
  };
  if (bytes.size() < kHeaderBytes + 4 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) throw bad("no index signature");
  const char* h = bytes.data();
  if (get<uint32_t>(h + bytes.size() - 4) != crc_of(h, bytes.size() - 4)) throw bad("checksum mismatch");
  s_.k = get<uint32_t>(h + 8);
  s_.canonical = get<uint8_t>(h + 12) != 0;
  const uint8_t format = get<uint8_t>(h + 13);
  words_ = get<uint16_t>(h + 14);
  s_.block_bytes = get<uint64_t>(h + 16);
  const FileFacts want{get<uint64_t>(h + 24), get<uint32_t>(h + 32), get<uint32_t>(h + 36)};
  s_.kmers = get<uint64_t>(h + 40);
  s_.blocks = get<uint64_t>(h + 48);
  s_.format = format == kKff ? "kff" : "tsv";
  s_.file_bytes = want.bytes;
  s_.index_bytes = bytes.size();
  const uint64_t entry = 8 * uint64_t{words_} + 16;
  if ((format != kTsv && format != kKff) || s_.k > kMaxK || words_ != words_for(s_.k) ||
      s_.blocks > (bytes.size() - kHeaderBytes - 4) / entry || bytes.size() != kHeaderBytes + s_.blocks * entry + 4)
    throw bad("its header does not fit its size");
  fd_ = ::open(counts.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(cname + ": cannot open: " + std::strerror(errno));
  try {
    const FileFacts now = facts_of(fd_, cname);
    if (now.bytes != want.bytes || now.head_crc != want.head_crc || now.tail_crc != want.tail_crc)
      throw InputError(iname + ": stale: made for another " + cname + " (" +
                       (now.bytes != want.bytes ? std::to_string(want.bytes) + " bytes then, " + std::to_string(now.bytes) + " now"
                                                : std::string("its first or last 64 KiB changed")) +
                       "); make it again with kmerbloom index " + counts);
  } catch (...) {
    ::close(fd_);
    throw;
  }
  packed_bytes_ = static_cast<unsigned>(kff::packed_bytes(s_.k));
  const char* p = h + kHeaderBytes;
  keys_.resize(s_.blocks * words_);
  if (!keys_.empty()) std::memcpy(keys_.data(), p, keys_.size() * 8);
  p += keys_.size() * 8;
  blocks_.resize(s_.blocks);
  for (Block& b : blocks_) {
    b = {get<uint64_t>(p), get<uint32_t>(p + 8), get<uint16_t>(p + 12), get<uint8_t>(p + 14), 0};
    p += 16;
    const bool records_fit = format == kKff ? b.data_size <= 8 && b.record_bytes == packed_bytes_ + b.data_size
                                            : b.record_bytes == 0 && b.data_size == 0;
    if (b.offset > want.bytes || b.bytes > want.bytes - b.offset || !records_fit) {
      ::close(fd_);
      throw bad(records_fit ? "a block outside the count file" : "a block's records do not fit k");
    }
  }
}

CountIndex::~CountIndex() {
  if (fd_ >= 0) ::close(fd_);
}

uint64_t CountIndex::memory_bytes() const { return keys_.capacity() * 8 + blocks_.capacity() * sizeof(Block); }

void CountIndex::check(std::string_view kmer) const {
  if (s_.kmers == 0 && s_.k == 0) return;  // an empty TSV file: any k
  if (kmer.size() != s_.k)
    throw std::invalid_argument("k-mer '" + printable(kmer) + "' of " + std::to_string(kmer.size()) + " bases: " +
                                counts_path_ + " holds " + std::to_string(s_.k) + "-mers");
  for (const char c : kmer)
    if (kBaseCode[static_cast<uint8_t>(c)] > 3)
      throw std::invalid_argument("k-mer '" + printable(kmer) + "' holds a letter other than A, C, G, T");
}

void CountIndex::normalize(std::string_view kmer, uint64_t* key, uint8_t* packed) const {
  const size_t k = kmer.size();
  if (k <= 32 && k == s_.k) {  // a word at once
    uint64_t value = 0;
    for (const char c : kmer) {
      const uint8_t b = kBaseCode[static_cast<uint8_t>(c)];
      if (b > 3) check(kmer);  // throws
      value = value << 2 | b;
    }
    return normalize(value, key, packed);
  }
  check(kmer);
  char text[kMaxK];
  for (size_t i = 0; i < k; ++i) text[i] = kBaseChar[kBaseCode[static_cast<uint8_t>(kmer[i])]];
  if (s_.canonical && !is_canonical_text(std::string_view(text, k))) {  // to its reverse complement
    std::reverse(text, text + k);
    for (size_t i = 0; i < k; ++i) text[i] = kBaseChar[3 - kBaseCode[static_cast<uint8_t>(text[i])]];
  }
  pack_text(std::string_view(text, k), key, words_);
  pack_kmer_text(std::string_view(text, k), packed);
}

void CountIndex::normalize(uint64_t value, uint64_t* key, uint8_t* packed) const {
  const unsigned k = s_.k;
  if (k < 32 && value >> (2 * k) != 0)
    throw std::invalid_argument("packed k-mer " + std::to_string(value) + " has more than " + std::to_string(k) +
                                " bases (2 bits a base): " + counts_path_ + " holds " + std::to_string(k) + "-mers");
  if (s_.canonical) value = std::min(value, reverse_complement(value, k));
  key[0] = value << (64 - 2 * k);
  for (unsigned i = 0; i < packed_bytes_; ++i) packed[i] = static_cast<uint8_t>(value >> (8 * (packed_bytes_ - 1 - i)));
}

bool CountIndex::before_block(const uint64_t* key, size_t b) const {
  const uint64_t* first = keys_.data() + b * words_;
  return std::lexicographical_compare(key, key + words_, first, first + words_);
}

size_t CountIndex::block_of(const uint64_t* key, size_t from) const {
  const auto after = [&](size_t b) { return before_block(key, b); };  // block b's first k-mer > key
  // The first block whose first k-mer is > key, in [lo, hi]: galloping up
  // from block `from`, whose first k-mer is <= key (from > 0), then halving.
  size_t lo = from, hi = blocks_.size();
  if (from > 0) {
    for (size_t step = 1; lo + step < hi; step *= 2) {
      if (after(lo + step)) {
        hi = lo + step;
        break;
      }
      lo += step;
    }
    ++lo;
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (!after(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo == 0 ? SIZE_MAX : lo - 1;
}

int CountIndex::compare_record(const char* rec, const uint8_t* packed) const {
  // The first byte's pad bits, which readers ignore, are left out of the comparison.
  const auto top = static_cast<uint8_t>(0xffu >> (2 * (4 * packed_bytes_ - s_.k)));
  const int c = int{static_cast<uint8_t>(rec[0] & top)} - int{packed[0]};
  return c != 0 ? c : compare_kmer_bytes(rec + 1, reinterpret_cast<const char*>(packed) + 1, packed_bytes_ - 1);
}

bool CountIndex::holds(const Loaded& l, const uint8_t* first, const uint8_t* last) const {
  if (l.whole) return true;
  const Block& blk = blocks_[l.block];
  const uint64_t n = l.buf.size() / blk.record_bytes;
  return (l.first == 0 || compare_record(l.buf.data(), first) <= 0) &&
         (l.first + n == blk.bytes / blk.record_bytes ||
          compare_record(l.buf.data() + (n - 1) * blk.record_bytes, last) >= 0);
}

void CountIndex::load(size_t b, const uint64_t* first, const uint64_t* last, const uint8_t* first_packed,
                      const uint8_t* last_packed, Loaded& l) const {
  const Block& blk = blocks_[b];
  l.block = b;
  // KFF: the records around where the block's first k-mer and the next
  // one's place the k-mers (spread evenly between them), when they hold them.
  const uint64_t records = blk.record_bytes ? blk.bytes / blk.record_bytes : 0;
  const uint64_t window = blk.record_bytes ? std::max<uint64_t>(16, kWindowBytes / blk.record_bytes) : 0;
  if (records > 2 * window && b + 1 < blocks_.size() && keys_[(b + 1) * words_] > keys_[b * words_]) {
    const uint64_t lo = keys_[b * words_], hi = keys_[(b + 1) * words_];  // lo <= first[0] <= last[0] <= hi
    const auto place = [&](const uint64_t* key) {
      return static_cast<uint64_t>(static_cast<double>(key[0] - lo) / static_cast<double>(hi - lo) *
                                   static_cast<double>(records));
    };
    const uint64_t from = std::min(place(first), records - window / 2), to = place(last);
    l.first = from > window / 2 ? from - window / 2 : 0;
    const uint64_t end = std::min(records, std::max(l.first + window, to + window / 2));
    if (2 * (end - l.first) <= records) {
      l.whole = false;
      l.buf.resize((end - l.first) * blk.record_bytes);
      read_exactly(fd_, l.buf.data(), l.buf.size(), blk.offset + l.first * blk.record_bytes, counts_path_);
      if (holds(l, first_packed, last_packed)) return;
    }
  }
  l.first = 0;
  l.whole = true;
  l.buf.resize(blk.bytes);
  read_exactly(fd_, l.buf.data(), blk.bytes, blk.offset, counts_path_);
}

uint64_t CountIndex::search_loaded(const Loaded& l, const uint8_t* packed) const {
  const Block& blk = blocks_[l.block];
  const std::vector<char>& buf = l.buf;
  const unsigned k = s_.k;
  if (blk.record_bytes) {  // KFF: records of one size, sorted: binary search on the packed bytes
    size_t lo = 0, hi = buf.size() / blk.record_bytes;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      const int c = compare_record(buf.data() + mid * blk.record_bytes, packed);
      if (c == 0) {
        const auto* d = reinterpret_cast<const uint8_t*>(buf.data() + mid * blk.record_bytes + packed_bytes_);
        return blk.data_size ? kff::load_be(d, blk.data_size) : 1;
      }
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return 0;
  }
  // TSV: the block's lines (each a k-mer of k letters first), binary search.
  char text[kMaxK];
  decode_packed_kmer(packed, k, text);
  thread_local std::vector<uint32_t> lines;
  lines.clear();
  for (size_t at = 0; at < buf.size();) {
    const void* nl = std::memchr(buf.data() + at, '\n', buf.size() - at);
    const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) : buf.size();
    if (end - at > k) lines.push_back(static_cast<uint32_t>(at));  // not an empty line
    at = end + 1;
  }
  size_t lo = 0, hi = lines.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const char* line = buf.data() + lines[mid];
    const int c = std::memcmp(line, text, k);
    if (c == 0) {
      uint64_t count = 0;
      for (const char* p = line + k; p < buf.data() + buf.size() && *p != '\n'; ++p)
        if (*p >= '0' && *p <= '9') count = count * 10 + static_cast<uint64_t>(*p - '0');
      return count;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

uint64_t CountIndex::count(std::string_view kmer) const {
  if (s_.kmers == 0) {
    check(kmer);
    return 0;
  }
  uint64_t key[(kMaxK + 31) / 32];
  uint8_t packed[kff::packed_bytes(kMaxK)];
  normalize(kmer, key, packed);
  const size_t b = block_of(key);
  if (b == SIZE_MAX) return 0;
  thread_local Loaded l;
  load(b, key, key, packed, packed, l);
  return search_loaded(l, packed);
}

template <class Normalize>
std::vector<uint64_t> CountIndex::look_up(size_t n, unsigned threads, const Normalize& normalize_one) const {
  std::vector<uint64_t> out(n, 0);
  threads = static_cast<unsigned>(std::clamp<size_t>(threads, 1, std::max<size_t>(1, n / 4096)));
  const unsigned w = words_, pb = packed_bytes_;
  std::vector<uint64_t> keys(n * w);
  std::vector<uint8_t> packed(n * pb);
  if (n > UINT32_MAX) throw std::invalid_argument("at most 4,294,967,295 k-mers a call");
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  const auto share = [&](unsigned id, size_t total) {  // thread id's [first, last) of total
    return std::pair<size_t, size_t>(total * id / threads, total * (id + 1) / threads);
  };
  std::atomic<bool> stop{false};
  // Each thread checks and packs its share, then (after the sort) looks up
  // its share of the sorted k-mers, reading each of its blocks once.
  detail::run_on_threads(
      threads,
      [&](unsigned id) {
        const auto [first, last] = share(id, n);
        for (size_t i = first; i < last && !stop.load(std::memory_order_relaxed); ++i)
          normalize_one(i, keys.data() + i * w, packed.data() + i * pb);
      },
      [&] { stop = true; });
  if (w == 1)
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  else
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const uint64_t* x = keys.data() + size_t{a} * w;
      const uint64_t* y = keys.data() + size_t{b} * w;
      return std::lexicographical_compare(x, x + w, y, y + w);
    });
  detail::run_on_threads(
      threads,
      [&](unsigned id) {
        const auto [first, last] = share(id, n);
        Loaded l;
        size_t from = 0;  // the block of the k-mer before
        const auto key_of = [&](size_t j) { return keys.data() + size_t{order[j]} * w; };
        const auto packed_of = [&](size_t j) { return packed.data() + size_t{order[j]} * pb; };
        for (size_t j = first; j < last && !stop.load(std::memory_order_relaxed);) {
          const size_t b = block_of(key_of(j), from);
          if (b == SIZE_MAX) {
            ++j;
            continue;
          }
          from = b;
          size_t end = j + 1;  // the sorted k-mers [j, end) are in block b: one read for them all
          while (end < last && (b + 1 == blocks_.size() || before_block(key_of(end), b + 1))) ++end;
          load(b, key_of(j), key_of(end - 1), packed_of(j), packed_of(end - 1), l);
          for (; j < end; ++j) out[order[j]] = search_loaded(l, packed_of(j));
        }
      },
      [&] { stop = true; });
  return out;
}

std::vector<uint64_t> CountIndex::counts(const std::vector<std::string_view>& kmers, unsigned threads) const {
  if (s_.kmers == 0) {
    for (const auto& x : kmers) check(x);
    return std::vector<uint64_t>(kmers.size(), 0);
  }
  return look_up(kmers.size(), threads,
                 [&](size_t i, uint64_t* key, uint8_t* packed) { normalize(kmers[i], key, packed); });
}

std::vector<uint64_t> CountIndex::counts_packed(const uint64_t* values, size_t n, unsigned threads) const {
  if (s_.k > 32)
    throw std::invalid_argument("packed k-mers are for k <= 32; " + counts_path_ + " holds " + std::to_string(s_.k) +
                                "-mers");
  if (s_.kmers == 0) return std::vector<uint64_t>(n, 0);
  return look_up(n, threads, [&](size_t i, uint64_t* key, uint8_t* packed) { normalize(values[i], key, packed); });
}

}  // namespace kmerbloom
