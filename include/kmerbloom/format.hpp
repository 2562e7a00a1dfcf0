// Small formatting helpers shared by the library and the command line: the
// name of an input in messages. Pure functions, safe from any thread.
#pragma once

#include <string>

namespace kmerbloom {

// The name of an input or output in messages: the path, "<stdin>" for "-".
inline std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

}  // namespace kmerbloom
