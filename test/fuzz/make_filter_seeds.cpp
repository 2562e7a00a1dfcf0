// Writes the valid filter files of the fuzz_filter_file seed corpus:
//   make_filter_seeds DIR
// Small chains (a few KB) in the shapes the loader must handle: one raw layer,
// a sparse zlib layer, several layers mixing both, linear growth.
#include <cstdio>
#include <exception>
#include <string>

#include "bloom/bloom_file.hpp"
#include "kmer/hash.hpp"

namespace {

using namespace kmerbloom;

void write_seed(const std::string& path, uint64_t capacity, double fpr, bool linear, uint64_t keys) {
  ScalableBloomParams p;
  p.initial_capacity = capacity;
  p.fpr = fpr;
  p.linear_growth = linear;
  ScalableBloom f(p);
  for (uint64_t i = 0; i < keys; ++i) f.insert(mix64(i));
  const FilterMeta meta{31, true, kKmerHashName, 7, 2, R"({"seed":"fuzz"})"};
  save_filter(path, f, meta);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_filter_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  try {
    write_seed(dir + "/one-raw-layer.kbf", 200, 0.01, false, 190);
    write_seed(dir + "/one-zlib-layer.kbf", 2000, 0.01, false, 20);
    write_seed(dir + "/four-layers.kbf", 100, 0.05, false, 1000);
    write_seed(dir + "/linear-growth.kbf", 64, 0.1, true, 600);
    write_seed(dir + "/empty.kbf", 1, 0.5, false, 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_filter_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
