// merge-counts: the sorted k-mer count files of several counts merged into
// one, counts summed (sum_histograms, the other half of merge-counts, is in
// formats/histogram_file.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "seqio/pipeline.hpp"

namespace kmerbloom {

// k-way merge of KMER<TAB>COUNT files, each sorted by k-mer as count writes
// them (plain or gzip, "-" for stdin), or KFF files (their sections merged
// into k-mer order, formats/kff.hpp): equal k-mers' counts are summed, k-mers
// whose sum is below min_count are dropped, the rest go to sink in order.
// Partitions of one count (count --partition I/N) are disjoint, so their merge
// is exactly the unpartitioned output. Every input is open at once, with a
// read buffer of 16 MiB / inputs (at least 4 KiB) plus gzip state each. Throws InputError naming the file and
// line for a malformed line, a k-mer length different from the first file's,
// or a k-mer out of order.
struct MergeCountsResult {
  unsigned k = 0;
  uint64_t lines = 0;       // k-mer lines read
  uint64_t kmers_out = 0;   // distinct k-mers written
};
// progress (may be null): units_done is set to the bytes read of all inputs.
MergeCountsResult merge_count_files(const std::vector<std::string>& inputs, uint64_t min_count,
                                    const std::function<void(std::string_view kmer, uint64_t count)>& sink,
                                    PipelineProgress* progress = nullptr);

}  // namespace kmerbloom
