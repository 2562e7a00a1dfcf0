// kmerbloom count: the engine behind the subcommand, callable without argv.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "kmerbloom/pipeline.hpp"

namespace kmerbloom {

struct CountOptions {
  std::vector<std::string> inputs;  // paths, "-" for stdin
  unsigned k = 31;
  bool canonical = true;
  uint32_t min_count = 2;  // k-mers below are not reported
  uint32_t max_count = std::numeric_limits<uint32_t>::max();
  unsigned threads = 1;
  uint64_t histo_max = 10000;  // dense histogram rows 1..histo_max, then one overflow row
  uint64_t expected_kmers = 0; // distinct k-mers expected; 0 = unknown
  uint64_t batch_bases = 4u << 20;

  // Throws std::invalid_argument naming the first bad option.
  void validate() const;
};

// What went in, summed over all worker threads.
struct InputSummary {
  uint64_t reads = 0;
  uint64_t bases = 0;
  uint64_t bases_skipped = 0;  // non-ACGT bases
  uint64_t kmers = 0;          // k-mer occurrences
  void add(const InputSummary& o) {
    reads += o.reads;
    bases += o.bases;
    bases_skipped += o.bases_skipped;
    kmers += o.kmers;
  }
};

struct CountResult {
  InputSummary input;
  uint64_t distinct = 0;    // distinct k-mers
  uint64_t solid = 0;       // reported: min_count <= count <= max_count
  uint64_t singletons = 0;  // distinct k-mers seen once
  uint64_t max_count = 0;   // largest count of any k-mer
  // histogram[c] = number of distinct k-mers seen exactly c times, for
  // 1 <= c <= histo_max; histogram[histo_max + 1] = those seen more often.
  std::vector<uint64_t> histogram;
  uint64_t table_bytes = 0;
  uint64_t table_capacity = 0;
  double table_load = 0;
};

// Receives reported k-mers in increasing lexicographic order.
using KmerSink = std::function<void(std::string_view kmer, uint64_t count)>;

struct CountHooks {
  std::function<void(const std::string&)> log;  // progress notes for -v
  PipelineProgress* progress = nullptr;
};

CountResult count_kmers(const CountOptions& options, const KmerSink& sink, const CountHooks& hooks = {});

}  // namespace kmerbloom
