// The library's exceptions, in one place. The library never prints or exits:
// it throws one of these (or std::invalid_argument for a bad option, or
// std::bad_alloc), and the command line turns it into one "error:" line and an
// exit code (README, "Errors and exit codes"). Every message is complete and
// names the file, and the record or line where there is one.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

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

// The memory budget cannot be met; thrown before the work starts. Where the
// least budget that would do is known (least > 0), the message ends with the
// -M to give, in whole MiB as -M takes it ("; give -M 26M or more"), then
// `also` (another way out, such as fewer threads); a caller that gives the
// work only a share of its -M rethrows with its own reason and least.
class BudgetError : public std::runtime_error {
 public:
  explicit BudgetError(const std::string& what) : std::runtime_error(what), reason_(what) {}
  BudgetError(const std::string& reason, uint64_t least, const std::string& also = {})
      : std::runtime_error(reason + "; give -M " + std::to_string((least + (uint64_t{1} << 20) - 1) >> 20) + "M or more" +
                           also),
        reason_(reason),
        also_(also),
        least_(least) {}
  const std::string& reason() const { return reason_; }
  const std::string& also() const { return also_; }
  uint64_t least() const { return least_; }

 private:
  std::string reason_, also_;
  uint64_t least_ = 0;
};

}  // namespace kmerbloom
