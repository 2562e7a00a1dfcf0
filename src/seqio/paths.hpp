// What an input path is, and whether a command's outputs would overwrite its
// inputs or each other. Both look at the file system only (stat); neither
// reads or writes a byte of any file.
//
// Thread safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kmerbloom {

// True when the input can be read only once: standard input ("-"), a FIFO, a
// character device, a socket, whatever its path. A regular file is a file
// wherever it lives (/dev/shm, /proc/self/fd/N of a redirected file); a block
// device can be read twice too. A path that does not exist is not a stream:
// opening it reports the error.
bool is_stream(const std::string& path);

// True when both paths name one existing regular file (device and inode),
// however each is spelled.
bool same_file(const std::string& a, const std::string& b);

// Sum of the sizes of the input files, 0 if any is not a regular file ("-",
// a pipe): unknown.
uint64_t input_bytes_total(const std::vector<std::string>& inputs);

// A path as the user named it, with the option that named it ("-o",
// "--histo", "input" for positional inputs); the option goes into messages.
struct NamedPath {
  std::string option;
  std::string path;
};

// Refuses, with std::invalid_argument naming both options and the path:
//  - an output that is one of the inputs: the same file by device and inode,
//    however it is spelled (a link, "sub/../reads.fq", /proc/self/fd/N);
//  - two outputs on the same file (an existing one by device and inode, a new
//    one by its folder's device and inode and its name);
//  - two outputs on standard output ("-", or /dev/stdout and the like).
// /dev/null may take any number of outputs. Empty paths are skipped (an
// output not asked for).
void check_output_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace kmerbloom
