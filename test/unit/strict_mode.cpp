// Strict mode for the unit tests (KMERBLOOM_STRICT=1, as .ci/run sets, or
// CI=true): a skipped test (GTEST_SKIP) is a failure. ctest marks a test
// whose output holds "[  SKIPPED ]" as skipped whatever its exit code (the
// GoogleTest module sets SKIP_REGULAR_EXPRESSION, and that property only
// accumulates), so in strict mode the default printer is wrapped: a skipped
// test is reported as failed, with its reason, the skip lines are not
// printed, and the program exits with status 1.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

bool strict_env() {
  for (const char* name : {"KMERBLOOM_STRICT", "CI"}) {
    if (const char* v = std::getenv(name); v && *v)
      return std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0 || std::strcmp(v, "yes") == 0;
  }
  return false;
}

class StrictPrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit StrictPrinter(::testing::TestEventListener* inner) : inner_(inner) {}

  void OnTestProgramStart(const ::testing::UnitTest& u) override { inner_->OnTestProgramStart(u); }
  void OnTestIterationStart(const ::testing::UnitTest& u, int i) override { inner_->OnTestIterationStart(u, i); }
  void OnEnvironmentsSetUpStart(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsSetUpStart(u); }
  void OnEnvironmentsSetUpEnd(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsSetUpEnd(u); }
  void OnTestSuiteStart(const ::testing::TestSuite& s) override { inner_->OnTestSuiteStart(s); }
  void OnTestStart(const ::testing::TestInfo& t) override { inner_->OnTestStart(t); }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.skipped()) {
      reason_ = r.message();
      return;
    }
    inner_->OnTestPartResult(r);
  }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    if (!t.result()->Skipped()) {
      inner_->OnTestEnd(t);
      return;
    }
    ++skipped_;
    std::printf("strict mode (KMERBLOOM_STRICT or CI): a skipped test is a failure: %s\n", reason_.c_str());
    std::printf("[  FAILED  ] %s.%s (skipped)\n", t.test_suite_name(), t.name());
    std::fflush(stdout);
  }
  void OnTestSuiteEnd(const ::testing::TestSuite& s) override { inner_->OnTestSuiteEnd(s); }
  void OnEnvironmentsTearDownStart(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsTearDownStart(u); }
  void OnEnvironmentsTearDownEnd(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsTearDownEnd(u); }
  void OnTestIterationEnd(const ::testing::UnitTest& u, int i) override {
    if (skipped_ == 0) {
      inner_->OnTestIterationEnd(u, i);
      return;
    }
    std::printf("[  FAILED  ] %d test(s) skipped in strict mode\n", skipped_);
    std::fflush(stdout);
  }
  void OnTestProgramEnd(const ::testing::UnitTest& u) override {
    inner_->OnTestProgramEnd(u);
    if (skipped_ > 0) {
      std::fflush(nullptr);
      std::_Exit(1);
    }
  }

 private:
  std::unique_ptr<::testing::TestEventListener> inner_;
  std::string reason_;
  int skipped_ = 0;
};

// Installed before main() runs the tests (gtest_main); nothing to do outside
// strict mode.
const bool kInstalled = [] {
  if (!strict_env()) return false;
  ::testing::TestEventListeners& l = ::testing::UnitTest::GetInstance()->listeners();
  ::testing::TestEventListener* printer = l.Release(l.default_result_printer());
  if (printer == nullptr) return false;
  l.Append(new StrictPrinter(printer));
  return true;
}();

}  // namespace
