// libFuzzer target: bytes as a sequence file through SequenceReader (plain,
// in two batch sizes, gzip-wrapped, across the buffer boundary). See
// fuzz_harness.hpp for what counts as a bug.
#include <cstddef>
#include <cstdint>

#include "fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kmerbloom::fuzz::reader_one(data, size);
  return 0;
}
