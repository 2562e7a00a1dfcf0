// Spool: memory within the budget, then an unlinked temporary file; a full
// disk and an unusable directory are errors naming the directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "count/spool.hpp"
#include "strings.hpp"

using namespace kmerbloom;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::path(::testing::TempDir()) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::vector<uint8_t> bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), seed);
  return v;
}
}  // namespace

TEST(Spool, MemoryFirstThenAnUnlinkedFile) {
  const fs::path dir = fresh_dir("spool_mem_disk");
  Spool s({dir.string(), 1000});
  std::vector<Spool::Block> blocks;
  for (uint8_t i = 0; i < 10; ++i) blocks.push_back(s.put(bytes(300, i).data(), 300));
  EXPECT_TRUE(blocks[0].in_memory());
  EXPECT_TRUE(blocks[2].in_memory());
  EXPECT_FALSE(blocks[3].in_memory());  // 4 x 300 > 1000
  EXPECT_EQ(s.memory_bytes(), 900u);
  EXPECT_EQ(s.disk_bytes(), 2100u);
  EXPECT_TRUE(fs::is_empty(dir)) << "the temporary file must be unlinked at once";
  for (uint8_t i = 0; i < 10; ++i) {
    std::vector<uint8_t> out(300);
    s.read(blocks[i], out.data());
    EXPECT_SAME(out, bytes(300, i));
    s.release(blocks[i]);
  }
  EXPECT_EQ(s.memory_bytes(), 0u);
  EXPECT_EQ(s.memory_peak(), 900u);
  // Released memory is budget again.
  EXPECT_TRUE(s.put(bytes(300, 1).data(), 300).in_memory());
}

TEST(Spool, FullDiskIsAnErrorNamingTheDirectory) {
  const fs::path dir = fresh_dir("spool_full");
  Spool s({dir.string(), 0, 1000});
  s.put(bytes(600, 0).data(), 600);
  try {
    s.put(bytes(600, 0).data(), 600);
    FAIL() << "no error";
  } catch (const SpoolError& e) {
    EXPECT_TRUE(e.disk_full());
    EXPECT_EQ(e.written(), 1000u);
    EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--tmp-dir"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(Spool, MissingDirectoryIsAnError) {
  Spool s({"/nonexistent/kmerbloom-spool-dir", 0});
  EXPECT_THROW(s.put("abc", 3), SpoolError);
  Spool m({"/nonexistent/kmerbloom-spool-dir", 100});
  EXPECT_NO_THROW(m.put("abc", 3));  // memory only: the directory is never needed
}

// With slots, a small block counts a whole slot against the budget, a slot
// given back holds the next block, and a block larger than a slot is held
// on its own.
TEST(Spool, SlotsCountWholeAndAreReused) {
  const fs::path dir = fresh_dir("spool_slots");
  Spool s({dir.string(), 4096, ~uint64_t{0}, 1024});
  std::vector<Spool::Block> blocks;
  for (uint8_t i = 0; i < 5; ++i) blocks.push_back(s.put(bytes(100, i).data(), 100));
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(blocks[i].in_memory()) << i;
  EXPECT_FALSE(blocks[4].in_memory()) << "4 slots of 1024 fill a budget of 4096";
  EXPECT_EQ(s.memory_bytes(), 4096u);
  const uint8_t* freed = blocks[1].memory;
  s.release(blocks[1]);
  const Spool::Block again = s.put(bytes(100, 9).data(), 100);
  EXPECT_EQ(again.memory, freed) << "the slot given back holds the next block";
  for (const uint8_t i : {uint8_t{0}, uint8_t{2}, uint8_t{3}, uint8_t{4}}) {
    std::vector<uint8_t> out(100);
    s.read(blocks[i], out.data());
    EXPECT_SAME(out, bytes(100, i));
  }
  for (const size_t i : {size_t{0}, size_t{2}, size_t{3}}) s.release(blocks[i]);
  const Spool::Block big = s.put(bytes(2000, 3).data(), 2000);
  EXPECT_TRUE(big.in_memory());
  EXPECT_EQ(s.memory_bytes(), 1024u + 2000u);
  std::vector<uint8_t> out(2000);
  s.read(big, out.data());
  EXPECT_SAME(out, bytes(2000, 3));
}

// Blocks bound for the file go through the staging buffer: two threads put
// blocks of assorted sizes (some larger than the buffer) and read back each
// one and pieces of it, whether it is in the file, in the buffer or across
// both; the bytes are the bytes put, and the file holds them all.
TEST(Spool, StagedBlocksReadBackFromTheFileAndTheBuffer) {
  const fs::path dir = fresh_dir("spool_staging");
  Spool s({dir.string(), 0});
  std::vector<std::vector<std::pair<Spool::Block, uint8_t>>> got(2);
  uint64_t total = 0;
  std::vector<uint32_t> sizes[2];
  for (unsigned t = 0; t < 2; ++t) {
    std::mt19937 rng(t + 1);
    for (int i = 0; i < 300; ++i) {
      const auto n = static_cast<uint32_t>(i % 97 == 5 ? Spool::kStagingBytes + rng() % 5000 : 1 + rng() % 20000);
      sizes[t].push_back(n);
      total += n;
    }
  }
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < sizes[t].size(); ++i) {
        const auto seed = static_cast<uint8_t>(t * 100 + i);
        got[t].emplace_back(s.put(bytes(sizes[t][i], seed).data(), sizes[t][i]), seed);
        const Spool::Block& b = got[t].back().first;
        std::vector<uint8_t> out(b.size);
        s.read(b, out.data());  // just put: mostly still staged
        ASSERT_TRUE(out == bytes(b.size, seed)) << "thread " << t << " block " << i;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(s.disk_bytes(), total);
  for (unsigned t = 0; t < 2; ++t)
    for (const auto& [b, seed] : got[t]) {
      EXPECT_FALSE(b.in_memory());
      const std::vector<uint8_t> want = bytes(b.size, seed);
      std::vector<uint8_t> out(b.size);
      s.read(b, out.data());
      ASSERT_TRUE(out == want) << b.offset;
      const uint32_t from = b.size / 3, n = b.size / 2;
      std::vector<uint8_t> piece(n);
      s.read(b, from, n, piece.data());
      ASSERT_TRUE(std::equal(piece.begin(), piece.end(), want.begin() + from)) << b.offset;
    }
  EXPECT_TRUE(fs::is_empty(dir));
}
