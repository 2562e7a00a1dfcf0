// The fitted genome profile drawn over its spectrum: the histogram, the
// model, its error term and each copy number's negative binomial, on a
// linear and a log-log panel (the two plots GenomeScope draws), as one SVG.
// Pure functions of their input, but for writing the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile/genome_model.hpp"

namespace kmerbloom {

std::string profile_svg(const std::vector<uint64_t>& histogram, const GenomeProfile& p, const std::string& title);

// The report's section (report_html's extra_sections): the figures as a
// table, the verdict, and the plot.
std::string profile_report_section(const std::vector<uint64_t>& histogram, const GenomeProfile& p);

// profile --report: a self-contained page of the figures (each het form's
// share at p > 2) and the plot.
std::string profile_report_html(const std::vector<uint64_t>& histogram, const GenomeProfile& p,
                                const std::string& sample);

// Writes profile_svg atomically (formats/output.hpp); throws OutputError.
void write_profile_svg(const std::vector<uint64_t>& histogram, const GenomeProfile& p, const std::string& title,
                       const std::string& path);

}  // namespace kmerbloom
