#include "common/machine.hpp"

#include <unistd.h>

#include <cctype>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

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

uint64_t available_memory(const std::string& proc, const std::string& cgroup_root) {
  uint64_t available = 0;
  {
    std::ifstream in(proc + "/meminfo");
    std::string key, unit;
    uint64_t value = 0;
    while (in >> key >> value) {
      std::getline(in, unit);
      if (key == "MemAvailable:") {
        available = value << 10;  // kB
        break;
      }
    }
  }
  // The cgroup this process runs in, and each one above it: a job of a
  // cluster or a container may have less room than the machine. cgroup v2
  // ("0::/path", memory.max and memory.current) or v1's memory controller
  // ("N:memory:/path", memory.limit_in_bytes and memory.usage_in_bytes; no
  // limit reads as a number past what parse_cache_size takes).
  auto take = [&](std::string dir, const std::string& top, const char* max_file, const char* used_file) {
    while (true) {
      const std::string max = read_line(dir + "/" + max_file);
      const uint64_t limit = max == "max" ? 0 : parse_cache_size(max);
      if (limit) {
        const uint64_t used = parse_cache_size(read_line(dir + "/" + used_file));
        const uint64_t room = limit > used ? limit - used : 0;
        available = available ? std::min(available, room) : room;
      }
      if (dir.size() <= top.size()) return;
      dir.erase(dir.find_last_of('/'));
    }
  };
  std::ifstream in(proc + "/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::string rel = path == "/" ? "" : path;
    if (line.rfind("0::", 0) == 0) take(cgroup_root + rel, cgroup_root, "memory.max", "memory.current");
    else if (controllers == "memory")
      take(cgroup_root + "/memory" + rel, cgroup_root + "/memory", "memory.limit_in_bytes", "memory.usage_in_bytes");
  }
  return available;
}

const CacheSizes& machine_caches() {
  static const CacheSizes c = read_cache_sizes();
  return c;
}

std::string CpuFeatures::names() const {
  if (!popcnt && !avx2) return "baseline";
  return avx2 ? (popcnt ? "popcnt avx2" : "avx2") : "popcnt";
}

CpuFeatures read_cpu_features(const char* env) {
  CpuFeatures f;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  f.popcnt = __builtin_cpu_supports("popcnt");
  f.avx2 = __builtin_cpu_supports("avx2");
  f.source = "cpuid";
#else
  f.source = "none";
#endif
  const std::string v = env ? env : "";
  if (v == "baseline") {
    f = CpuFeatures{};
    f.source = "KMERBLOOM_CPU";
  } else if (!v.empty() && v != "native") {
    throw std::invalid_argument("KMERBLOOM_CPU=" + v + ": expected baseline (the portable x86-64 code) or native (the CPU's own extensions, the default)");
  }
  return f;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    try {
      return read_cpu_features(std::getenv("KMERBLOOM_CPU"));
    } catch (const std::invalid_argument&) {
      return read_cpu_features(nullptr);  // the command line has refused it already
    }
  }();
  return f;
}

}  // namespace kmerbloom
