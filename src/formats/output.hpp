// Output files that never leave a half-written result behind.
//
// A regular-file path is written to a temporary file in the same folder
// (kmerbloom-tmp-XXXXXX: short, so that any name the file system takes for the
// path fits) and renamed over the path by commit(); destroying an OutputFile that was not
// committed removes the temporary file. A path that exists and is not a
// regular file (/dev/stdout, /dev/full, a FIFO) is written in place: renaming
// onto a device would replace the device. A symbolic link to a regular file
// is followed, and the file it points to is replaced. "-" is standard output. A path
// ending in ".gz" is written gzip-compressed (isa-l, fast level).
//
// While an OutputGroup lives, commit() completes the file under its temporary
// name and the group moves it into place with the run's other outputs.
//
// Write errors (a full disk, no permission) throw OutputError naming the path.
// A reader that went away (EPIPE: `kmerbloom count ... | head`) is not an
// error: the rest of that output is discarded, and the other outputs of the
// command are still written completely.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace kmerbloom {

class OutputFile {
 public:
  // gzip_by_name: a path ending in .gz is written gzip-compressed (off for
  // binary formats of our own, such as filter files).
  explicit OutputFile(const std::string& path, bool gzip_by_name = true);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view data);
  void put(char c) {
    if (fill_ == kBuffer) flush_buffer();
    buf_[fill_++] = c;
  }
  // Writes the decimal form of v.
  void put_uint(uint64_t v);
  // Space for n bytes (n <= 4096) that the caller fills and then commits with advance(n).
  char* reserve(size_t n) {
    if (kBuffer - fill_ < n) flush_buffer();
    return buf_.get() + fill_;
  }
  void advance(size_t n) { fill_ += n; }

  // Writing at offsets, for writers that know where each part of the file
  // goes before it is made (formats/kff.hpp): only to the temporary file of
  // a regular path, not compressed (standard output, a FIFO or a device is
  // written in place and may not seek). write_at may run on several threads
  // at once, beside nothing else; seek() flushes what write() holds and
  // makes write() go on at `offset`.
  bool writes_at_offsets() const { return !gz_ && !temp_.empty(); }
  void write_at(uint64_t offset, std::string_view data) const;
  void seek(uint64_t offset);

  // Flushes, closes and moves the result into place (or, while an
  // OutputGroup lives, hands it to the group). Throws OutputError.
  void commit();
  const std::string& path() const { return path_; }

 private:
  static constexpr size_t kBuffer = 1 << 20;
  void flush_buffer();
  void write_raw(const uint8_t* data, size_t n);
  void close_fd();

  struct Gzip;
  std::string path_, temp_, rename_to_;
  int fd_ = -1;
  bool own_fd_ = true, committed_ = false;
  bool reader_gone_ = false;  // EPIPE seen: further bytes are dropped
  std::unique_ptr<char[]> buf_;
  size_t fill_ = 0;
  std::unique_ptr<Gzip> gz_;
};

// Checks, before anything is read, that OutputFile(path) would succeed: "-"
// passes; a directory fails; a path written in place (a device, a FIFO) must
// be writable; otherwise a temporary file is created beside the result and
// removed at once. Throws OutputError naming the path, as OutputFile does.
void check_output_file(const std::string& path);

// Removes every temporary output file still open or waiting for its group;
// safe to call from a signal handler (it only calls unlink on paths
// registered beforehand).
void remove_temporary_outputs() noexcept;
// True once an OutputGroup has put its files in place: a signal after that
// finds the run's outputs complete. Safe to call from a signal handler.
bool outputs_landed() noexcept;

// The outputs of one run, landing together or not at all. While a group
// lives (one at a time, the command line's run), each OutputFile::commit(), on
// any thread, leaves its complete file under its temporary name; commit()
// then renames them all into place, with the signals of the calling thread
// held, so that a signal lands before the first rename or after the last
// (threads started by detail::start_thread hold them always). A group
// destroyed uncommitted, a failure or a signal removes every file it holds,
// and whatever stood at their paths before stays as it was. Outputs written
// in place (standard output, a FIFO, a device) are not held: they are
// written as the run goes.
class OutputGroup {
 public:
  OutputGroup();
  ~OutputGroup();
  OutputGroup(const OutputGroup&) = delete;
  OutputGroup& operator=(const OutputGroup&) = delete;
  // Moves every held file into place, in the order they were committed.
  // Throws OutputError when a rename fails: the files not yet renamed are
  // removed, those renamed before stay (a rename within one folder fails
  // only when the folder changed under the run: its permissions, a folder
  // made at the path).
  void commit();
};

}  // namespace kmerbloom
