// What the machine the program runs on offers, read at run time: its data
// caches (the counter sizes its partitions for the L2 cache a counting
// thread has, on whatever node it lands: 0.5 to 2 MiB a core on current HPC
// nodes), its available memory (the counter's default spool) and its CPU's
// instruction-set extensions (which build of each hot loop runs).
//
// Caches, source, first that answers: the KMERBLOOM_L2_CACHE environment variable
// (bytes, or with a K, M or G suffix: a test plants a small cache with it, a
// user may say what a virtual machine hides), Linux sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*/: level, type, size and
// shared_cpu_list), sysconf(_SC_LEVEL2_CACHE_SIZE), else 1 MiB.
#pragma once

#include <cstdint>
#include <string>

namespace kmerbloom {

struct CacheSizes {
  uint64_t l2 = 0;             // bytes of the unified (or data) L2 cache of cpu0
  unsigned l2_shared_by = 1;   // logical CPUs sharing it (2 with SMT)
  uint64_t l3 = 0;             // bytes of the L3 cache, 0 when none was found
  std::string source;          // where l2 came from: "KMERBLOOM_L2_CACHE", "sysfs", "sysconf", "default"
  // L2 bytes one thread can count in: l2 / l2_shared_by.
  uint64_t l2_per_thread() const { return l2 / (l2_shared_by ? l2_shared_by : 1); }
};

// Reads the caches from `sysfs` (normally "/sys"; a test plants its own tree).
// The environment variable wins over it; never throws (a value that does not
// parse is ignored).
CacheSizes read_cache_sizes(const std::string& sysfs = "/sys");

// The running machine's, read once.
const CacheSizes& machine_caches();

// Memory this process can take without swapping or meeting a cgroup limit,
// read at each call: MemAvailable of <proc>/meminfo, and no more than the
// room left under memory.max of its cgroup (v2) and of every cgroup above it
// (a SLURM job's, a container's); 0 when unknown. Tests plant both trees.
uint64_t available_memory(const std::string& proc = "/proc", const std::string& cgroup_root = "/sys/fs/cgroup");

// "1024K", "2M", "1048576" -> bytes; 0 when it does not parse.
uint64_t parse_cache_size(const std::string& text);

// The instruction-set extensions the hot loops may use (the minimizer scan
// in AVX2 lanes, the filter's fill count with POPCNT): one portable x86-64
// binary holds each loop twice, and the CPU's own features choose, unless
// the KMERBLOOM_CPU environment variable says "baseline" (the portable code
// everywhere: a test runs both on one machine and compares their outputs; a
// user can rule out a CPU's extensions). "native" or empty is the default.
struct CpuFeatures {
  bool popcnt = false;
  bool avx2 = false;
  std::string source;  // "cpuid", "KMERBLOOM_CPU" or "none" (not x86-64)
  // "popcnt avx2", "popcnt", or "baseline" when neither.
  std::string names() const;
};

// `env` is KMERBLOOM_CPU's value (nullptr when unset). Throws
// std::invalid_argument naming the variable for any other value than
// "baseline", "native" or empty.
CpuFeatures read_cpu_features(const char* env);

// The running process's, read once; never throws (the command line calls
// read_cpu_features first, so that a bad value is a usage error; here it
// leaves the CPU's own features).
const CpuFeatures& cpu_features();

}  // namespace kmerbloom
