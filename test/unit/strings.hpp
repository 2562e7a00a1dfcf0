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

// Where two different texts first differ, and each one's line there: 160
// characters of it at most, from shortly before the difference in a long line.
struct Difference {
  std::string where, a, b;
};
inline Difference first_difference(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const auto at = static_cast<size_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin());
  const size_t start = a.substr(0, at).rfind('\n') + 1;  // npos + 1 = 0
  const size_t from = at - start > 120 ? at - 40 : start;
  const auto around = [&](std::string_view t) {
    if (start >= t.size()) return std::string("(end)");
    const size_t end = std::min(t.find('\n', start), t.size());  // the common prefix holds no newline past start
    const std::string_view shown = t.substr(from, std::min<size_t>(160, end - from));
    return (from > start ? "..." : "") + ::testing::PrintToString(std::string(shown)) +
           (from + shown.size() < end ? "..." : "");
  };
  const auto line = std::count(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
  return {"line " + std::to_string(line) + ", column " + std::to_string(at - start + 1) + " (byte " +
              std::to_string(at) + ")",
          around(a), around(b)};
}

inline ::testing::AssertionResult failure(const char* a_expr, const char* b_expr, const std::string& digest_a,
                                          const std::string& digest_b, const Difference& d) {
  return ::testing::AssertionFailure() << a_expr << " and " << b_expr << " differ\n  " << a_expr << ": " << digest_a
                                       << "\n  " << b_expr << ": " << digest_b << "\n  first difference at " << d.where
                                       << ":\n    " << a_expr << ": " << d.a << "\n    " << b_expr << ": " << d.b;
}

}  // namespace detail

// EXPECT_SAME(a, b) / ASSERT_SAME(a, b): a == b for outputs too large to
// print. GoogleTest prints both values whole, and diffs two strings line by
// line in quadratic memory (one failure took 24 GB); this prints each side's
// size and hash and the first difference only: the line of a string, the
// index of a range (vector, map) and, for strings in it, the place in them;
// values cut at 200 characters.
inline ::testing::AssertionResult SameText(const char* a_expr, const char* b_expr, std::string_view a,
                                           std::string_view b) {
  if (a == b) return ::testing::AssertionSuccess();
  return detail::failure(a_expr, b_expr, detail::digest(a), detail::digest(b), detail::first_difference(a, b));
}

template <class Range>
::testing::AssertionResult SameRange(const char* a_expr, const char* b_expr, const Range& a, const Range& b) {
  if (a == b) return ::testing::AssertionSuccess();
  auto ia = std::begin(a), ib = std::begin(b);
  size_t i = 0;
  for (; ia != std::end(a) && ib != std::end(b) && *ia == *ib; ++ia, ++ib) ++i;
  detail::Difference d;
  if constexpr (std::is_convertible_v<decltype(*ia), std::string_view>) {
    if (ia != std::end(a) && ib != std::end(b)) d = detail::first_difference(*ia, *ib);
  }
  d.where = "index " + std::to_string(i) + (d.where.empty() ? "" : ", " + d.where);
  if (d.a.empty()) d.a = ia == std::end(a) ? "(end)" : detail::clip(::testing::PrintToString(*ia));
  if (d.b.empty()) d.b = ib == std::end(b) ? "(end)" : detail::clip(::testing::PrintToString(*ib));
  return detail::failure(a_expr, b_expr, detail::digest(a), detail::digest(b), d);
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
