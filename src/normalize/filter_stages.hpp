// Private to the library: the threaded stages of filter_reads (read_filter.hpp),
// shared by read_filter.cpp (set-up, first pass) and filter_stages.cpp.
// Not part of the public API; tests use filter_reads instead.
//
//   reader thread -> worker threads -> decider thread -> writer thread
//   (lockstep pairs)  (k-mers, hashes,  (input order:     (input order:
//                      trims, mate       sketch queries,   formats kept
//                      names)            keep / drop)      records, sink)
//
// Chunks (a batch of records, or two batches of mates) come from a fixed pool
// of 2 * workers + 4, so memory stays bounded whatever stage is slowest.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "count/count_table.hpp"
#include "normalize/gated_sketch.hpp"
#include "normalize/read_filter.hpp"

namespace kmerbloom::detail {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs the stages once over options.inputs. sketch is null when
// options.normalize is false; solid (the k-mers with their counts, canonical)
// is null when options.weak is none. Adds what it saw to r. Throws
// InputError, whatever the sink threw, or std::bad_alloc. progress (may be
// null) counts what the reader has read.
template <class W>
void run_filter_stages(const ReadFilterOptions& options, GatedSketch* sketch, const CountTable<W>* solid,
                       const ReadFilterSink& sink, ReadFilterResult& r, PipelineProgress* progress = nullptr);

extern template void run_filter_stages<uint64_t>(const ReadFilterOptions&, GatedSketch*, const CountTable<uint64_t>*,
                                                 const ReadFilterSink&, ReadFilterResult&, PipelineProgress*);
extern template void run_filter_stages<u128>(const ReadFilterOptions&, GatedSketch*, const CountTable<u128>*,
                                             const ReadFilterSink&, ReadFilterResult&, PipelineProgress*);
extern template void run_filter_stages<Words<4>>(const ReadFilterOptions&, GatedSketch*,
    const CountTable<Words<4>>*, const ReadFilterSink&, ReadFilterResult&, PipelineProgress*);
extern template void run_filter_stages<Words<8>>(const ReadFilterOptions&, GatedSketch*,
    const CountTable<Words<8>>*, const ReadFilterSink&, ReadFilterResult&, PipelineProgress*);

}  // namespace kmerbloom::detail
