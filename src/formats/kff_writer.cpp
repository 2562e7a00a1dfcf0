// KffWriter: sorted k-mers and counts into a KFF file as kmc_tools reads it.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "formats/kff_format.hpp"
#include "common/bases.hpp"
#include "formats/kff.hpp"
#include "formats/output.hpp"

namespace kmerbloom {

using namespace kff;

// Whether packed k-mer a sorts strictly before b (kmer_bytes_ bytes each,
// compared as big-endian words).
bool KffWriter::before(const uint8_t* a, const uint8_t* b) const {
  return compare_kmer_bytes(reinterpret_cast<const char*>(a), reinterpret_cast<const char*>(b), kmer_bytes_) < 0;
}

KffWriter::KffWriter(OutputFile& out, const KffWriterOptions& options)
    : out_(out), o_(options), kmer_bytes_(packed_bytes(options.k)) {
  if (o_.k < 1 || o_.k > kKffMaxK)
    throw std::invalid_argument("KFF: k = " + std::to_string(o_.k) + " outside 1.." + std::to_string(kKffMaxK));
  if (o_.section_kmers < 1) throw std::invalid_argument("KFF: section_kmers must be at least 1");
  packed_.reserve(kmer_bytes_ * std::min<uint64_t>(o_.section_kmers, uint64_t{1} << 16));
  last_.assign(kmer_bytes_, 0);
  const uint8_t header[] = {'K', 'F', 'F', kVersionMajor, kVersionMinor, kKffEncodingACGT,
                            1,  // unique
                            static_cast<uint8_t>(o_.canonical ? 1 : 0),
                            0, 0, 0, 0};  // no free block
  emit(header, sizeof header);
}

KffWriter::~KffWriter() = default;

void KffWriter::emit(const void* data, size_t n) {
  out_.write(std::string_view(static_cast<const char*>(data), n));
  written_ += n;
}

void KffWriter::add(std::string_view kmer, uint64_t count) {
  if (finished_) throw std::logic_error("KffWriter::add after finish");
  if (total_) throw std::logic_error("KffWriter::add in place");
  if (kmer.size() != o_.k)
    throw std::invalid_argument("KFF: k-mer of " + std::to_string(kmer.size()) + " bases, k is " + std::to_string(o_.k));
  if (count == 0) throw std::invalid_argument("KFF: count 0 for " + std::string(kmer));
  const size_t at = packed_.size();
  packed_.resize(at + kmer_bytes_);
  uint8_t* p = packed_.data() + at;
  // Right-aligned: the first byte holds the first (k - 1) % 4 + 1 bases.
  // Four letters a byte; anything but upper-case ACGT is flagged on the way
  // (one check for the whole k-mer).
  unsigned bad = 0, held = static_cast<unsigned>(4 * kmer_bytes_ - o_.k);  // bases of the byte filled so far
  unsigned byte = 0;
  for (const char c : kmer) {
    const uint8_t code = kBaseCode[static_cast<unsigned char>(c)];
    bad |= code | static_cast<unsigned>(kBaseChar[code & 3u] != c) << 2;
    byte = byte << 2 | (code & 3u);
    if (++held == 4) {
      *p++ = static_cast<uint8_t>(byte);
      byte = 0;
      held = 0;
    }
  }
  if (bad > 3) throw std::invalid_argument("KFF: not an ACGT k-mer: " + std::string(kmer));
  p = packed_.data() + at;
  if (kmers_ > 0 && !before(last_.data(), p))
    throw std::invalid_argument("KFF: k-mers must come sorted and unique: " + std::string(kmer) + " is not after the one before");
  std::memcpy(last_.data(), p, kmer_bytes_);
  counts_.push_back(count);
  ++kmers_;
  if (counts_.size() >= o_.section_kmers) flush_section();
}

void KffWriter::expect_largest_count(uint64_t largest) {
  if (kmers_ > 0 || finished_) throw std::logic_error("KffWriter::expect_largest_count after the first k-mer");
  largest_ = largest;
}

void KffWriter::add(const PackedKmers& chunk) {
  if (finished_) throw std::logic_error("KffWriter::add after finish");
  if (total_) throw std::logic_error("KffWriter::add in place");
  for (size_t i = 0; i < chunk.n;) {
    // Up to the end of the section: checked, then appended at once.
    const size_t m = std::min<size_t>(chunk.n - i, o_.section_kmers - counts_.size());
    const uint8_t* first = chunk.packed + i * kmer_bytes_;
    check_chunk({chunk.k, first, chunk.counts + i, m}, kmers_ > 0 ? last_.data() : nullptr);
    packed_.insert(packed_.end(), first, first + m * kmer_bytes_);
    counts_.insert(counts_.end(), chunk.counts + i, chunk.counts + i + m);
    std::memcpy(last_.data(), first + (m - 1) * kmer_bytes_, kmer_bytes_);
    kmers_ += m;
    i += m;
    if (counts_.size() >= o_.section_kmers) flush_section();
  }
}

// Each k-mer of `chunk` valid (no bits above its first base, a count of at
// least 1, at most count_limit_ in place) and after the one before (`prev`
// first, when given).
void KffWriter::check_chunk(const PackedKmers& chunk, const uint8_t* prev) const {
  if (chunk.k != o_.k)
    throw std::invalid_argument("KFF: k-mers of " + std::to_string(chunk.k) + " bases, k is " + std::to_string(o_.k));
  const unsigned pad = static_cast<unsigned>(8 * kmer_bytes_ - 2 * o_.k);  // bits above the first base
  auto text = [&](const uint8_t* p) { return packed_kmer_letters(p, o_.k); };
  for (size_t j = 0; j < chunk.n; ++j) {
    const uint8_t* p = chunk.packed + j * kmer_bytes_;
    if (pad && (p[0] >> (8 - pad)) != 0) throw std::invalid_argument("KFF: a packed k-mer with bits set above its first base");
    if (chunk.counts[j] == 0) throw std::invalid_argument("KFF: count 0 for " + text(p));
    if (total_ && chunk.counts[j] > count_limit_)
      throw std::invalid_argument("KFF: count " + std::to_string(chunk.counts[j]) + " of " + text(p) +
                                  " above the bound given to expect_largest_count");
    if (prev && !before(prev, p))
      throw std::invalid_argument("KFF: k-mers must come sorted and unique: " + text(p) + " is not after the one before");
    prev = p;
  }
}

bool KffWriter::begin_in_place(uint64_t total) {
  if (kmers_ > 0 || total_ || finished_) throw std::logic_error("KffWriter::begin_in_place after the first k-mer");
  if (total == 0 || !out_.writes_at_offsets()) return false;
  const unsigned width = file_width();  // the scope flush_section opens for counts within the bound
  write_vars({{"k", o_.k}, {"max", 1}, {"data_size", width}, {"ordered", 1}});
  scope_width_ = widest_ = width;
  total_ = total;
  data_at_ = written_;
  record_ = kmer_bytes_ + width;
  count_limit_ = width >= 8 ? UINT64_MAX : (uint64_t{1} << (8 * width)) - 1;
  const uint64_t S = o_.section_kmers;
  for (uint64_t first = 0; first < total; first += S) sections_.emplace_back('r', record_offset(first) - 9);
  return true;
}

// File offset of k-mer i's bytes in place: past the sections before its own
// and its section's header ('r' and the k-mer count, 9 bytes).
uint64_t KffWriter::record_offset(uint64_t i) const {
  const uint64_t S = o_.section_kmers;
  return data_at_ + (i / S) * (9 + S * record_) + 9 + (i % S) * record_;
}

void KffWriter::write_at(uint64_t first, const PackedKmers& chunk, std::string& scratch) const {
  if (!total_) throw std::logic_error("KffWriter::write_at before begin_in_place");
  if (chunk.n == 0) return;
  if (first + chunk.n > total_) throw std::logic_error("KffWriter::write_at past the k-mers announced");
  check_chunk(chunk, nullptr);
  const uint64_t S = o_.section_kmers;
  const unsigned width = static_cast<unsigned>(record_ - kmer_bytes_);
  scratch.clear();
  for (size_t j = 0; j < chunk.n; ++j) {
    const uint64_t i = first + j;
    if (i % S == 0) {  // a section opens
      scratch.push_back('r');
      append_be(scratch, std::min(S, total_ - i), 8);
    }
    scratch.append(reinterpret_cast<const char*>(chunk.packed + j * kmer_bytes_), kmer_bytes_);
    append_be(scratch, chunk.counts[j], width);
  }
  out_.write_at(first % S == 0 ? record_offset(first) - 9 : record_offset(first), scratch);
}

void KffWriter::write_vars(const std::vector<std::pair<std::string, uint64_t>>& vars) {
  sections_.emplace_back('v', written_);
  std::string s(1, 'v');
  append_be(s, vars.size(), 8);
  for (const auto& [name, value] : vars) {
    s.append(name.c_str(), name.size() + 1);
    append_be(s, value, 8);
  }
  emit(s.data(), s.size());
}

// One width for the whole file, as KMC writes it (kmc_tools 3.2's sorted
// dump reads every section with the first one's): the bytes of the largest
// count the file may hold (max_count, or the bound expect_largest_count
// gave, at most KMC's 32-bit counters).
unsigned KffWriter::file_width() const {
  return std::max(1u, bytes_for(std::min<uint64_t>({o_.max_count, UINT32_MAX, largest_})));
}

void KffWriter::flush_section() {
  const uint64_t n = counts_.size();
  uint64_t largest = 0;
  for (uint64_t& c : counts_) {
    if (c > kKffMaxCount) {
      c = kKffMaxCount;
      ++capped_;
    }
    largest = std::max(largest, c);
  }
  // file_width, wider only for a section whose counts need more (counts
  // above a max_count that was not their bound).
  const unsigned width = std::max({file_width(), bytes_for(largest), scope_width_});
  if (width != scope_width_) {
    write_vars({{"k", o_.k}, {"max", 1}, {"data_size", width}, {"ordered", 1}});
    scope_width_ = width;
    widest_ = std::max(widest_, width);
  }
  sections_.emplace_back('r', written_);
  std::string s(1, 'r');
  append_be(s, n, 8);
  emit(s.data(), s.size());
  // Each k-mer, then its count (big-endian).
  section_.resize(n * (kmer_bytes_ + width));
  uint8_t* w = section_.data();
  for (uint64_t i = 0; i < n; ++i) {
    copy_kmer_bytes(reinterpret_cast<char*>(w), reinterpret_cast<const char*>(packed_.data()) + i * kmer_bytes_, kmer_bytes_);
    w += kmer_bytes_;
    for (unsigned b = width; b-- > 0;) *w++ = static_cast<uint8_t>(counts_[i] >> (8 * b));
  }
  emit(section_.data(), section_.size());
  packed_.clear();
  counts_.clear();
}

void KffWriter::finish() {
  if (finished_) return;
  if (total_) {  // in place: the data ends where the last section does
    const uint64_t end = record_offset(total_ - 1) + record_;
    out_.seek(end);
    written_ = end;
    kmers_ = total_;
  }
  if (!counts_.empty() || scope_width_ == 0) flush_section();  // no k-mers at all: one empty section
  // Index of every section so far and of the footer, which follows it.
  const uint64_t index_at = written_;
  sections_.emplace_back('v', 0);  // the footer
  const uint64_t index_end = index_at + 1 + 8 + 9 * sections_.size() + 8;
  sections_.back().second = index_end;
  std::string s(1, 'i');
  append_be(s, sections_.size(), 8);
  for (const auto& [type, at] : sections_) {
    s.push_back(type);
    append_be(s, at - index_end, 8);  // two's complement: negative for sections before the index
  }
  append_be(s, 0, 8);  // no further index
  emit(s.data(), s.size());
  sections_.pop_back();  // write_vars records the footer itself
  std::vector<std::pair<std::string, uint64_t>> footer = {
      {"first_index", index_at}, {"min_count", o_.min_count}, {"max_count", o_.max_count},
      {"counter_size", widest_}, {"footer_size", 0}};
  uint64_t size = 1 + 8;
  for (const auto& v : footer) size += v.first.size() + 1 + 8;
  footer.back().second = size;
  write_vars(footer);
  emit("KFF", 3);
  finished_ = true;
}

}  // namespace kmerbloom
