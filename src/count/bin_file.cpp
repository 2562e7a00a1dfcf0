// write_bins (the scatter step) and BinFile (its reader, for count).
#include "count/bin_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "count/bins.hpp"
#include "count/plan.hpp"
#include "formats/output.hpp"
#include "seqio/paths.hpp"
#include "kmer/hash.hpp"
#include "kmer/kmer.hpp"
#include "kmer/minimizer.hpp"

namespace kmerbloom {
namespace detail {

BinChecksum::BinChecksum(uint64_t size) : h_(mix64(size ^ 0x6b6d657262696e73ULL)) {}

void BinChecksum::add(const uint8_t* data, uint64_t size) {
  while (size > 0 && (held_ > 0 || size < 8)) {  // finish a started word first
    word_[held_++] = *data++;
    --size;
    if (held_ == 8) {
      uint64_t w;
      std::memcpy(&w, word_, 8);
      h_ = mix64(h_ ^ w) + at_;
      at_ += 8;
      held_ = 0;
    }
  }
  for (; size >= 8; size -= 8, data += 8, at_ += 8) {
    uint64_t w;
    std::memcpy(&w, data, 8);
    h_ = mix64(h_ ^ w) + at_;
  }
  for (; size > 0; --size) word_[held_++] = *data++;
}

uint64_t BinChecksum::finish() const {
  uint64_t tail = 0;
  std::memcpy(&tail, word_, held_);
  return mix64(h_ ^ tail);
}

uint64_t bin_checksum(const uint8_t* data, uint64_t size) {
  BinChecksum c(size);
  c.add(data, size);
  return c.finish();
}

BinFile::BinFile(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(path_ + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) fail("not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < sizeof(BinHeader) + sizeof(BinTrailer)) fail("too short for a bin file (" + std::to_string(size) + " bytes)");
  read_at(&header_, sizeof header_, 0);
  if (std::memcmp(header_.magic, kBinMagic, 8) != 0) fail("not a kmerbloom bin file (no KMERBINS signature)");
  if (header_.version != kBinVersion)
    fail("bin file version " + std::to_string(header_.version) + ", this kmerbloom reads version " +
         std::to_string(kBinVersion));
  if (header_.k < 1 || header_.k > kMaxK) fail("k = " + std::to_string(header_.k) + " outside 1.." + std::to_string(kMaxK));
  if (header_.canonical > 1) fail("bad strandedness flag " + std::to_string(header_.canonical));
  if (header_.minimizer != minimizer_length(header_.k))
    fail("minimizers of " + std::to_string(header_.minimizer) + " bases, this kmerbloom uses " +
         std::to_string(minimizer_length(header_.k)) + " for k = " + std::to_string(header_.k));
  if (header_.bins < 1 || header_.bins > kMaxBins)
    fail(std::to_string(header_.bins) + " bins, outside 1.." + std::to_string(kMaxBins));
  BinTrailer t{};
  read_at(&t, sizeof t, size - sizeof t);
  if (std::memcmp(t.magic, kBinMagic, 8) != 0) fail("cut short or damaged (the trailer's signature is missing)");
  const uint64_t index_bytes = uint64_t{header_.bins} * sizeof(BinIndexEntry);
  if (t.index_offset < sizeof(BinHeader) || t.index_offset + index_bytes + sizeof t != size)
    fail("damaged: the index does not fit the file's size");
  index_.resize(header_.bins);
  read_at(index_.data(), index_bytes, t.index_offset);
  if (bin_checksum(reinterpret_cast<const uint8_t*>(index_.data()), index_bytes) != t.index_checksum)
    fail("damaged: index checksum mismatch");
  uint64_t at = sizeof(BinHeader);
  for (uint32_t b = 0; b < header_.bins; ++b) {
    const BinIndexEntry& e = index_[b];
    if (e.offset != at || e.bytes > t.index_offset - at || e.kmers > e.bytes * 4)
      fail("damaged: bin " + std::to_string(b) + " does not fit between the header and the index");
    at += e.bytes;
  }
  if (at != t.index_offset) fail("damaged: the bins do not fill the file up to the index");
}

BinFile::~BinFile() {
  if (fd_ >= 0) ::close(fd_);
}

BinFile::BinFile(BinFile&& o) noexcept
    : path_(std::move(o.path_)), fd_(o.fd_), header_(o.header_), index_(std::move(o.index_)) {
  o.fd_ = -1;
}

void BinFile::fail(const std::string& what) const { throw InputError(path_ + ": " + what); }

void BinFile::read_at(void* out, uint64_t size, uint64_t offset) const {
  auto* p = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t n = ::pread(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::string("read error: ") + std::strerror(errno));
    if (n == 0) fail("cut short at byte " + std::to_string(offset));
    p += n;
    size -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
}

void BinFile::append_bin(uint32_t b, uint64_t serial, LoadedPartition& out) const {
  const BinIndexEntry& e = index_[b];
  const uint64_t at = out.data.size();
  out.data.resize(at + e.bytes);
  uint8_t* data = out.data.data() + at;
  read_at(data, e.bytes, e.offset);
  if (bin_checksum(data, e.bytes) != e.checksum) fail("bin " + std::to_string(b) + ": checksum mismatch (the file is damaged)");
  // Walk the records: each must end inside the bin, and they hold the
  // index's k-mers (what count sizes the bin's filter and table from).
  // Fragment sizes are 32-bit: a bin above 2 GiB is split on record boundaries.
  uint64_t kmers = 0, start = 0, i = 0;
  uint32_t number = 0;
  while (i < e.bytes) {
    const uint64_t next = i + 1 + (header_.k + data[i] + 3) / 4;  // k - 1 + n bases, n = byte + 1
    if (next > e.bytes) break;
    if (next - start > (uint64_t{1} << 31)) {
      out.fragments.push_back({serial, number++, static_cast<uint32_t>(i - start), at + start});
      start = i;
    }
    kmers += data[i] + 1u;
    i = next;
  }
  if (i != e.bytes || kmers != e.kmers)
    fail("bin " + std::to_string(b) + ": records do not match the index (" + std::to_string(kmers) + " k-mers, index " +
         std::to_string(e.kmers) + ")");
  if (e.bytes > start) out.fragments.push_back({serial, number, static_cast<uint32_t>(e.bytes - start), at + start});
}

}  // namespace detail

uint32_t default_bins(unsigned k) { return 1024u * partition_factor(k); }

void BinOptions::validate() const {
  ReadSetOptions::validate(kMaxK);
  if (output.empty() || output == "-") throw std::invalid_argument("-o: bin files are written to a named file, not stdout");
  if (bins > kMaxBins) throw std::invalid_argument("--bins must be between 1 and " + std::to_string(kMaxBins));
}

bool is_bin_file(const std::string& path) {
  if (path == "-" || is_stream(path)) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[8];
  const bool yes = ::pread(fd, magic, 8, 0) == 8 && std::memcmp(magic, detail::kBinMagic, 8) == 0;
  ::close(fd);
  return yes;
}

BinFileInfo read_bin_info(const std::string& path) {
  const detail::BinFile f(path);
  return {f.header().k, f.header().canonical != 0, f.header().bins, f.header().reads};
}

void take_bin_shape(CountOptions& o, bool k_given, bool canonical_given) {
  if (o.inputs.empty() || !is_bin_file(o.inputs.front())) return;
  const BinFileInfo info = read_bin_info(o.inputs.front());
  if (!k_given) o.k = info.k;
  if (!canonical_given) o.canonical = info.canonical;
}

BinResult write_bins(const BinOptions& o, const CountHooks& hooks) {
  o.validate();
  CountOptions co;
  co.read_set() = o.read_set();
  co.validate();
  CountEstimate est;
  est.bins = o.bins ? o.bins : default_bins(o.k);
  CountPlan plan;
  try {
    plan = plan_count(co, est);
  } catch (const BudgetError& e) {  // the plan speaks of counting
    std::string what = e.reason();
    if (what.rfind("cannot count", 0) == 0) what.replace(0, 12, "cannot bin");
    if (!e.least()) throw BudgetError(what);
    throw BudgetError(what, e.least(), e.also());
  }
  OutputFile out(o.output, false);
  SpoolOptions so;
  so.dir = plan.tmp_dir;
  so.memory_budget = plan.spool_memory;
  so.slot_bytes = plan.block_bytes;
  Spool spool(so);
  detail::PartitionStore store(plan.partitions, spool);
  if (hooks.pass) hooks.pass("reading the input into " + std::to_string(plan.partitions) + " bins");
  PipelineProgress own;
  BinResult r;
  const std::vector<uint64_t> kmers =
      detail::scatter_input(co, plan, store, hooks.progress ? *hooks.progress : own, r.input);

  detail::BinHeader h{};
  std::memcpy(h.magic, detail::kBinMagic, 8);
  h.version = detail::kBinVersion;
  h.k = o.k;
  h.canonical = o.canonical ? 1 : 0;
  h.minimizer = plan.minimizer;
  h.bins = plan.partitions;
  h.reads = r.input.reads;
  h.bases = r.input.bases;
  h.bases_skipped = r.input.bases_skipped;
  out.write({reinterpret_cast<const char*>(&h), sizeof h});
  std::vector<detail::BinIndexEntry> index(plan.partitions);
  uint64_t at = sizeof h;
  detail::LoadedPartition part;
  for (uint32_t b = 0; b < plan.partitions; ++b) {
    detail::load_partition(store, b, part);  // fragments in input order
    uint64_t bytes = 0;
    for (const auto& f : part.fragments) bytes += f.bytes;
    detail::BinChecksum sum(bytes);
    for (const auto& f : part.fragments) {
      const uint8_t* p = part.data.data() + f.offset;
      sum.add(p, f.bytes);
      out.write({reinterpret_cast<const char*>(p), f.bytes});
    }
    index[b] = {at, bytes, kmers[b], sum.finish()};
    at += bytes;
    r.input.kmers += kmers[b];
    r.largest_bin_kmers = std::max(r.largest_bin_kmers, kmers[b]);
  }
  const uint64_t index_bytes = index.size() * sizeof(detail::BinIndexEntry);
  out.write({reinterpret_cast<const char*>(index.data()), index_bytes});
  detail::BinTrailer t{at, detail::bin_checksum(reinterpret_cast<const uint8_t*>(index.data()), index_bytes), {}};
  std::memcpy(t.magic, detail::kBinMagic, 8);
  out.write({reinterpret_cast<const char*>(&t), sizeof t});
  out.commit();
  r.bins = plan.partitions;
  r.bytes = at + index_bytes + sizeof t;
  r.spool = {spool.dir(), spool.memory_budget(), spool.memory_peak(), spool.disk_bytes()};
  return r;
}

}  // namespace kmerbloom
