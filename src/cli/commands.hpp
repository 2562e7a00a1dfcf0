// One function per subcommand: it declares its options on `sub` and returns
// the action that runs once the command line is parsed.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace kmerbloom::cli {

using Action = std::function<int()>;

Action setup_count(CLI::App& sub);
Action setup_bin(CLI::App& sub);
Action setup_estimate(CLI::App& sub);
Action setup_filter(CLI::App& sub);
Action setup_build(CLI::App& sub);
Action setup_query(CLI::App& sub);
Action setup_merge(CLI::App& sub);
Action setup_info(CLI::App& sub);
Action setup_merge_counts(CLI::App& sub);
Action setup_report(CLI::App& sub);
Action setup_sets(CLI::App& sub);
Action setup_qv(CLI::App& sub);
Action setup_hetmers(CLI::App& sub);
Action setup_index(CLI::App& sub);
Action setup_lookup(CLI::App& sub);
Action setup_profile(CLI::App& sub);

}  // namespace kmerbloom::cli
