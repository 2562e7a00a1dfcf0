#include "profile/set_ops.hpp"

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>

#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/count_writer.hpp"
#include "formats/sorted_counts.hpp"

namespace kmerbloom {
namespace {

constexpr std::pair<KmerSetOp, const char*> kOps[] = {
    {KmerSetOp::union_, "union"},
    {KmerSetOp::intersect, "intersect"},
    {KmerSetOp::diff, "diff"},
    {KmerSetOp::subtract, "subtract"}};
constexpr std::pair<CountMode, const char*> kModes[] = {{CountMode::automatic, "auto"}, {CountMode::sum, "sum"},
                                                        {CountMode::min, "min"},        {CountMode::max, "max"},
                                                        {CountMode::first, "first"},    {CountMode::last, "last"}};

template <class E, size_t N>
E parse_name(std::string_view name, const std::pair<E, const char*> (&table)[N], const char* what) {
  std::string names;
  for (const auto& [value, text] : table) {
    if (name == text) return value;
    names += (names.empty() ? "" : ", ") + std::string(text);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + printable(name) + "': one of " + names);
}

template <class E, size_t N>
const char* name_of(E value, const std::pair<E, const char*> (&table)[N]) {
  for (const auto& [v, text] : table)
    if (v == value) return text;
  return "?";
}

uint64_t add_saturating(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

}  // namespace

// An input's next k-mer, packed, in the batch its stream handed on.
struct SetOperation::Head {
  std::string_view kmer;
  uint64_t count = 0;
  bool live = false;  // false: the input is at its end
  PackedBatch batch;
  size_t at = 0;      // kmer is batch.kmer(at)

