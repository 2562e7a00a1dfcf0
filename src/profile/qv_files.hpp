// The files of kmerbloom qv, in the forms Merqury's eval/spectra-cn.sh
// writes (docs/qv.md has the columns), and the numbers of --stats.
//
// Numbers print as Merqury's awk prints them: integers as integers, other
// values with 6 significant digits (%.6g), an infinite QV as "inf".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/assembly_qv.hpp"

namespace kmerbloom {

// x as awk's print writes it with the default OFMT.
std::string awk_number(double x);

// The assembly's name in file names and rows: the file name without its
// folder and without .fa or .fasta (each optionally .gz), as Merqury names it.
std::string assembly_name(const std::string& path);

// PREFIX.qv, PREFIX.NAME.qv (without per_sequence: not written),
// PREFIX.completeness.stats, PREFIX.NAME.spectra-cn.hist, PREFIX.NAME.only.hist.
std::vector<std::string> qv_file_paths(const std::string& prefix, const std::string& name, bool per_sequence);

// Writes every file of qv_file_paths, each atomically (formats/output.hpp),
// committed together at the end. Throws OutputError.
void write_qv_files(const QvResult& r, const std::string& prefix, const std::string& name);

// The figures of a run for --stats: QV, error rate, completeness, totals, the
// solid threshold and where it came from, the spectra-cn rows.
nlohmann::json qv_figures_json(const QvResult& r, const std::string& name);

}  // namespace kmerbloom
