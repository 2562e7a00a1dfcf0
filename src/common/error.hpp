// The library's exceptions, in one place. The library never prints or exits:
// it throws one of these (or std::invalid_argument for a bad option, or
// std::bad_alloc), and the command line turns it into one "error:" line and an
// exit code (README, "Errors and exit codes"). Every message is complete and
// names the file, and the record or line where there is one.
#pragma once

#include <stdexcept>

namespace kmerbloom {

// Bad input data: the message is complete ("FILE: record N (line L): what").
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An output that cannot be created, written or renamed into place.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Any failure to read or write a filter file. The message names the path and
// what is wrong ("PATH: checksum mismatch (...)").
class FilterFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Two filters whose shapes or key definitions differ; the message names the
// parameter and both values ("layer 0 blocks differs: 1024 in a.kbf, 2048 in b.kbf").
class FilterMismatch : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The memory budget cannot be met; thrown before counting starts.
class BudgetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kmerbloom
