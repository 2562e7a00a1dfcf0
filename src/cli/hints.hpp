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

// The name of `names` closest to `word` (of 4 characters or more): within an
// edit distance of a third of its length (at least 1, at most 2; a swap of
// neighbours is one edit), or one starting with it; "" when none.
std::string closest_name(const std::string& word, const std::vector<std::string>& names);

// A first argument that names no subcommand: said so, with the closest name
// and what users of other counters mean by it ("histo": count --histo).
std::string unknown_subcommand(const std::string& word, const std::vector<std::string>& subcommands);

// An option a subcommand does not take: said so, with its closest option.
std::string unknown_option(const std::string& option, const std::string& subcommand,
                           const std::vector<std::string>& options);

}  // namespace kmerbloom::cli
