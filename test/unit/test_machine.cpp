// common/machine: the caches read from a planted sysfs tree, the environment
// variable over it, sizes as the kernel writes them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/machine.hpp"

using namespace kmerbloom;
namespace fs = std::filesystem;

namespace {

// index<i>/{level,type,size,shared_cpu_list} under root/devices/system/cpu/cpu0/cache.
void plant(const fs::path& root, int i, const char* level, const char* type, const char* size, const char* shared) {
  const fs::path d = root / "devices/system/cpu/cpu0/cache" / ("index" + std::to_string(i));
  fs::create_directories(d);
  std::ofstream(d / "level") << level << "\n";
  std::ofstream(d / "type") << type << "\n";
  std::ofstream(d / "size") << size << "\n";
  std::ofstream(d / "shared_cpu_list") << shared << "\n";
}

struct NoEnv {
  NoEnv() { unsetenv("KMERBLOOM_L2_CACHE"); }
  ~NoEnv() { unsetenv("KMERBLOOM_L2_CACHE"); }
};

}  // namespace

TEST(Machine, CacheSizesParseAsTheKernelWritesThem) {
  EXPECT_EQ(parse_cache_size("1024K"), uint64_t{1} << 20);
  EXPECT_EQ(parse_cache_size("2M"), uint64_t{2} << 20);
  EXPECT_EQ(parse_cache_size("32768K\n"), uint64_t{32} << 20);
  EXPECT_EQ(parse_cache_size("65536"), 65536u);
  EXPECT_EQ(parse_cache_size("1G"), uint64_t{1} << 30);
  EXPECT_EQ(parse_cache_size(""), 0u);
  EXPECT_EQ(parse_cache_size("K"), 0u);
  EXPECT_EQ(parse_cache_size("12X"), 0u);
}

TEST(Machine, L2FromAPlantedSysfsSharedBySmtSiblings) {
  NoEnv env;
  const fs::path root = fs::path(::testing::TempDir()) / "machine_sysfs";
  fs::remove_all(root);
  plant(root, 0, "1", "Data", "48K", "0,64");
  plant(root, 1, "1", "Instruction", "32K", "0,64");
  plant(root, 2, "2", "Unified", "2048K", "0,64");
  plant(root, 3, "3", "Unified", "105M", "0-63,64-127");
  const CacheSizes c = read_cache_sizes(root.string());
  EXPECT_EQ(c.source, "sysfs");
  EXPECT_EQ(c.l2, uint64_t{2} << 20);
  EXPECT_EQ(c.l2_shared_by, 2u);
  EXPECT_EQ(c.l2_per_thread(), uint64_t{1} << 20);
  EXPECT_EQ(c.l3, uint64_t{105} << 20);
}

TEST(Machine, TheEnvironmentVariableWinsAndNonsenseIsIgnored) {
  NoEnv env;
  const fs::path root = fs::path(::testing::TempDir()) / "machine_sysfs_env";
  fs::remove_all(root);
  plant(root, 2, "2", "Unified", "512K", "0");
  setenv("KMERBLOOM_L2_CACHE", "64K", 1);
  CacheSizes c = read_cache_sizes(root.string());
  EXPECT_EQ(c.source, "KMERBLOOM_L2_CACHE");
  EXPECT_EQ(c.l2_per_thread(), 65536u);
  setenv("KMERBLOOM_L2_CACHE", "lots", 1);
  c = read_cache_sizes(root.string());
  EXPECT_EQ(c.source, "sysfs");
  EXPECT_EQ(c.l2, uint64_t{512} << 10);
}

namespace {
void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}
}  // namespace

// The room under a cgroup's limit, the tightest of the process's cgroup and
// those above it, wins over MemAvailable when smaller: cgroup v2 (a SLURM
// job's limit on the job, none on the step) and v1's memory controller.
TEST(Machine, AvailableMemoryIsTheTightestOfMemAvailableAndTheCgroups) {
  const fs::path root = fs::path(::testing::TempDir()) / "machine_mem";
  fs::remove_all(root);
  const fs::path proc = root / "proc", cg = root / "cgroup";
  write(proc / "meminfo", "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    8000000 kB\n");
  write(proc / "self/cgroup", "0::/job_7/step_0\n");
  EXPECT_EQ(available_memory(proc.string(), cg.string()), uint64_t{8000000} << 10);  // no limit files at all
  write(cg / "job_7/memory.max", "1073741824\n");
  write(cg / "job_7/memory.current", "268435456\n");
  write(cg / "job_7/step_0/memory.max", "max\n");
  write(cg / "job_7/step_0/memory.current", "4096\n");
  EXPECT_EQ(available_memory(proc.string(), cg.string()), uint64_t{768} << 20);
  write(cg / "job_7/memory.current", "2000000000\n");  // past the limit: no room
  EXPECT_EQ(available_memory(proc.string(), cg.string()), 0u);
  write(proc / "self/cgroup", "9:pids:/\n4:memory:/slurm/uid_0/job_3\n0::/\n");
  write(cg / "memory/slurm/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
  write(cg / "memory/slurm/uid_0/job_3/memory.limit_in_bytes", "2147483648\n");
  write(cg / "memory/slurm/uid_0/job_3/memory.usage_in_bytes", "1073741824\n");
  EXPECT_EQ(available_memory(proc.string(), cg.string()), uint64_t{1} << 30);
}

TEST(Machine, WithoutSysfsSomethingSensibleIsUsed) {
  NoEnv env;
  const CacheSizes c = read_cache_sizes((fs::path(::testing::TempDir()) / "machine_no_sysfs").string());
  EXPECT_TRUE(c.source == "sysconf" || c.source == "default") << c.source;
  EXPECT_GE(c.l2, uint64_t{64} << 10);
  EXPECT_GT(available_memory(), 0u);  // Linux: /proc/meminfo
}

TEST(Machine, KmerbloomCpuBaselineRulesOutTheExtensionsAndNonsenseIsRefused) {
  const CpuFeatures own = read_cpu_features(nullptr);
  EXPECT_EQ(read_cpu_features("native").names(), own.names());
  EXPECT_EQ(read_cpu_features("").names(), own.names());
  const CpuFeatures base = read_cpu_features("baseline");
  EXPECT_FALSE(base.popcnt);
  EXPECT_FALSE(base.avx2);
  EXPECT_EQ(base.names(), "baseline");
  EXPECT_EQ(base.source, "KMERBLOOM_CPU");
  try {
    read_cpu_features("avx512");
    FAIL() << "accepted KMERBLOOM_CPU=avx512";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("KMERBLOOM_CPU=avx512"), std::string::npos) << e.what();
  }
#if defined(__x86_64__)
  EXPECT_EQ(own.source, "cpuid");
#endif
}
