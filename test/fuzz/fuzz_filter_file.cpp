// libFuzzer target: bytes as a .kbf filter file through load_filter() with a
// 4 MiB limit, then queries, a save/load round trip and a few inserts on what
// loaded. See fuzz_harness.hpp for what counts as a bug.
#include <cstddef>
#include <cstdint>

#include "fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kmerbloom::fuzz::filter_file_one(data, size);
  return 0;
}
