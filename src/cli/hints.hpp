// What to say when the command line does not parse: the usual habits of
// other k-mer counters (Jellyfish's -m, -s, -C; KMC's -ci2) get the
// kmerbloom spelling, a missing subcommand or input gets the list or usage.
// Pure functions of the arguments; nothing is printed here.
#pragma once

#include <string>
#include <vector>

namespace kmerbloom::cli {

// Hints, one per line without the trailing newline, for the arguments of a
// command line that failed to parse; subcommand is the one named ("" if
// none). Empty when no habit is recognised.
std::vector<std::string> peer_hints(const std::vector<std::string>& args, const std::string& subcommand);

// The parser's message, reworded where it would not tell a user what to do
// ("inputs is required" becomes "no input files: ..."). subcommands lists the
// names for a missing subcommand.
std::string explain_parse_error(const std::string& message, const std::string& subcommand,
                                const std::vector<std::string>& subcommands);

}  // namespace kmerbloom::cli
