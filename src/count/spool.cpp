#include "count/spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/format.hpp"

namespace kmerbloom {

std::string Spool::resolve_dir(const std::string& dir) {
  if (!dir.empty()) return dir;
  const char* env = std::getenv("TMPDIR");
  return env && *env ? env : "/tmp";
}

Spool::Spool(SpoolOptions options)
    : dir_(resolve_dir(options.dir)),
      budget_(options.memory_budget),
      disk_limit_(options.disk_limit),
      slot_(options.slot_bytes) {}

Spool::~Spool() {
  if (fd_ >= 0) ::close(fd_);
}

bool Spool::take_memory(uint32_t size) {
  uint64_t now = memory_.load(std::memory_order_relaxed);
  do {
    if (now + size > budget_) return false;
  } while (!memory_.compare_exchange_weak(now, now + size, std::memory_order_relaxed));
  uint64_t peak = memory_peak_.load(std::memory_order_relaxed);
  while (now + size > peak && !memory_peak_.compare_exchange_weak(peak, now + size, std::memory_order_relaxed)) {
  }
  return true;
}

// The file is unlinked as soon as it exists: only the descriptor holds it.
void Spool::open_file() {
  std::lock_guard lock(open_mu_);
  if (open_.load(std::memory_order_acquire)) return;
  fd_ = create_file(dir_, dir_);
  open_.store(true, std::memory_order_release);
}

int Spool::create_file(const std::string& dir, const std::string& named) {
  std::string path = dir + "/kmerbloom-spool-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) {
    const int e = errno;
    throw SpoolError(named + ": cannot create a temporary file: " + std::strerror(e) +
                         " (choose another directory with --tmp-dir)",
                     dir, 0, e == ENOSPC || e == EDQUOT);
  }
  ::unlink(path.c_str());
  return fd;
}

void Spool::check_dir(const std::string& dir) {
  const std::string resolved = resolve_dir(dir);
  const char* env = std::getenv("TMPDIR");
  const bool from_env = dir.empty() && env && *env;
  ::close(create_file(resolved, from_env ? "$TMPDIR " + resolved : resolved));
}

Spool::Block Spool::put(const void* data, uint32_t size) {
  Block b;
  b.size = size;
  const bool pooled = slot_ > 0 && size <= slot_;
  const uint32_t held = pooled ? slot_ : size;
  if (take_memory(held)) {
    b.held = held;
    if (pooled) {
      b.memory = take_slot();
    } else {
      b.owned = std::make_unique_for_overwrite<uint8_t[]>(held);
      b.memory = b.owned.get();
    }
    std::memcpy(b.memory, data, size);
    return b;
  }
  if (!open_.load(std::memory_order_acquire)) open_file();
  b.offset = disk_.fetch_add(size, std::memory_order_relaxed);
  const auto* p = static_cast<const char*>(data);
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = -1;
    if (b.offset + done + 1 > disk_limit_) {
      errno = ENOSPC;
    } else {
      const uint64_t room = std::min<uint64_t>(size - done, disk_limit_ - b.offset - done);
      n = ::pwrite(fd_, p + done, room, static_cast<off_t>(b.offset + done));
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n == 0 ? ENOSPC : errno;
      const bool full = e == ENOSPC || e == EDQUOT;
      throw SpoolError(dir_ + ": cannot write temporary data: " + std::strerror(e) + " after " +
                           format_megabytes(b.offset + done) + " (choose another directory with --tmp-dir, or raise -M)",
                       dir_, b.offset + done, full);
    }
    done += static_cast<uint64_t>(n);
  }
  return b;
}

void Spool::read(const Block& b, uint32_t offset, uint32_t size, void* out) const {
  if (offset > b.size || size > b.size - offset) throw std::logic_error("Spool::read past the block's end");
  if (b.in_memory()) {
    std::memcpy(out, b.memory + offset, size);
    return;
  }
  auto* p = static_cast<char*>(out);
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, p + done, size - done, static_cast<off_t>(b.offset + offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw SpoolError(dir_ + ": cannot read back temporary data: " + (n < 0 ? std::strerror(errno) : "file too short"),
                       dir_, disk_bytes(), false);
    done += static_cast<uint64_t>(n);
  }
}

void Spool::release(Block& b) {
  if (!b.in_memory()) return;
  if (b.owned) b.owned.reset();
  else give_slot(b.memory);
  b.memory = nullptr;
  memory_.fetch_sub(b.held, std::memory_order_relaxed);
}

uint8_t* Spool::take_slot() {
  constexpr size_t kSlotsPerChunk = 256;
  std::lock_guard lock(pool_mu_);
  if (free_slots_.empty()) {
    chunks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kSlotsPerChunk * slot_));
    for (size_t i = kSlotsPerChunk; i-- > 0;) free_slots_.push_back(chunks_.back().get() + i * slot_);
  }
  uint8_t* s = free_slots_.back();
  free_slots_.pop_back();
  return s;
}

void Spool::give_slot(uint8_t* slot) {
  std::lock_guard lock(pool_mu_);
  free_slots_.push_back(slot);
}

}  // namespace kmerbloom
