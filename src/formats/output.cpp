#include "formats/output.hpp"

#include <fcntl.h>
#include <isa-l.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <mutex>
#include <vector>

namespace kmerbloom {
namespace {

// Temporary paths, kept in fixed storage so a signal handler can read them.
constexpr size_t kMaxTemps = 256;
char g_temp_paths[kMaxTemps][PATH_MAX];
std::atomic<bool> g_temp_used[kMaxTemps];

int register_temp(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (size_t i = 0; i < kMaxTemps; ++i) {
    bool expected = false;
    if (!g_temp_used[i].load(std::memory_order_relaxed) &&
        g_temp_used[i].compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      // Mark the slot busy first (empty string) and publish the path after.
      std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void unregister_temp(const std::string& path) {
  for (size_t i = 0; i < kMaxTemps; ++i)
    if (g_temp_used[i].load(std::memory_order_acquire) && path == g_temp_paths[i]) {
      g_temp_paths[i][0] = '\0';
      g_temp_used[i].store(false, std::memory_order_release);
    }
}

std::string errno_text() { return std::strerror(errno); }

// The live OutputGroup's files: complete, under their temporary names, still
// registered (a signal removes them), waiting to be renamed.
struct Held {
  std::string path, temp, target;
};
std::mutex g_group_mu;
bool g_group_live = false;
std::atomic<bool> g_landed{false};
std::vector<Held> g_held;

// Hands a complete temporary file to the live group; false when none lives.
bool hold_for_group(const std::string& path, const std::string& temp, const std::string& target) {
  std::lock_guard lock(g_group_mu);
  if (!g_group_live) return false;
  g_held.push_back({path, temp, target});
  return true;
}

void remove_held(std::vector<Held>& held) noexcept {
  for (const Held& h : held) {
    unlink(h.temp.c_str());
    unregister_temp(h.temp);
  }
  held.clear();
}

// Where OutputFile puts a path's bytes: in place (a device, a FIFO,
// /dev/stdout, which is a link into /proc), or in a temporary file renamed
// over `target` (the path, or the regular file a link names) when complete.
struct Destination {
  std::string target;
  bool in_place = false;
};

Destination destination_of(const std::string& path) {
  Destination d{path, false};
  struct stat lst {};
  if (lstat(path.c_str(), &lst) != 0) return d;
  if (S_ISLNK(lst.st_mode)) {
    char resolved[PATH_MAX];
    struct stat st {};
    const bool special = path.starts_with("/dev/") || path.starts_with("/proc/");
    if (!special && realpath(path.c_str(), resolved) && stat(resolved, &st) == 0 && S_ISREG(st.st_mode))
      d.target = resolved;
    else
      d.in_place = true;
  } else if (!S_ISREG(lst.st_mode)) {
    if (S_ISDIR(lst.st_mode)) throw OutputError(path + ": is a directory");
    d.in_place = true;
  }
  return d;
}

// A new file beside `target` under a short name of fixed length, so that any
// name the file system takes for the target leaves room for it. A name it
// does not take is refused here, not by the rename after all is written.
// Returns the descriptor and sets `temp`; throws OutputError naming `path`.
int create_temp(const std::string& path, const std::string& target, std::string& temp) {
  const size_t slash = target.find_last_of('/');
  const std::string folder = slash == std::string::npos ? std::string() : target.substr(0, slash + 1);
  const long name_max = pathconf(folder.empty() ? "." : folder.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && target.size() - folder.size() > static_cast<size_t>(name_max))
    throw OutputError(path + ": cannot create: " + std::strerror(ENAMETOOLONG));
  temp = folder + "kmerbloom-tmp-XXXXXX";
  const int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) throw OutputError(path + ": cannot create: " + errno_text());
  return fd;
}

}  // namespace

bool outputs_landed() noexcept { return g_landed.load(); }

void remove_temporary_outputs() noexcept {
  for (size_t i = 0; i < kMaxTemps; ++i)
    if (g_temp_used[i].load(std::memory_order_acquire) && g_temp_paths[i][0] != '\0') unlink(g_temp_paths[i]);
}

struct OutputFile::Gzip {
  isal_zstream stream{};
  std::vector<uint8_t> level_buf = std::vector<uint8_t>(ISAL_DEF_LVL1_DEFAULT);
  std::vector<uint8_t> out = std::vector<uint8_t>(1 << 20);

  Gzip() {
    isal_deflate_init(&stream);
    stream.gzip_flag = IGZIP_GZIP;
    stream.level = 1;
    stream.level_buf = level_buf.data();
    stream.level_buf_size = static_cast<uint32_t>(level_buf.size());
  }
};

void check_output_file(const std::string& path) {
  if (path.empty()) throw OutputError("output path is empty");
  if (path == "-") return;
  const Destination d = destination_of(path);
  if (d.in_place) {
    // Opening a FIFO would wait for its reader: ask instead.
    if (faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0)
      throw OutputError(path + ": cannot open for writing: " + errno_text());
    return;
  }
  std::string temp;
  const int fd = create_temp(path, d.target, temp);
  const bool registered = register_temp(temp) >= 0;  // a signal now still removes it
  close(fd);
  unlink(temp.c_str());
  if (registered) unregister_temp(temp);
}

OutputFile::OutputFile(const std::string& path, bool gzip_by_name) : path_(path), buf_(new char[kBuffer]) {
  if (path.empty()) throw OutputError("output path is empty");
  if (path == "-") {
    fd_ = STDOUT_FILENO;
    own_fd_ = false;
  } else {
    // A link to a regular file elsewhere is followed, and the file it names
    // is replaced atomically.
    const Destination d = destination_of(path);
    if (d.in_place) {
      fd_ = open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ < 0) throw OutputError(path + ": cannot open for writing: " + errno_text());
      struct stat st {};
      if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd_, 0) != 0 && errno != EINVAL) {
        close(fd_);
        throw OutputError(path + ": cannot truncate: " + errno_text());
      }
    } else {
      rename_to_ = d.target;
      fd_ = create_temp(path, d.target, temp_);
      if (register_temp(temp_) < 0) {
        close(fd_);
        unlink(temp_.c_str());
        throw OutputError(path + ": too many open outputs");
      }
      const mode_t mask = umask(0);
      umask(mask);
      fchmod(fd_, 0666 & ~mask);
    }
  }
  const bool gz = gzip_by_name && path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (gz) gz_ = std::make_unique<Gzip>();
}

