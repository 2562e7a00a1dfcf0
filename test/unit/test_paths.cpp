// Unit tests of is_stream and check_output_paths (seqio/paths.hpp).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "seqio/paths.hpp"

namespace kmerbloom {
namespace {

class PathsTest : public TempDirTest {};

// The message of the std::invalid_argument check_output_paths throws, or "".
std::string refusal(const std::vector<NamedPath>& in, const std::vector<NamedPath>& out) {
  try {
    check_output_paths(in, out);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST_F(PathsTest, StreamIsWhatTheFileIsNotWhereItIs) {
  EXPECT_TRUE(is_stream("-"));
  const std::string fifo = path("in.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(is_stream(fifo));
  EXPECT_TRUE(is_stream("/dev/null"));  // a character device
  EXPECT_FALSE(is_stream(write("reads.fq", "@r\nACGT\n+\nIIII\n")));
  EXPECT_FALSE(is_stream(path("missing.fq")));  // opening it will say so
  EXPECT_FALSE(is_stream(dir_));
  // A regular file under /dev is a file: the old test by path prefix said stream.
  if (access("/dev/shm", W_OK) == 0) {
    std::string shm = "/dev/shm/kmerbloom_paths_XXXXXX";
    const int fd = mkstemp(shm.data());
    ASSERT_GE(fd, 0);
    close(fd);
    EXPECT_FALSE(is_stream(shm));
    unlink(shm.c_str());
  }
  const std::string sock = path("s.sock");
  const int s = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (s >= 0 && sock.size() < sizeof addr.sun_path) {
    std::copy(sock.begin(), sock.end(), addr.sun_path);
    ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_TRUE(is_stream(sock));
  }
  if (s >= 0) close(s);
}

TEST_F(PathsTest, AnOutputOnAnInputIsRefusedHoweverSpelled) {
  const std::string reads = write("reads.fq", "@r\nACGT\n+\nIIII\n");
  std::filesystem::create_directory(path("sub"));
  std::filesystem::create_symlink(reads, path("link.tsv"));
  for (const std::string& spelling : std::vector<std::string>{reads, path("sub/../reads.fq"), path("link.tsv"), dir_ + "//reads.fq"}) {
    const std::string msg = refusal({{"input", reads}}, {{"-o", spelling}});
    EXPECT_NE(msg.find("-o " + spelling + " is the input " + reads), std::string::npos) << spelling << ": " << msg;
  }
  EXPECT_NE(refusal({{"input", path("x.fq")}, {"--solid", reads}}, {{"-o", path("k.fq")}, {"-O", reads}})
                .find("-O " + reads + " is the --solid input"),
            std::string::npos);
  EXPECT_EQ(refusal({{"input", reads}}, {{"-o", path("out.tsv")}, {"--histo", path("out.histo")}}), "");
  EXPECT_EQ(refusal({{"input", "-"}}, {{"-o", "-"}}), "");  // stdin and stdout are not one file
}

TEST_F(PathsTest, TwoOutputsOnOneFileAreRefused) {
  // Not there yet: the same folder and name.
  std::filesystem::create_directory(path("sub"));
  std::string msg = refusal({}, {{"-o", path("X")}, {"--histo", path("sub/../X")}});
  EXPECT_NE(msg.find("-o " + path("X") + " and --histo " + path("sub/../X") + " are the same file"), std::string::npos)
      << msg;
  // There already: the same inode.
  const std::string x = write("X", "previous\n");
  msg = refusal({}, {{"-o", x}, {"--stats", x}});
  EXPECT_NE(msg.find("are the same file"), std::string::npos) << msg;
  // Two writers of stdout.
  msg = refusal({}, {{"-o", "-"}, {"--histo", "-"}});
  EXPECT_NE(msg.find("-o - (standard output) and --histo - (standard output) both write to standard output"),
            std::string::npos)
      << msg;
  // Different names, unset options, /dev/null any number of times: fine.
  EXPECT_EQ(refusal({}, {{"-o", path("a")}, {"--histo", path("b")}, {"--stats", ""}, {"--plot", ""}}), "");
  EXPECT_EQ(refusal({}, {{"-o", "/dev/null"}, {"--histo", "/dev/null"}}), "");
}

}  // namespace
}  // namespace kmerbloom