  // To the input's next k-mer (a new batch when this one is used up).
  void advance(SortedCounts& in) {
    if (++at >= batch.n) {
      at = 0;
      if (!(live = in.next_packed_batch(batch))) return;
    }
    kmer = batch.kmer(at);
    count = batch.counts[at];
  }
};

KmerSetOp parse_set_op(std::string_view name) { return parse_name(name, kOps, "operation"); }
CountMode parse_count_mode(std::string_view name) { return parse_name(name, kModes, "count mode"); }
const char* set_op_name(KmerSetOp op) { return name_of(op, kOps); }
const char* count_mode_name(CountMode mode) { return name_of(mode, kModes); }

CountMode SetOpOptions::mode() const {
  if (counts != CountMode::automatic) return counts;
  return op == KmerSetOp::intersect ? CountMode::min : CountMode::sum;
}

void SetOpOptions::validate(size_t inputs) const {
  const std::string name = set_op_name(op);
  if (inputs == 0) throw std::invalid_argument(name + " needs input files");
  if ((op == KmerSetOp::diff || op == KmerSetOp::subtract) && inputs < 2)
    throw std::invalid_argument(name + " needs two inputs or more: the first, and those taken from it");
  if (counts != CountMode::automatic) {
    const bool takes = op == KmerSetOp::intersect || (op == KmerSetOp::union_ && counts != CountMode::first &&
                                                   counts != CountMode::last);
    if (!takes)
      throw std::invalid_argument(std::string("--counts ") + count_mode_name(counts) + " does not apply to " + name +
                                  (op == KmerSetOp::union_ ? " (union takes sum, min or max)"
                                                       : " (its counts are the first input's, less the others' for "
                                                         "subtract)"));
  }
  if (input_min > input_max)
    throw std::invalid_argument("--input-min-count " + std::to_string(input_min) + " is above --input-max-count " +
                                std::to_string(input_max));
  if (cap == 0) throw std::invalid_argument("--cap 0: a count is at least 1");
  if (min_count > max_count)
    throw std::invalid_argument("--min-count " + std::to_string(min_count) + " is above --max-count " +
                                std::to_string(max_count));
  if (histo_max > (uint64_t{1} << 24)) throw std::invalid_argument("--histo-max is at most 16777216");
  if (threads == 0) throw std::invalid_argument("-t must be at least 1");
}

SetOperation::SetOperation(const std::vector<std::string>& inputs, const SetOpOptions& options) : o_(options) {
  o_.validate(inputs.size());
  SortedCountsOptions so;
  so.min_count = o_.input_min;
  so.max_count = o_.input_max;
  so.buffer_bytes = std::max<size_t>(o_.buffer_bytes / inputs.size(), 4096);
  so.packed = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    so.threaded = i + 1 < o_.threads;  // threads - 1 inputs parsed apart; the rest with the merge
    in_.push_back(open_sorted_counts(inputs[i], so));
  }
  heads_.resize(in_.size());
  size_t first = in_.size(), declares = in_.size();
  for (size_t i = 0; i < in_.size(); ++i) {
    const std::optional<bool> canonical = in_[i]->declared_canonical();
    if (!canonical) continue;
    if (declares == in_.size()) {
      declares = i;
      canonical_ = canonical;
    } else if (*canonical != *canonical_) {
      auto says = [&](size_t j) {
        return in_[j]->name() + " (KFF: " + (in_[j]->declared_canonical().value() ? "canonical" : "as read") + ")";
      };
      throw std::invalid_argument("one operation of canonical k-mers and k-mers as read: " + says(declares) + " and " +
                                  says(i) + "; count both the same way");
    }
  }
  for (size_t i = 0; i < in_.size(); ++i) {
    Head& h = heads_[i];
    h.advance(*in_[i]);  // its batch is empty: the first is read
    // Of the first k-mer read, kept in the count range or not; else what the file declares.
    const unsigned k = in_[i]->k() ? in_[i]->k() : in_[i]->declared_k();
    if (k == 0) continue;
    if (first == in_.size()) {
      first = i;
      k_ = k;
    } else if (k != k_) {
      auto holds = [&](size_t j) {
        return in_[j]->k() ? "holds " + std::to_string(k_) + "-mers" : "declares k = " + std::to_string(k_) + " (no k-mers)";
      };
      throw InputError(in_[i]->name() + ": " +
                       (in_[i]->k() ? "k-mers of " + std::to_string(k) + " bases"
                                    : "declares k = " + std::to_string(k) + " (no k-mers)") +
                       ", but " + in_[first]->name() + " " + holds(first) +
                       ": the inputs of one operation must have the same k");
    }
  }
}

SetOperation::~SetOperation() = default;

namespace {

using Head = SetOperation::Head;

// The count of the k-mer at the inputs `at` (ascending, non-empty) under the
// operation; false when the k-mer is not in the result.
inline bool combine(const SetOpOptions& o, CountMode mode, const std::vector<Head>& h, std::span<const size_t> at,
                    uint64_t& out) {
  const size_t n = h.size();
  switch (o.op) {
    case KmerSetOp::diff:
      out = h[0].count;
      return at.size() == 1 && at[0] == 0;
    case KmerSetOp::subtract: {
      if (at[0] != 0) return false;
      uint64_t others = 0;
      for (size_t j = 1; j < at.size(); ++j) others = add_saturating(others, h[at[j]].count);
      out = h[0].count - std::min(others, h[0].count);
      return out > 0;
    }
    case KmerSetOp::intersect:
      if (at.size() != n) return false;
      break;
    case KmerSetOp::union_:
      break;
  }
  out = h[at.front()].count;
  if (mode == CountMode::first) return true;  // intersect only: every input holds it
  if (mode == CountMode::last) {
    out = h[at.back()].count;
    return true;
  }
  for (size_t j = 1; j < at.size(); ++j) {
    const uint64_t c = h[at[j]].count;
    out = mode == CountMode::sum   ? add_saturating(out, c)
          : mode == CountMode::min ? std::min(out, c)
                                   : std::max(out, c);
  }
  return true;
}

}  // namespace

// The result, k-mer by k-mer, to emit(packed, count).
template <class Emit>
SetOpResult SetOperation::merge(Emit& emit, PipelineProgress* progress) {
  const size_t n = in_.size();
  const CountMode mode = o_.mode();
  SetOpResult r;
  if (o_.histo_max > 0) r.histogram.assign(o_.histo_max + 2, 0);
  std::vector<Head>& h = heads_;
  uint64_t merged = 0;  // distinct k-mers, for the progress's pace
  // The k-mer the inputs `at` hold (the smallest of all): its count in the
  // result, if it is in it; then on to their next k-mers.
  const auto take = [&](std::span<const size_t> at) __attribute__((always_inline)) {
    uint64_t count = 0;
    const bool in_result = combine(o_, mode, h, at, count);
    count = std::min(count, o_.cap);  // before the range, as kmc_tools' -cs
    if (in_result && count >= o_.min_count && count <= o_.max_count) {
      if (o_.presence) count = 1;
      emit(h[at[0]].kmer, count);
      ++r.kmers_out;
      if (!r.histogram.empty()) ++r.histogram[std::min(count, o_.histo_max + 1)];
      r.count_sum = add_saturating(r.count_sum, count);
    }
    for (const size_t i : at) h[i].advance(*in_[i]);
    if (progress && (++merged & 0xffff) == 0) {
      uint64_t bytes = 0;
      for (const auto& s : in_) bytes += s->bytes_read();
      progress->units_done = bytes;
    }
  };
  if (n == 2) {  // the usual case, without the search over inputs
    static constexpr size_t kFirst[] = {0}, kSecond[] = {1}, kBoth[] = {0, 1};
    while (h[0].live && h[1].live) {
      const int c = compare_kmer_bytes(h[0].kmer.data(), h[1].kmer.data(), h[0].kmer.size());
      take(c < 0 ? std::span<const size_t>(kFirst) : c > 0 ? std::span<const size_t>(kSecond) : std::span<const size_t>(kBoth));
    }
    while (h[0].live) take(kFirst);
    while (h[1].live) take(kSecond);
  } else {
    std::vector<size_t> at;
    at.reserve(n);
    for (;;) {
      at.clear();
      for (size_t i = 0; i < n; ++i) {
        if (!h[i].live) continue;
        const int c = at.empty() ? -1 : compare_kmer_bytes(h[i].kmer, h[at[0]].kmer);
        if (c < 0) at.clear();
        if (c <= 0) at.push_back(i);
      }
      if (at.empty()) break;
      take(at);
    }
  }
  r.k = k_;
  for (const auto& s : in_) r.inputs.push_back({s->name(), s->read(), s->kept()});
  return r;
}

SetOpResult SetOperation::run(KmerCountWriter& out, PipelineProgress* progress) {
  constexpr size_t kChunk = size_t{1} << 14;  // k-mers handed to the writer at once
  const size_t bytes = (k_ + 3) / 4;
  std::vector<uint8_t> packed(kChunk * bytes);
  std::vector<uint32_t> counts;
  counts.reserve(kChunk);
  auto flush = [&] {
    if (!counts.empty()) out.add(PackedKmers{k_, packed.data(), counts.data(), counts.size()});
    counts.clear();
  };
  auto emit = [&](std::string_view kmer, uint64_t count) __attribute__((always_inline)) {
    if (count > UINT32_MAX) {  // beyond a chunk's counts: alone, in letters
      flush();
      out.add(packed_kmer_letters(kmer.data(), k_), count);
      return;
    }
    copy_kmer_bytes(reinterpret_cast<char*>(packed.data()) + counts.size() * bytes, kmer.data(), bytes);
    counts.push_back(static_cast<uint32_t>(count));
    if (counts.size() == kChunk) flush();
  };
  SetOpResult r = merge(emit, progress);
  flush();
  return r;
}

SetOpResult SetOperation::run(const SetSink& sink, PipelineProgress* progress) {
  std::string text(k_, 'A');
  auto emit = [&](std::string_view kmer, uint64_t count) {
    decode_packed_kmer(reinterpret_cast<const uint8_t*>(kmer.data()), k_, text.data());
    sink(text, count);
  };
  return merge(emit, progress);
}

}  // namespace kmerbloom
