#include "bloom/bloom_file.hpp"

#include "common/format.hpp"
#include "formats/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace kmerbloom {
namespace {

// Payload words are written as their in-memory bytes.
static_assert(std::endian::native == std::endian::little,
              "bloom_file.cpp writes words in host order; add byte swapping for big-endian hosts");

using json = nlohmann::json;

constexpr uint32_t kMaxHeaderBytes = 1U << 20;
constexpr uint64_t kFixedPrefix = 16;    // magic + version + header length
constexpr uint64_t kTrailer = 4;         // CRC-32
constexpr uint64_t kDeflateMaxRatio = 1032;
constexpr size_t kChunk = size_t{1} << 20;
constexpr char kFormatName[] = "kmerbloom-filter";

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw FilterFileError(path + ": " + what);
}

std::string errno_text() { return std::strerror(errno); }

uint32_t crc_update(uint32_t crc, const void* data, size_t n) {
  return static_cast<uint32_t>(crc32_z(crc, static_cast<const Bytef*>(data), n));
}

void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint32_t get_u32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// ------------------------------------------------------------------- writing

// Writes through an OutputFile, keeping the CRC-32 of what went out.
class Output {
 public:
  explicit Output(OutputFile& file) : file_(file) {}
  void write(const void* data, size_t n) {
    crc_ = crc_update(crc_, data, n);
    raw_write(data, n);
  }
  void write_crc() {
    unsigned char b[4];
    put_u32(b, crc_);
    raw_write(b, sizeof b);
  }

 private:
  void raw_write(const void* data, size_t n) { file_.write(std::string_view(static_cast<const char*>(data), n)); }
  OutputFile& file_;
  uint32_t crc_ = 0;  // crc32 of no bytes
};

double fill_entropy(const BlockedBloom& f) {
  const double x = static_cast<double>(f.bits_set()) / static_cast<double>(f.bits());
  if (x <= 0.0 || x >= 1.0) return 0.0;
  return -(x * std::log2(x) + (1 - x) * std::log2(1 - x));
}

// The layer as one zlib stream, or nothing if compressing does not pay.
std::optional<std::vector<unsigned char>> compress_if_it_pays(const BlockedBloom& f) {
  if (fill_entropy(f) > 0.5) return std::nullopt;
  const auto* in = reinterpret_cast<const unsigned char*>(f.words().data());
  const uint64_t in_size = f.bytes();
  const auto limit = static_cast<size_t>(static_cast<double>(in_size) * 0.9);
  z_stream zs{};
  if (deflateInit(&zs, 1) != Z_OK) return std::nullopt;
  std::vector<unsigned char> out;
  uint64_t fed = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END && out.size() <= limit) {
    if (zs.avail_in == 0 && fed < in_size) {
      const uint64_t take = std::min<uint64_t>(in_size - fed, uint64_t{1} << 30);
      zs.next_in = const_cast<unsigned char*>(in + fed);
      zs.avail_in = static_cast<uInt>(take);
      fed += take;
    }
    const size_t used = out.size();
    out.resize(used + kChunk);
    zs.next_out = out.data() + used;
    zs.avail_out = static_cast<uInt>(kChunk);
    rc = deflate(&zs, fed == in_size ? Z_FINISH : Z_NO_FLUSH);
    out.resize(used + (kChunk - zs.avail_out));
    if (rc == Z_STREAM_ERROR) break;
  }
  deflateEnd(&zs);
  if (rc != Z_STREAM_END || out.size() > limit) return std::nullopt;
  return out;
}

void write_file(OutputFile& file, const std::string& header, const ScalableBloom& filter,
                const std::vector<std::optional<std::vector<unsigned char>>>& packed) {
  Output out(file);
  unsigned char prefix[kFixedPrefix];
  std::memcpy(prefix, kBloomFileMagic, 8);
  put_u32(prefix + 8, kBloomFileVersion);
  put_u32(prefix + 12, static_cast<uint32_t>(header.size()));
  out.write(prefix, sizeof prefix);
  out.write(header.data(), header.size());
  for (size_t i = 0; i < packed.size(); ++i) {
    if (packed[i]) {
      out.write(packed[i]->data(), packed[i]->size());
    } else {
      const BlockedBloom& f = filter.layer(i);
      out.write(f.words().data(), static_cast<size_t>(f.bytes()));
    }
  }
  out.write_crc();
}

