// Numbers and names for people (format.hpp).
#include "common/format.hpp"

#include <cmath>
#include <cstdio>

namespace kmerbloom {

std::string printable(std::string_view bytes, size_t max) {
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (bytes.size() > max) out += "...";
  return out;
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) seconds = 0;
  const auto t = static_cast<uint64_t>(seconds + 0.5);
  const uint64_t h = t / 3600, m = t / 60 % 60, s = t % 60;
  char buf[48];
  if (h)
    std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", static_cast<unsigned long long>(h),
                  static_cast<unsigned long long>(m), static_cast<unsigned long long>(s));
  else
    std::snprintf(buf, sizeof buf, "%llu:%02llu", static_cast<unsigned long long>(m),
                  static_cast<unsigned long long>(s));
  return buf;
}

std::string format_quantity(double v) {
  if (!(v >= 0) || !std::isfinite(v)) v = 0;
  static const char* const units[] = {"", " k", " M", " G", " T", " P"};
  int u = 0;
  while (v >= 999.5 && u < 5) {
    v /= 1000;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, v < 9.995 ? "%.2f%s" : v < 99.95 ? "%.1f%s" : "%.0f%s", v, units[u]);
  return buf;
}

std::string format_count(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_bytes(double v) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  for (; v >= 1024 && u < 4; ++u) v /= 1024;
  char buf[32];
  std::snprintf(buf, sizeof buf,
                u == 0    ? "%.0f %s"
                : v < 10  ? "%.2f %s"
                : v < 100 ? "%.1f %s"
                          : "%.0f %s",
                v, units[u]);
  return buf;
}

std::string plural(uint64_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

std::string format_megabytes(uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

std::string format_memory_option(uint64_t bytes) {
  constexpr uint64_t kMiB = uint64_t{1} << 20, kGiB = uint64_t{1} << 30;
  if (bytes <= kGiB) return std::to_string((bytes + kMiB - 1) / kMiB) + "M";
  const uint64_t tenths = bytes / kGiB * 10 + ((bytes % kGiB) * 10 + kGiB - 1) / kGiB;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "G";
}

std::string format_bases(double v) {
  char buf[32];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f Gb", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f Mb", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1f kb", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f b", v);
  return buf;
}

}  // namespace kmerbloom
