// Body of the fuzz_kff target, header-only so that the normal test suite
// (test/unit/test_kff.cpp) replays the seeds and saved inputs with g++.
//
// The bytes are read as a KFF file front to back (KffReader) and in k-mer
// order (KffSortedReader); InputError with a one-line message starting with
// the path is the accepted error. Oracles: the two readings agree (same
// k-mers and counts, or both fail; the sorted one may also refuse k-mers out
// of order); on 1 input in 4 the same bytes gzip-wrapped read the same (a
// stream), and what was read, written again by KffWriter, reads back equal.
//
// Thread safety: none; reuses static scratch files.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_harness.hpp"
#include "formats/kff.hpp"
#include "formats/output.hpp"

namespace kmerbloom::fuzz {

struct KffReading {
  std::vector<std::pair<std::string, uint64_t>> records;
  std::string error;  // the message after the path; empty when the file read whole
};

template <class Reader, class... Args>
KffReading kff_read_all(const std::string& path, Args... args) {
  KffReading out;
  try {
    Reader r(path, args...);
    std::string_view km;
    uint64_t count;
    while (r.next(km, count)) {
      if (km.empty() || km.find_first_not_of("ACGT") != std::string_view::npos) oracle_fail("k-mer not in ACGT");
      out.records.emplace_back(std::string(km), count);
      if (out.records.size() > (uint64_t{1} << 22)) break;  // forged block counts: enough checked
    }
  } catch (const InputError& e) {
    check_message(e.what(), path);
    out.error = std::string(e.what()).substr(path.size());
    if (out.error.empty()) oracle_fail("empty error message");
  }
  return out;
}

inline void kff_one(const uint8_t* bytes, size_t size) {
  static ScratchFile plain("kb-fuzz-kff"), wrapped("kb-fuzz-kff-gz");
  static const std::string copy =
      ((std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path()) /
       ("kb-fuzz-kff-copy-" + std::to_string(::getpid()) + ".kff")).string();
  const std::string_view data(reinterpret_cast<const char*>(bytes), size);
  const uint64_t h = input_hash(data);
  plain.set(data);
  const KffReading a = kff_read_all<KffReader>(plain.path());
  if (a.records.size() > (uint64_t{1} << 22)) return;
  const KffReading b = kff_read_all<KffSortedReader>(plain.path(), size_t{1} << (12 + h % 8));
  if (a.error.empty() != b.error.empty()) {
    const bool refused = b.error.find("out of order") != std::string::npos || b.error.find("merging needs one k") != std::string::npos;
    if (!a.error.empty() || !refused)
      oracle_fail("front-to-back and sorted readings disagree: '" + a.error + "' / '" + b.error + "'");
  }
  auto sorted = a.records;
  std::sort(sorted.begin(), sorted.end());
  if (a.error.empty() && b.error.empty()) {
    auto merged = b.records;
    std::sort(merged.begin(), merged.end());  // equal k-mers of different sections may come in either order
    if (merged != sorted) oracle_fail("sorted reading gives other k-mers than the front-to-back one");
    for (size_t i = 1; i < b.records.size(); ++i)
      if (b.records[i].first < b.records[i - 1].first) oracle_fail("sorted reading out of order");
  }
  if ((h >> 20) % 4 != 0) return;
  wrapped.set(gzip_members(data, 1 + static_cast<unsigned>((h >> 24) % 2)));
  const KffReading g = kff_read_all<KffReader>(wrapped.path());
  if (g.error != a.error || g.records != a.records) oracle_fail("plain and gzip readings differ: '" + a.error + "' / '" + g.error + "'");
  if (!a.error.empty() || sorted.empty()) return;
  // Written again (equal k-mers summed), then read back.
  std::map<std::string, uint64_t> sums;
  for (const auto& [km, c] : sorted) sums[km] = std::min<uint64_t>(UINT64_MAX - c, sums[km]) + c;
  const unsigned k = static_cast<unsigned>(sorted.front().first.size());
  if (std::any_of(sorted.begin(), sorted.end(), [&](const auto& r) { return r.first.size() != k; })) return;
  {
    OutputFile out(copy, false);
    KffWriter w(out, {.k = k, .section_kmers = 1 + h % 5});
    for (const auto& [km, c] : sums) w.add(km, c == 0 ? 1 : c);
    w.finish();
    out.commit();
  }
  const KffReading back = kff_read_all<KffReader>(copy);
  std::filesystem::remove(copy);
  std::vector<std::pair<std::string, uint64_t>> want;
  for (const auto& [km, c] : sums) want.emplace_back(km, c == 0 ? 1 : c);
  if (!back.error.empty() || back.records != want) oracle_fail("write/read round trip differs: " + back.error);
}

}  // namespace kmerbloom::fuzz
