#include "profile/cutoffs.hpp"

#include <algorithm>
#include <cmath>

namespace kmerbloom {

uint64_t smudgeplot_lower_cutoff(const std::vector<uint64_t>& histogram) {
  size_t first = 1;
  while (first < histogram.size() && histogram[first] == 0) ++first;
  size_t end = histogram.size();  // one past the last row that is not 0
  while (end > first && histogram[end - 1] == 0) --end;
  uint64_t at = 0;  // the count at the first local minimum, 0 if none
  for (size_t c = first; c < end && at == 0; ++c) {
    const bool left = c == first || histogram[c - 1] >= histogram[c];
    const bool right = c + 1 == end || histogram[c] < histogram[c + 1];
    if (left && right) at = c;
  }
  if (at == 0) return 10;
  // Python rounds halves to the even neighbour; so does nearbyint.
  const auto rounded = static_cast<uint64_t>(std::nearbyint(1.25 * static_cast<double>(at - 1)));
  return std::max<uint64_t>(10, rounded);
}

namespace {

// smudgeplot's round_up_nice: up to the next multiple of 10^(digits - 2)
// (10^(digits - 1) for numbers of one digit).
uint64_t round_up_nice(uint64_t x) {
  if (x == 0) return 0;
  const int digits = static_cast<int>(std::ceil(std::log10(static_cast<double>(x))));
  const double multiplier = std::pow(10.0, digits <= 1 ? digits - 1 : digits - 2);
  return static_cast<uint64_t>(std::ceil(static_cast<double>(x) / multiplier) * multiplier);
}

}  // namespace

uint64_t smudgeplot_upper_cutoff(const std::vector<uint64_t>& histogram) {
  // Row index j (0-based from count 1) covers counts 2 .. j + 2.
  uint64_t total = 0;
  for (size_t c = 2; c < histogram.size(); ++c) total += histogram[c];
  if (total == 0) return 0;
  uint64_t sum = 0;
  for (size_t c = 2; c < histogram.size(); ++c) {
    sum += histogram[c];
    if (static_cast<double>(sum) / static_cast<double>(total) > 0.998) return round_up_nice(c - 2);
  }
  return round_up_nice(histogram.size() - 2);
}

}  // namespace kmerbloom