// ------------------------------------------------------------------- reading

// The input file, read sequentially with a running CRC. A file that is not
// regular (pipe, device) is read into memory first, up to a cap.
class Input {
 public:
  // "-" is standard input, which is read through as a pipe is.
  Input(const std::string& path, uint64_t cap) : path_(display_name(path)) {
    fd_ = path == "-" ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(path_, "cannot open: " + errno_text());
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(path_, "cannot stat: " + errno_text());
    if (S_ISREG(st.st_mode)) {
      size_ = static_cast<uint64_t>(st.st_size);
    } else {
      slurp(cap);
      in_memory_ = true;
    }
  }
  ~Input() {
    if (fd_ >= 0) ::close(fd_);
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  [[nodiscard]] uint64_t size() const { return size_; }
  [[nodiscard]] uint64_t pos() const { return pos_; }
  [[nodiscard]] uint32_t crc() const { return crc_; }

  // Reads exactly n bytes (the caller checked they are within size()).
  void read(void* dst, size_t n) {
    raw_read(dst, n);
    crc_ = crc_update(crc_, dst, n);
  }
  // Hashes the bytes up to the trailer and compares with the stored CRC.
  [[nodiscard]] bool checksum_matches() {
    if (size_ < kFixedPrefix + kTrailer) return false;
    std::vector<unsigned char> buf(chunk());
    while (pos_ < size_ - kTrailer) read(buf.data(), static_cast<size_t>(std::min<uint64_t>(kChunk, size_ - kTrailer - pos_)));
    unsigned char stored[4];
    raw_read(stored, 4);
    stored_crc_ = get_u32(stored);
    return stored_crc_ == crc_;
  }
  [[nodiscard]] uint32_t stored_crc() const { return stored_crc_; }
  // Scratch size for reading through the file: small files take no 1 MiB.
  [[nodiscard]] size_t chunk() const { return static_cast<size_t>(std::min<uint64_t>(kChunk, size_)); }
  // checksum_matches() without consuming the input (pread, or the memory
  // copy): lets the caller check a file before allocating for it.
  [[nodiscard]] bool checksum_matches_ahead() {
    if (size_ < kFixedPrefix + kTrailer) return false;
    uint32_t crc = 0;
    std::vector<unsigned char> buf(chunk());
    unsigned char stored[kTrailer];
    for (uint64_t off = 0; off < size_;) {
      const auto n = static_cast<size_t>(std::min<uint64_t>(kChunk, size_ - off));
      if (in_memory_) {
        std::memcpy(buf.data(), mem_.data() + off, n);
      } else {
        const ssize_t r = ::pread(fd_, buf.data(), n, static_cast<off_t>(off));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail(path_, "read failed: " + errno_text());
        if (static_cast<size_t>(r) != n) fail(path_, "truncated: file shrank while reading");
      }
      const uint64_t data_end = size_ - kTrailer;
      if (off < data_end) crc = crc_update(crc, buf.data(), static_cast<size_t>(std::min<uint64_t>(n, data_end - off)));
      for (uint64_t i = std::max(off, data_end); i < off + n; ++i) stored[i - data_end] = buf[i - off];
      off += n;
    }
    return get_u32(stored) == crc;
  }

 private:
  void raw_read(void* dst, size_t n) {
    if (n > size_ - pos_) fail(path_, "truncated: unexpected end of file");
    auto* p = static_cast<unsigned char*>(dst);
    if (in_memory_) {
      std::memcpy(p, mem_.data() + pos_, n);
      pos_ += n;
      return;
    }
    while (n > 0) {
      const ssize_t r = ::read(fd_, p, std::min(n, size_t{1} << 30));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) fail(path_, "read failed: " + errno_text());
      if (r == 0) fail(path_, "truncated: file shrank while reading");
      p += r;
      n -= static_cast<size_t>(r);
      pos_ += static_cast<uint64_t>(r);
    }
  }
  void slurp(uint64_t cap) {
    std::vector<unsigned char> buf(kChunk);
    for (;;) {
      const ssize_t r = ::read(fd_, buf.data(), buf.size());
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) fail(path_, "read failed: " + errno_text());
      if (r == 0) break;
      if (mem_.size() + static_cast<uint64_t>(r) > cap) fail(path_, "input larger than the size limit");
      mem_.insert(mem_.end(), buf.data(), buf.data() + r);
    }
    size_ = mem_.size();
  }

  const std::string path_;  // for messages
  int fd_ = -1;
  std::vector<unsigned char> mem_;
  bool in_memory_ = false;
  uint64_t size_ = 0;
  uint64_t pos_ = 0;
  uint32_t crc_ = 0;  // crc32 of no bytes
  uint32_t stored_crc_ = 0;
};

