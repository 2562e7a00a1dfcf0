#include "seqio/paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <stdexcept>

namespace kmerbloom {
namespace {

// Where an output lands: an existing file by device and inode; a file still
// to be created by its folder's device and inode plus its name.
struct Place {
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;  // empty for an existing file
  bool operator==(const Place&) const = default;
};

bool same_inode(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

bool is_dev_null(const struct stat& st) {
  struct stat null {};
  return S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 && same_inode(st, null);
}

// The file a path names ("-" for the given standard descriptor), if it exists.
std::optional<struct stat> existing(const std::string& path, int std_fd) {
  struct stat st {};
  if (path == "-" ? fstat(std_fd, &st) != 0 : stat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

std::optional<Place> place_of_output(const std::string& path) {
  if (const auto st = existing(path, STDOUT_FILENO)) {
    if (is_dev_null(*st) || S_ISDIR(st->st_mode)) return std::nullopt;  // a directory: the output reports it
    return Place{st->st_dev, st->st_ino, {}};
  }
  if (path == "-") return std::nullopt;  // stdout closed: compared by name below
  const size_t slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  struct stat dir {};
  if (name.empty() || stat(folder.c_str(), &dir) != 0) return std::nullopt;  // creating it will say why
  return Place{dir.st_dev, dir.st_ino, name};
}

std::string spelled(const NamedPath& p) { return p.option + " " + (p.path == "-" ? "- (standard output)" : p.path); }

}  // namespace

bool is_stream(const std::string& path) {
  if (path == "-") return true;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
}

void check_output_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::vector<std::pair<const NamedPath*, std::optional<Place>>> seen;
  for (const NamedPath& out : outputs) {
    if (out.path.empty()) continue;
    const std::optional<Place> place = place_of_output(out.path);
    for (const auto& [other, other_place] : seen) {
      const bool both_stdout = out.path == "-" && other->path == "-";
      if (!both_stdout && !(place && other_place && *place == *other_place)) continue;
      const auto st = existing(out.path, STDOUT_FILENO);
      if (both_stdout || (st && !S_ISREG(st->st_mode) && (out.path == "-" || other->path == "-")))
        throw std::invalid_argument(spelled(*other) + " and " + spelled(out) +
                                    " both write to standard output, where their lines would interleave; give "
                                    "one of them a file path");
      throw std::invalid_argument(spelled(*other) + " and " + spelled(out) +
                                  " are the same file: one output would replace the other; give each output its "
                                  "own path");
    }
    seen.emplace_back(&out, place);
    if (!place || !place->name.empty()) continue;  // a file still to be created is no input
    for (const NamedPath& in : inputs) {
      if (in.path.empty()) continue;
      const auto st = existing(in.path, STDIN_FILENO);
      if (!st || !S_ISREG(st->st_mode) || st->st_dev != place->dev || st->st_ino != place->ino) continue;
      const std::string input = in.path == "-" ? "standard input" : in.path;
      throw std::invalid_argument(spelled(out) + " is the " + (in.option == "input" ? "input" : in.option + " input") +
                                  " " + input + ": writing it would replace the data being read; give " +
                                  out.option + " another path");
    }
  }
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (a == "-" || b == "-" || ::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

uint64_t input_bytes_total(const std::vector<std::string>& inputs) {
  uint64_t total = 0;
  for (const auto& path : inputs) {
    struct stat st {};
    if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    total += static_cast<uint64_t>(st.st_size);
  }
  return total;
}

}  // namespace kmerbloom
