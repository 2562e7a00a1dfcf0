#include "formats/histogram_file.hpp"

#include <stdexcept>

#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/output.hpp"
#include "seqio/line_reader.hpp"

namespace kmerbloom {

HistogramFile read_histogram(const std::string& path) {
  LineReader in(path);
  HistogramFile h;
  h.name = in.name();
  h.frequency.assign(1, 0);
  std::vector<bool> seen(1, false);
  uint64_t distinct_rows = 0;
  std::string_view line;
  while (in.next(line)) {
    if (is_blank(line)) continue;
    std::string_view rest = line;
    uint64_t c = 0, f = 0;
    if (!take_uint(rest, c) || !take_uint(rest, f) || !is_blank(rest))
      in.fail("expected 'COUNT FREQUENCY', got '" + printable(line) + "'");
    if (c > kMaxHistogramRow) in.fail("count " + std::to_string(c) + " is beyond the supported range");
    if (c == 0) continue;
    if (h.frequency.size() <= c) {
      h.frequency.resize(c + 1, 0);
      seen.resize(c + 1, false);
    }
    h.frequency[c] += f;
    if (!seen[c]) ++distinct_rows;
    seen[c] = true;
  }
  if (distinct_rows == 0) throw InputError(h.name + ": no histogram rows");
  h.last_row = h.frequency.size() - 1;
  h.dense = distinct_rows == h.last_row;
  return h;
}

std::vector<uint64_t> read_histogram_file(const std::string& path) { return read_histogram(path).frequency; }

std::vector<std::pair<uint64_t, uint64_t>> sum_histograms(const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw std::invalid_argument("no input files");
  std::vector<HistogramFile> files;
  for (const auto& p : inputs) files.push_back(read_histogram(p));
  const HistogramFile* widest = &files[0];
  const HistogramFile* capped = nullptr;  // the dense file with the lowest overflow row
  for (const auto& f : files) {
    if (f.last_row > widest->last_row) widest = &f;
    if (f.dense && (!capped || f.last_row < capped->last_row)) capped = &f;
  }
  if (capped && widest->last_row > capped->last_row)
    throw InputError(widest->name + ": row " + std::to_string(widest->last_row) + " is beyond " + capped->name +
                     "'s last row " + std::to_string(capped->last_row) +
                     ", which holds every higher count: histograms must come from the same --histo-max");
  std::vector<uint64_t> total(widest->last_row + 1, 0);
  std::vector<bool> present(total.size(), false);
  for (const auto& f : files)
    for (size_t c = 1; c < f.frequency.size(); ++c) {
      const uint64_t add = f.frequency[c];
      total[c] = add > UINT64_MAX - total[c] ? UINT64_MAX : total[c] + add;
      present[c] = present[c] || add || f.dense;
    }
  std::vector<std::pair<uint64_t, uint64_t>> rows;
  for (size_t c = 1; c < total.size(); ++c)
    if (present[c]) rows.emplace_back(c, total[c]);
  return rows;
}

HistogramWriter::HistogramWriter(const std::string& path) : out_(std::make_unique<OutputFile>(path)) {}
HistogramWriter::~HistogramWriter() = default;

void HistogramWriter::add(uint64_t count, uint64_t frequency) {
  out_->put_uint(count);
  out_->put(' ');
  out_->put_uint(frequency);
  out_->put('\n');
}

void HistogramWriter::finish() { out_->commit(); }

void write_histogram(const std::string& path, const std::vector<uint64_t>& frequency) {
  HistogramWriter out(path);
  for (size_t c = 1; c < frequency.size(); ++c) out.add(c, frequency[c]);
  out.finish();
}

}  // namespace kmerbloom