// The header declares more bytes than the file holds.
struct Truncated : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct LayerRecord {
  uint64_t blocks = 0;
  unsigned hashes = 0;
  uint64_t capacity = 0;
  double target_fpr = 0;
  uint64_t keys = 0;
  bool zlib = false;
  uint64_t stored = 0;
};

struct Header {
  FilterMeta meta;
  ScalableBloomParams params;
  std::vector<LayerRecord> layers;
};

uint64_t get_u64(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number_unsigned()) throw std::invalid_argument(std::string("field '") + key + "' is not an unsigned integer");
  return v.get<uint64_t>();
}
double get_f64(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number()) throw std::invalid_argument(std::string("field '") + key + "' is not a number");
  return v.get<double>();
}

// Parses and checks the header; every size is validated against the file
// length and the limits here, before anything is allocated.
Header parse_header(const std::string& text, uint64_t payload_bytes, const LoadLimits& limits) {
  const json j = json::parse(text);
  if (j.at("format").get<std::string>() != kFormatName) throw std::invalid_argument("not a kmerbloom filter header");
  Header h;
  const uint64_t k = get_u64(j, "k");
  if (k > UINT32_MAX) throw std::invalid_argument("k out of range");
  h.meta.k = static_cast<uint32_t>(k);
  h.meta.canonical = j.at("canonical").get<bool>();
  h.meta.hash_name = j.at("hash").at("name").get<std::string>();
  h.meta.seed = get_u64(j.at("hash"), "seed");
  h.meta.min_count = get_u64(j, "min_count");
  h.meta.extra_json = j.at("extra").get<std::string>();
  const json& c = j.at("chain");
  h.params.initial_capacity = get_u64(c, "initial_capacity");
  h.params.fpr = get_f64(c, "fpr");
  h.params.growth = get_f64(c, "growth");
  h.params.tightening = get_f64(c, "tightening");
  h.params.linear_growth = c.at("linear").get<bool>();
  if (c.contains("first_share")) h.params.first_share = get_f64(c, "first_share");
  h.params.validate();
  const json& layers = j.at("layers");
  if (!layers.is_array() || layers.empty() || layers.size() > ScalableBloom::kMaxLayers)
    throw std::invalid_argument("layer list must hold 1 to " + std::to_string(ScalableBloom::kMaxLayers) + " layers");
  uint64_t stored_total = 0;
  uint64_t bytes_total = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const json& l = layers[i];
    const std::string at = "layer " + std::to_string(i) + ": ";
    LayerRecord r;
    r.blocks = get_u64(l, "blocks");
    const uint64_t hashes = get_u64(l, "hashes");
    r.capacity = get_u64(l, "capacity");
    r.target_fpr = get_f64(l, "target_fpr");
    r.keys = get_u64(l, "keys");
    r.stored = get_u64(l, "stored_bytes");
    const std::string enc = l.at("encoding").get<std::string>();
    if (enc != "raw" && enc != "zlib") throw std::invalid_argument(at + "unknown encoding '" + enc + "'");
    r.zlib = enc == "zlib";
    if (r.blocks == 0 || r.blocks > BlockedBloom::kMaxBlocks)
      throw std::invalid_argument(at + "block count " + std::to_string(r.blocks) + " out of range");
    if (hashes == 0 || hashes > BlockedBloom::kMaxHashes)
      throw std::invalid_argument(at + "hash count " + std::to_string(hashes) + " out of range");
    r.hashes = static_cast<unsigned>(hashes);
    const uint64_t bytes = r.blocks * BlockedBloom::kBlockBytes;  // <= 2^40: no overflow
    if (r.stored > payload_bytes)
      throw Truncated(at + "stored size " + std::to_string(r.stored) + " exceeds the " +
                      std::to_string(payload_bytes) + " payload bytes of the file");
    if (!r.zlib && r.stored != bytes)
      throw std::invalid_argument(at + "raw size " + std::to_string(r.stored) + " != " + std::to_string(bytes));
    if (r.zlib && (r.stored == 0 || bytes / kDeflateMaxRatio > r.stored))
      throw std::invalid_argument(at + std::to_string(r.stored) + " compressed bytes cannot inflate to " +
                                  std::to_string(bytes));
    stored_total += r.stored;  // each <= payload_bytes, at most 64 of them: no overflow
    bytes_total += bytes;
    if (bytes_total > limits.max_bytes)
      throw std::invalid_argument("filter size exceeds the load limit of " + std::to_string(limits.max_bytes) +
                                  " bytes");
    h.layers.push_back(r);
  }
  if (stored_total > payload_bytes)
    throw Truncated("layers declare " + std::to_string(stored_total) + " payload bytes, file has " +
                    std::to_string(payload_bytes));
  if (stored_total != payload_bytes)
    throw std::invalid_argument("layers declare " + std::to_string(stored_total) + " payload bytes, file has " +
                                std::to_string(payload_bytes));
  return h;
}

