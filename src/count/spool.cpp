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

namespace {
void raise_peak(std::atomic<uint64_t>& peak, uint64_t now) {
  uint64_t was = peak.load(std::memory_order_relaxed);
  while (now > was && !peak.compare_exchange_weak(was, now, std::memory_order_relaxed)) {
  }
}
}  // namespace

bool Spool::take_memory(uint32_t size) {
  uint64_t now = memory_.load(std::memory_order_relaxed);
  do {
    if (now + size > budget_) return false;
  } while (!memory_.compare_exchange_weak(now, now + size, std::memory_order_relaxed));
  raise_peak(memory_peak_, now + size);
  return true;
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
  b.held = held;
  raise_peak(footprint_peak_, footprint_.fetch_add(held, std::memory_order_relaxed) + held);
  if (take_memory(held)) {
    if (pooled) {
      b.memory = take_slot();
    } else {
      b.owned = std::make_unique_for_overwrite<uint8_t[]>(held);
      b.memory = b.owned.get();
    }
    std::memcpy(b.memory, data, size);
    return b;
  }
  std::lock_guard lock(disk_mu_);
  if (fd_ < 0) fd_ = create_file(dir_, dir_);  // unlinked as soon as it exists
  b.offset = disk_.load(std::memory_order_relaxed);
  const auto* p = static_cast<const uint8_t*>(data);
  if (b.offset + size > disk_limit_) {  // a disk full at disk_limit_ (tests)
    write_staging();
    write_at(p, disk_limit_ - b.offset, b.offset);
    fail_write(ENOSPC, disk_limit_);
  }
  staging_.reserve(kStagingBytes);  // once: a spool that never spills holds no staging buffer
  for (uint32_t done = 0; done < size;) {
    const uint32_t n = std::min<uint32_t>(size - done, kStagingBytes - static_cast<uint32_t>(staging_.size()));
    staging_.insert(staging_.end(), p + done, p + done + n);
    done += n;
    if (staging_.size() == kStagingBytes) write_staging();
  }
  disk_.store(b.offset + size, std::memory_order_relaxed);
  return b;
}

void Spool::flush() {
  std::lock_guard lock(disk_mu_);
  if (!staging_.empty()) write_staging();
}

void Spool::seal() {
  flush();
  std::lock_guard lock(disk_mu_);
  std::vector<uint8_t>().swap(staging_);
}

void Spool::write_staging() {
  const uint64_t at = written_.load(std::memory_order_relaxed);
  write_at(staging_.data(), staging_.size(), at);
  written_.store(at + staging_.size(), std::memory_order_release);
  staging_.clear();
}

void Spool::write_at(const void* data, uint64_t size, uint64_t offset) {
  const auto* p = static_cast<const char*>(data);
  for (uint64_t done = 0; done < size;) {
    const ssize_t n = offset + done >= disk_limit_
                          ? (errno = ENOSPC, -1)
                          : ::pwrite(fd_, p + done, std::min(size - done, disk_limit_ - offset - done),
                                     static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail_write(n == 0 ? ENOSPC : errno, offset + done);
    done += static_cast<uint64_t>(n);
  }
}

void Spool::fail_write(int e, uint64_t written) const {
  throw SpoolError(dir_ + ": cannot write temporary data: " + std::strerror(e) + " after " +
                       format_megabytes(written) + " (choose another directory with --tmp-dir, or raise -M)",
                   dir_, written, e == ENOSPC || e == EDQUOT);
}

void Spool::read(const Block& b, uint32_t offset, uint32_t size, void* out) const {
  if (offset > b.size || size > b.size - offset) throw std::logic_error("Spool::read past the block's end");
  if (b.in_memory()) {
    std::memcpy(out, b.memory + offset, size);
    return;
  }
  auto* p = static_cast<char*>(out);
  const uint64_t from = b.offset + offset, to = from + size;
  std::unique_lock<std::mutex> lock;
  uint64_t on_disk = to;  // bytes before this offset are in the file
  if (to > written_.load(std::memory_order_acquire)) {
    lock = std::unique_lock(disk_mu_);
    const uint64_t written = written_.load(std::memory_order_relaxed);  // where the staged bytes start
    on_disk = std::clamp(written, from, to);
    std::memcpy(p + (on_disk - from), staging_.data() + (on_disk - written), to - on_disk);
  }
  uint64_t done = 0;
  while (from + done < on_disk) {
    const ssize_t n = ::pread(fd_, p + done, on_disk - from - done, static_cast<off_t>(from + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw SpoolError(dir_ + ": cannot read back temporary data: " + (n < 0 ? std::strerror(errno) : "file too short"),
                       dir_, disk_bytes(), false);
    done += static_cast<uint64_t>(n);
  }
}

void Spool::release(Block& b) {
  footprint_.fetch_sub(b.held, std::memory_order_relaxed);
  if (b.in_memory()) {
    if (b.owned) b.owned.reset();
    else give_slot(b.memory);
    b.memory = nullptr;
    memory_.fetch_sub(b.held, std::memory_order_relaxed);
  }
  b.held = 0;
}

// The pool grows by chunks of 4 MiB on huge pages: the spool takes in every
// spooled byte once, so the pages are new, and with 4 KiB pages the faults
// on the first writes took some 11% of the CPU time of E. coli 100x, in
// the kernel.
uint8_t* Spool::take_slot() {
  constexpr size_t kChunkBytes = size_t{4} << 20;
  const size_t slots = std::max<size_t>(256, kChunkBytes / slot_);
  std::lock_guard lock(pool_mu_);
  if (free_slots_.empty()) {
    chunks_.emplace_back(static_cast<uint8_t*>(detail::table_alloc(slots * slot_)));
    for (size_t i = slots; i-- > 0;) free_slots_.push_back(chunks_.back().get() + i * slot_);
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
