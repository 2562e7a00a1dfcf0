#include "seqio/line_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "seqio/decompress.hpp"
#include "common/error.hpp"
#include "common/format.hpp"

namespace kmerbloom {

LineReader::LineReader(const std::string& path, size_t buffer)
    : LineReader(std::make_unique<detail::ByteSource>(path, display_name(path)), buffer) {}

LineReader::LineReader(std::unique_ptr<detail::ByteSource> source, size_t buffer)
    : name_(source->display()), src_(std::move(source)), buf_(std::max<size_t>(buffer, 4096)) {}

LineReader::~LineReader() = default;

uint64_t LineReader::raw_bytes_read() const { return src_->raw_bytes_read(); }

bool LineReader::next(std::string_view& line) {
  for (;;) {
    const char* nl = static_cast<const char*>(std::memchr(buf_.data() + begin_, '\n', end_ - begin_));
    if (nl || (eof_ && begin_ < end_)) {
      const size_t stop = nl ? static_cast<size_t>(nl - buf_.data()) : end_;
      line = std::string_view(buf_.data() + begin_, stop - begin_);
      line_at_ = base_ + begin_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      begin_ = std::min(stop + 1, end_);
      ++line_;
      return true;
    }
    if (eof_) return false;
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    base_ += begin_;
    end_ -= begin_;
    begin_ = 0;
    if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);  // a very long line
    const size_t n = src_->read(buf_.data() + end_, buf_.size() - end_);
    end_ += n;
    eof_ = n == 0;
  }
}

bool take_uint(std::string_view& s, uint64_t& v) {
  std::string_view t = s;
  t.remove_prefix(std::min(t.size(), t.find_first_not_of(" \t")));
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end == t.data()) return false;
  t.remove_prefix(static_cast<size_t>(end - t.data()));
  s = t;
  return true;
}

void LineReader::fail(const std::string& what) const {
  throw InputError(name_ + ": line " + std::to_string(line_) + ": " + what);
}

}  // namespace kmerbloom
