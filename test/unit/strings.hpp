// String oracles and checks shared by the unit tests: a comparison for large
// outputs, the message of an expected error.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>

namespace kbtest {

// Reverse complement of an ACGT string.
inline std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return r;
}

// The message of the E that f() throws; "" when it throws none.
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

namespace detail {

inline uint64_t fnv1a(std::string_view bytes, uint64_t h = 0xcbf29ce484222325ULL) {
  for (const unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// At most 200 characters of s.
inline std::string clip(std::string_view s) {
  std::string out(s.substr(0, 200));
  if (s.size() > 200) out += "... (" + std::to_string(s.size()) + " characters)";
  return out;
}

// The line of text that starts at byte `at`, without its newline.
inline std::string_view line_at(std::string_view text, size_t at) {
  const size_t end = text.find('\n', at);
  return text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
}

inline std::string digest(std::string_view text) {
  return std::to_string(text.size()) + " bytes, " + std::to_string(std::count(text.begin(), text.end(), '\n')) +
         " lines, FNV-1a " + ::testing::PrintToString(fnv1a(text));
}

template <class Range>
std::string digest(const Range& r) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const auto& e : r) h = fnv1a(::testing::PrintToString(e) + '\x1f', h);
  return std::to_string(std::distance(std::begin(r), std::end(r))) + " elements, FNV-1a " + ::testing::PrintToString(h);
}

}  // namespace detail

// EXPECT_SAME(a, b) / ASSERT_SAME(a, b): a == b for outputs too large to
// print. GoogleTest prints both values whole, and diffs two strings line by
// line in quadratic memory (one failure took 24 GB); this prints each side's
// size and hash and the first difference only: the line of a string, the
// index of a range (vector, map), with both values cut at 200 characters.
inline ::testing::AssertionResult SameText(const char* a_expr, const char* b_expr, std::string_view a,
                                           std::string_view b) {
  if (a == b) return ::testing::AssertionSuccess();
  const size_t n = std::min(a.size(), b.size());
  const auto at = static_cast<size_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin());
  const size_t start = a.substr(0, at).rfind('\n') + 1;  // npos + 1 = 0
  const auto line = [&](std::string_view t) {
    if (start >= t.size()) return std::string("(end)");
    return detail::clip(::testing::PrintToString(std::string(detail::line_at(t, start))));
  };
  return ::testing::AssertionFailure() << a_expr << " and " << b_expr << " differ\n  " << a_expr << ": "
                                       << detail::digest(a) << "\n  " << b_expr << ": " << detail::digest(b)
                                       << "\n  first difference at line "
                                       << std::count(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1
                                       << " (byte " << at << "):\n    " << a_expr << ": " << line(a) << "\n    "
                                       << b_expr << ": " << line(b);
}

template <class Range>
::testing::AssertionResult SameRange(const char* a_expr, const char* b_expr, const Range& a, const Range& b) {
  if (a == b) return ::testing::AssertionSuccess();
  auto ia = std::begin(a), ib = std::begin(b);
  size_t i = 0;
  for (; ia != std::end(a) && ib != std::end(b) && *ia == *ib; ++ia, ++ib) ++i;
  const auto value = [](auto it, auto end) {
    return it == end ? std::string("(end)") : detail::clip(::testing::PrintToString(*it));
  };
  return ::testing::AssertionFailure() << a_expr << " and " << b_expr << " differ\n  " << a_expr << ": "
                                       << detail::digest(a) << "\n  " << b_expr << ": " << detail::digest(b)
                                       << "\n  first difference at index " << i << ":\n    " << a_expr << ": "
                                       << value(ia, std::end(a)) << "\n    " << b_expr << ": "
                                       << value(ib, std::end(b));
}

template <class A, class B>
::testing::AssertionResult Same(const char* a_expr, const char* b_expr, const A& a, const B& b) {
  if constexpr (std::is_convertible_v<const A&, std::string_view> && std::is_convertible_v<const B&, std::string_view>)
    return SameText(a_expr, b_expr, a, b);
  else
    return SameRange(a_expr, b_expr, a, b);
}

}  // namespace kbtest

#define EXPECT_SAME(a, b) EXPECT_PRED_FORMAT2(::kbtest::Same, a, b)
#define ASSERT_SAME(a, b) ASSERT_PRED_FORMAT2(::kbtest::Same, a, b)