OutputFile::~OutputFile() {
  if (committed_) return;
  if (own_fd_ && fd_ >= 0) close(fd_);
  if (!temp_.empty()) {
    unlink(temp_.c_str());
    unregister_temp(temp_);
  }
}

void OutputFile::write(std::string_view data) {
  while (!data.empty()) {
    if (fill_ == kBuffer) flush_buffer();
    const size_t n = std::min(data.size(), kBuffer - fill_);
    std::memcpy(buf_.get() + fill_, data.data(), n);
    fill_ += n;
    data.remove_prefix(n);
  }
}

void OutputFile::put_uint(uint64_t v) {
  char tmp[24];
  char* p = tmp + sizeof tmp;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  write({p, static_cast<size_t>(tmp + sizeof tmp - p)});
}

void OutputFile::write_raw(const uint8_t* data, size_t n) {
  while (n > 0 && !reader_gone_) {
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) {  // | head: the rest is not wanted; the other outputs still are
        reader_gone_ = true;
        return;
      }
      throw OutputError(path_ + ": write failed: " + errno_text());
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}

void OutputFile::write_at(uint64_t offset, std::string_view data) const {
  if (!writes_at_offsets()) throw std::logic_error("OutputFile::write_at: " + path_ + " is not written at offsets");
  const char* p = data.data();
  size_t n = data.size();
  while (n > 0) {
    const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw OutputError(path_ + ": write failed: " + errno_text());
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
}

void OutputFile::seek(uint64_t offset) {
  if (!writes_at_offsets()) throw std::logic_error("OutputFile::seek: " + path_ + " is not written at offsets");
  flush_buffer();
  if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) throw OutputError(path_ + ": seek failed: " + errno_text());
}

void OutputFile::flush_buffer() {
  const auto* data = reinterpret_cast<const uint8_t*>(buf_.get());
  if (!gz_) {
    write_raw(data, fill_);
  } else {
    auto& s = gz_->stream;
    s.next_in = const_cast<uint8_t*>(data);
    s.avail_in = static_cast<uint32_t>(fill_);
    do {
      s.next_out = gz_->out.data();
      s.avail_out = static_cast<uint32_t>(gz_->out.size());
      if (isal_deflate(&s) != COMP_OK) throw OutputError(path_ + ": gzip compression failed");
      write_raw(gz_->out.data(), gz_->out.size() - s.avail_out);
    } while (s.avail_in > 0 || (s.end_of_stream && s.internal_state.state != ZSTATE_END));
  }
  fill_ = 0;
}

void OutputFile::commit() {
  if (gz_) gz_->stream.end_of_stream = 1;
  flush_buffer();
  if (own_fd_) {
    const int fd = fd_;
    fd_ = -1;
    if (close(fd) != 0) throw OutputError(path_ + ": write failed: " + errno_text());
  }
  if (!temp_.empty() && !hold_for_group(path_, temp_, rename_to_)) {
    if (rename(temp_.c_str(), rename_to_.c_str()) != 0) throw OutputError(path_ + ": cannot rename temporary file: " + errno_text());
    unregister_temp(temp_);
  }
  committed_ = true;
}

OutputGroup::OutputGroup() {
  std::lock_guard lock(g_group_mu);
  if (g_group_live) throw std::logic_error("OutputGroup: one lives already");
  g_group_live = true;
}

OutputGroup::~OutputGroup() {
  std::lock_guard lock(g_group_mu);
  remove_held(g_held);
  g_group_live = false;
}

void OutputGroup::commit() {
  std::lock_guard lock(g_group_mu);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  std::string failure;
  size_t i = 0;
  for (; i < g_held.size(); ++i) {
    const Held& h = g_held[i];
    if (rename(h.temp.c_str(), h.target.c_str()) != 0) {
      failure = h.path + ": cannot rename temporary file: " + errno_text();
      break;
    }
    unregister_temp(h.temp);
  }
  g_held.erase(g_held.begin(), g_held.begin() + static_cast<std::ptrdiff_t>(i));
  remove_held(g_held);
  if (failure.empty()) g_landed.store(true);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!failure.empty()) throw OutputError(failure);
}

}  // namespace kmerbloom
