// A choice between two unsigned values without a branch, for hot loops whose
// condition is as likely true as false (a mispredicted branch there costs
// more than computing both sides).
#pragma once

#include <concepts>

namespace kmerbloom {

// a if first, else b, through a mask.
template <std::unsigned_integral T>
constexpr T pick(bool first, T a, T b) noexcept {
  const T m = T{0} - static_cast<T>(first);
  return (a & m) | (b & ~m);
}

}  // namespace kmerbloom
