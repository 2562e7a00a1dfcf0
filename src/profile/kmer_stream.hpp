// The k-mers of one sorted count file as a set operation takes them
// (profile/set_ops.hpp): checked (letters A/C/G/T, one length, strictly
// increasing text) and filtered to a count range. Read on the caller's thread,
// or by a parsing thread of the stream's own that hands over batches of
// parsed k-mers (a fixed number of them in flight, so memory stays bounded).
// Private to the library. One thread at a time calls a stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kmerbloom::detail {

struct KmerStreamOptions {
  uint64_t min_count = 1, max_count = UINT64_MAX;  // k-mers outside are read, checked and skipped
  size_t buffer_bytes = size_t{1} << 20;           // the file's read buffer
  bool threaded = false;                           // parse on a thread of the stream's own
};

class KmerStream {
 public:
  virtual ~KmerStream() = default;
  // The next k-mer in the count range; kmer is valid until the next call.
  // False at the end. Throws InputError naming the file and line (KFF: byte)
  // for a malformed record, a letter other than A/C/G/T, a length other than
  // the file's first k-mer's, or a k-mer not after the one before.
  virtual bool next(std::string_view& kmer, uint64_t& count) = 0;
  // The file's name in messages ("<stdin>" for "-").
  virtual const std::string& name() const = 0;
  // The length of the file's first k-mer, kept or not (0: none read yet);
  // settled once next() has returned a k-mer or false.
  virtual unsigned k() const = 0;
  // K-mers read, and kept (in the count range); final once next() returned false.
  virtual uint64_t read() const = 0;
  virtual uint64_t kept() const = 0;
  // Bytes of the file read so far, for progress; any thread may ask.
  virtual uint64_t bytes_read() const = 0;
  // What the file declares of itself (KFF: its k, and its header's
  // canonical flag; a text file: 0 and nullopt). The k of a plain file is
  // known once it is opened, that of a stream (stdin, a FIFO, gzip) once
  // next() has returned a k-mer or false; 0 while unknown.
  virtual unsigned declared_k() const = 0;
  virtual std::optional<bool> declared_canonical() const = 0;
};

// Throws InputError when the file cannot be opened.
std::unique_ptr<KmerStream> open_kmer_stream(const std::string& path, const KmerStreamOptions& options);

}  // namespace kmerbloom::detail
