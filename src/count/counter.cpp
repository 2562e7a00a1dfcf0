#include "count/counter.hpp"

#include <algorithm>
#include <stdexcept>

#include "count/tuning.hpp"
#include "formats/count_writer.hpp"
#include "seqio/paths.hpp"
#include "kmer/kmer.hpp"

namespace kmerbloom {

namespace detail {
const CountTuning& tuning_of(const CountOptions& o) {
  static const CountTuning kDefaults;
  return o.tuning ? *o.tuning : kDefaults;
}

CountTuning& tune(CountOptions& o) {
  o.tuning = std::make_shared<CountTuning>(tuning_of(o));
  return *o.tuning;
}
}  // namespace detail

void CountOptions::validate() const {
  ReadSetOptions::validate(kMaxK);
  if (min_count < 1) throw std::invalid_argument("--min-count must be at least 1");
  if (max_count < min_count) throw std::invalid_argument("--max-count must not be below --min-count");
  if (histo_max < 1) throw std::invalid_argument("--histo-max must be at least 1");
  if (fpr < 0 || fpr >= 0.5) throw std::invalid_argument("--fpr must be in (0, 0.5)");
  if (partitions < 1 || partition >= partitions)
    throw std::invalid_argument("--partition I/N needs 0 <= I < N, got " + std::to_string(partition) + "/" +
                                std::to_string(partitions));
  if (gate == GateMode::bloom && min_count < 2) throw std::invalid_argument("the Bloom gate needs --min-count 2 or more");
  if (!output_format.empty()) check_count_format(output_format);
}

CountResult count_kmers(const CountOptions& options, const CountHooks& hooks) {
  options.validate();  // before the output is created
  const std::string format = options.output_format.empty() ? count_format_named_by(options.output) : options.output_format;
  const auto out = open_count_writer(format, options.output,
                                     {.k = options.k, .canonical = options.canonical, .min_count = options.min_count,
                                      .max_count = options.max_count});
  bool begun = false;
  auto begins = [&] {
    if (begun) return;
    begun = true;
    if (hooks.output_begins) hooks.output_begins();
  };
  // The writer's calls, each format taking the ones it implements.
  PackedKmerSink sink;
  sink.start = [&](uint64_t largest) { out->expect_largest_count(largest); };
  sink.add = [&](const PackedKmers& chunk) {
    begins();
    out->add(chunk);
  };
  sink.begin_in_place = [&](uint64_t total) {
    if (!out->begin_in_place(total)) return false;
    begins();  // before the merging threads write
    return true;
  };
  sink.write_at = [&](uint64_t first, const PackedKmers& chunk, std::string& scratch) { out->write_at(first, chunk, scratch); };
  if (out->formats_apart()) {
    sink.format = [&](const PackedKmers& chunk, std::string& bytes) { out->format(chunk, bytes); };
    sink.write = [&](std::string_view bytes) {
      begins();
      out->write_formatted(bytes);
    };
  }
  CountResult r = count_kmers(options, sink, hooks);
  out->finish();
  return r;
}

}  // namespace kmerbloom
