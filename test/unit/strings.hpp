// String oracles shared by the unit tests.
#pragma once

#include <string>

namespace kbtest {

// Reverse complement of an ACGT string.
inline std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return r;
}

}  // namespace kbtest
