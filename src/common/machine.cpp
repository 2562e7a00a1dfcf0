#include "common/machine.hpp"

#include <unistd.h>

#include <cctype>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kmerbloom {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// Logical CPUs in a list such as "0-1", "0,64" or "3".
unsigned cpus_in_list(const std::string& list) {
  unsigned n = 0;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t dash = item.find('-');
    try {
      if (dash == std::string::npos) {
        if (!item.empty()) ++n;
      } else {
        const long a = std::stol(item.substr(0, dash)), b = std::stol(item.substr(dash + 1));
        if (b >= a) n += static_cast<unsigned>(b - a + 1);
      }
    } catch (const std::exception&) {
    }
  }
  return n;
}

}  // namespace

uint64_t parse_cache_size(const std::string& text) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (v > (uint64_t{1} << 50)) return 0;
    v = v * 10 + static_cast<uint64_t>(text[i++] - '0');
  }
  if (i == 0) return 0;
  std::string unit = text.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  if (unit.empty() || unit == "B") return v;
  switch (std::toupper(static_cast<unsigned char>(unit[0]))) {
    case 'K': return unit.size() <= 3 ? v << 10 : 0;
    case 'M': return unit.size() <= 3 ? v << 20 : 0;
    case 'G': return unit.size() <= 3 ? v << 30 : 0;
    default: return 0;
  }
}

CacheSizes read_cache_sizes(const std::string& sysfs) {
  CacheSizes c;
  const std::string dir = sysfs + "/devices/system/cpu/cpu0/cache/index";
  for (unsigned i = 0; i < 16; ++i) {
    const std::string at = dir + std::to_string(i) + "/";
    const std::string level = read_line(at + "level");
    if (level.empty()) {
      if (i >= 4) break;
      continue;
    }
    const std::string type = read_line(at + "type");
    if (type == "Instruction") continue;
    const uint64_t size = parse_cache_size(read_line(at + "size"));
    if (size == 0) continue;
    if (level == "2") {
      c.l2 = size;
      c.l2_shared_by = std::max(1u, cpus_in_list(read_line(at + "shared_cpu_list")));
      c.source = "sysfs";
    } else if (level == "3") {
      c.l3 = size;
    }
  }
  if (c.l2 == 0) {
    const long s = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (s > 0) {
      c.l2 = static_cast<uint64_t>(s);
      c.source = "sysconf";
    }
  }
  if (c.l2 == 0) {
    c.l2 = uint64_t{1} << 20;
    c.source = "default";
  }
  if (const char* env = std::getenv("KMERBLOOM_L2_CACHE")) {
    if (const uint64_t v = parse_cache_size(env)) {
      c.l2 = v;
      c.l2_shared_by = 1;
      c.source = "KMERBLOOM_L2_CACHE";
    }
  }
  return c;
}

uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value << 10;  // kB
  }
  return 0;
}

const CacheSizes& machine_caches() {
  static const CacheSizes c = read_cache_sizes();
  return c;
}

}  // namespace kmerbloom