// Fills f's words from `stored` bytes of a zlib stream; false if corrupt.
bool inflate_into(Input& in, uint64_t stored, BlockedBloom& f) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return false;
  auto* out = reinterpret_cast<unsigned char*>(f.words().data());
  const uint64_t out_size = f.bytes();
  uint64_t produced = 0;
  uint64_t left = stored;
  std::vector<unsigned char> buf(static_cast<size_t>(std::min<uint64_t>(kChunk, stored)));
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (zs.avail_in == 0) {
      if (left == 0) break;
      const auto take = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
      in.read(buf.data(), take);
      left -= take;
      zs.next_in = buf.data();
      zs.avail_in = static_cast<uInt>(take);
    }
    const uint64_t room = std::min<uint64_t>(out_size - produced, uint64_t{1} << 30);
    zs.next_out = out + produced;
    zs.avail_out = static_cast<uInt>(room);
    rc = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (rc == Z_BUF_ERROR && room > 0 && zs.avail_in == 0) rc = Z_OK;  // needs more input
  }
  const bool ok = rc == Z_STREAM_END && produced == out_size && left == 0 && zs.avail_in == 0;
  inflateEnd(&zs);
  return ok;
}

}  // namespace

void save_filter(const std::string& path, const ScalableBloom& filter, const FilterMeta& meta) {
  json layers = json::array();
  std::vector<std::optional<std::vector<unsigned char>>> packed;
  for (size_t i = 0; i < filter.layers(); ++i) {
    const BloomLayerInfo info = filter.layer_info(i, false);
    const BlockedBloom& f = filter.layer(i);
    packed.push_back(compress_if_it_pays(f));
    layers.push_back({{"blocks", f.blocks()},
                      {"hashes", f.hashes()},
                      {"capacity", info.capacity},
                      {"target_fpr", info.target_fpr},
                      {"keys", info.keys},
                      {"encoding", packed.back() ? "zlib" : "raw"},
                      {"stored_bytes", packed.back() ? packed.back()->size() : f.bytes()}});
  }
  const ScalableBloomParams& p = filter.params();
  json header = {{"format", kFormatName},
                 {"k", meta.k},
                 {"canonical", meta.canonical},
                 {"hash", {{"name", meta.hash_name}, {"seed", meta.seed}}},
                 {"min_count", meta.min_count},
                 {"extra", meta.extra_json},
                 {"chain",
                  {{"initial_capacity", p.initial_capacity},
                   {"fpr", p.fpr},
                   {"growth", p.growth},
                   {"tightening", p.tightening},
                   {"linear", p.linear_growth}}},
                 {"layers", layers}};
  if (p.first_share > 0) header["chain"]["first_share"] = p.first_share;  // optional: older files lack it
  std::string text;
  try {
    text = header.dump();
  } catch (const json::exception& e) {  // e.g. invalid UTF-8 in a string
    throw OutputError(path + ": cannot encode the filter header: " + e.what());
  }
  if (text.size() > kMaxHeaderBytes) throw OutputError(path + ": filter header over 1 MiB (extra_json too large)");

  OutputFile file(path, /*gzip_by_name=*/false);
  write_file(file, text, filter, packed);
  file.commit();
}

