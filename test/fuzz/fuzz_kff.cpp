// libFuzzer target: bytes as a KFF file, read front to back and in k-mer
// order, gzip-wrapped on 1 input in 4, written again and read back. See
// kff_harness.hpp for the oracles and fuzz_harness.hpp for what counts as a bug.
#include <cstddef>
#include <cstdint>

#include "kff_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kmerbloom::fuzz::kff_one(data, size);
  return 0;
}
