// The copy-number spectrum of an assembly (Merqury's spectra-cn plot): the
// read k-mers by their count in the reads (across), distinct k-mers (up),
// one line per copy number in the assembly (read-only, 1, 2, 3, 4, >4), the
// solid threshold dashed. Pure functions of their inputs.
#pragma once

#include <string>

#include "profile/assembly_qv.hpp"

namespace kmerbloom {

// A standalone SVG document.
std::string spectra_cn_svg(const QvResult& r);

// A self-contained HTML page: QV, error rate, completeness and the plot.
std::string qv_report_html(const std::string& assembly, const QvResult& r);

}  // namespace kmerbloom
