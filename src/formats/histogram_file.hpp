// k-mer histogram files: one "COUNT FREQUENCY" row per line (space or tab
// separated), as `kmerbloom count --histo` and `jellyfish histo` write them.
// kmerbloom writes every row from 1 to its overflow row (--histo-max + 1),
// zeros included; jellyfish leaves out the rows whose frequency is 0, so a
// row missing from a file is a zero row. Blank lines are skipped, "\r\n" is
// accepted, rows of COUNT 0 are ignored, a COUNT given twice adds up.
// Plain or gzip, "-" for stdin.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kmerbloom {

class OutputFile;

// Largest COUNT a histogram file may hold (a 128 MB vector; jellyfish's
// default last row is 10,001).
inline constexpr uint64_t kMaxHistogramRow = uint64_t{1} << 24;

struct HistogramFile {
  std::string name;                // in messages ("<stdin>" for "-")
  std::vector<uint64_t> frequency; // frequency[c], c = 1 .. last_row; [0] is 0
  uint64_t last_row = 0;           // largest COUNT in the file
  // Every row from 1 to last_row is present, as kmerbloom writes them: then
  // last_row is the file's overflow row (k-mers seen last_row times or more).
  bool dense = false;
};

// Throws InputError naming the file and line for a malformed row (not two
// unsigned integers), a COUNT above kMaxHistogramRow, or a file without rows.
HistogramFile read_histogram(const std::string& path);

// read_histogram(path).frequency.
std::vector<uint64_t> read_histogram_file(const std::string& path);

// Adds histograms row by row, a missing row counting as 0 (so kmerbloom's and
// jellyfish's may be mixed). A dense file ends with its overflow row: no other
// input may have a row beyond it (that is a histogram of a larger --histo-max),
// else InputError naming both files. Returns (COUNT, summed FREQUENCY) for
// every row of a dense input and every non-zero row, in increasing COUNT.
std::vector<std::pair<uint64_t, uint64_t>> sum_histograms(const std::vector<std::string>& inputs);

// Writes rows as kmerbloom and jellyfish do ("COUNT FREQUENCY\n"), through
// an OutputFile that finish() commits (none is left behind without it).
class HistogramWriter {
 public:
  explicit HistogramWriter(const std::string& path);
  ~HistogramWriter();
  HistogramWriter(const HistogramWriter&) = delete;
  HistogramWriter& operator=(const HistogramWriter&) = delete;

  void add(uint64_t count, uint64_t frequency);
  void finish();

 private:
  std::unique_ptr<OutputFile> out_;
};

// Rows 1 .. size - 1 of frequency (row 0 is not written), zeros included.
void write_histogram(const std::string& path, const std::vector<uint64_t>& frequency);

}  // namespace kmerbloom