LoadedFilter load_filter(const std::string& file, const LoadLimits& requested) {
  const std::string path = display_name(file);
  LoadLimits limits = requested;
  if (limits.max_bytes == 0) {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    limits.max_bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
                                             : uint64_t{16} << 30;
  }
  const uint64_t slurp_cap = limits.max_bytes + kMaxHeaderBytes + kFixedPrefix + kTrailer;
  Input in(file, slurp_cap);
  unsigned char prefix[kFixedPrefix];
  if (in.size() < 8 || (in.read(prefix, 8), std::memcmp(prefix, kBloomFileMagic, 8) != 0))
    fail(path, "not a kmerbloom filter file (bad magic)");
  if (in.size() < kFixedPrefix + kTrailer)
    fail(path, "truncated: " + std::to_string(in.size()) + " bytes");
  in.read(prefix + 8, 8);
  const uint32_t version = get_u32(prefix + 8);
  if (version != kBloomFileVersion)
    fail(path, "unsupported filter format version " + std::to_string(version) + " (this build reads version " +
                   std::to_string(kBloomFileVersion) + ")");
  const uint32_t header_len = get_u32(prefix + 12);
  // A bad field may come from corruption: prefer the checksum's verdict.
  const auto reject = [&](const std::string& what) {
    if (!in.checksum_matches()) fail(path, "checksum mismatch: file corrupted (" + what + ")");
    fail(path, what);
  };
  if (header_len > kMaxHeaderBytes) reject("header length " + std::to_string(header_len) + " over 1 MiB");
  if (kFixedPrefix + header_len + kTrailer > in.size())
    fail(path, "truncated or corrupted: the header needs " + std::to_string(kFixedPrefix + header_len + kTrailer) +
                   " bytes, the file has " + std::to_string(in.size()));
  std::string text(header_len, '\0');
  in.read(text.data(), header_len);
  const uint64_t payload = in.size() - kFixedPrefix - header_len - kTrailer;
  Header h;
  try {
    h = parse_header(text, payload, limits);
  } catch (const Truncated& e) {
    fail(path, std::string("truncated or corrupted: ") + e.what());
  } catch (const std::exception& e) {  // json errors, invalid_argument
    reject("bad header: " + printable(e.what(), 300));
  }
  // Compressed layers may claim up to 1032 times their size: a corrupted
  // file must not get that much memory allocated and zeroed before the
  // checksum refuses it.
  uint64_t filter_bytes = 0;
  for (const LayerRecord& r : h.layers) filter_bytes += r.blocks * BlockedBloom::kBlockBytes;
  if (filter_bytes > 2 * in.size() && !in.checksum_matches_ahead())
    fail(path, "checksum mismatch: file corrupted (checked before allocating " + std::to_string(filter_bytes) +
                   " bytes)");
  std::vector<ScalableBloom::RestoredLayer> layers;
  for (size_t i = 0; i < h.layers.size(); ++i) {
    const LayerRecord& r = h.layers[i];
    BlockedBloom f(r.blocks, r.hashes);  // sizes checked in parse_header
    if (r.zlib) {
      if (!inflate_into(in, r.stored, f)) reject("layer " + std::to_string(i) + ": corrupt zlib data");
    } else {
      in.read(f.words().data(), static_cast<size_t>(r.stored));
    }
    layers.push_back({std::move(f), r.capacity, r.target_fpr, r.keys});
  }
  const uint32_t computed = in.crc();
  if (!in.checksum_matches())
    fail(path, "checksum mismatch: file corrupted (stored " + std::to_string(in.stored_crc()) + ", computed " +
                   std::to_string(computed) + ")");
  try {
    return {h.meta, ScalableBloom::from_layers(h.params, std::move(layers))};
  } catch (const std::invalid_argument& e) {
    fail(path, std::string("bad header: ") + e.what());
  }
}

}  // namespace kmerbloom
