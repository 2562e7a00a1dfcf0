// A GoogleTest fixture with a fresh temporary folder per test, removed after it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kmerbloom {

class TempDirTest : public ::testing::Test {
 public:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "kmerbloom_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // Writes bytes to name in the folder and returns its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
  std::string dir_;
};

}  // namespace kmerbloom
