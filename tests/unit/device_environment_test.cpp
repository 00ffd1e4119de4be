#include "kernels/device_environment.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace hpc {
namespace {

// The variable as it was before the test, put back after it.
class SavedVariable {
 public:
  explicit SavedVariable(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) value_ = v;
  }
  ~SavedVariable() {
    if (value_)
      setenv(name_, value_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> value_;
};

TEST(DeviceEnvironment, SetsACommandsConnectionsUnlessTheUserChoseOthers) {
  const SavedVariable saved("CUDA_DEVICE_MAX_CONNECTIONS");
  unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
  set_cuda_environment_defaults("allvsall", {"-i", "s.fa", "--score-only", "-o", "out.h5"});
  ASSERT_NE(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), nullptr);
  EXPECT_STREQ(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "2");
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
  set_cuda_environment_defaults("allvsall", {"--score-only"});
  EXPECT_STREQ(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "4");
}

// An allvsall with alignments keeps the driver's 8 queues (2 slowed its phase), as does search
// (32 cost its wall more than they saved its phase) and the commands never measured with others.
TEST(DeviceEnvironment, LeavesTheDriversDefaultToTheOtherRuns) {
  const SavedVariable saved("CUDA_DEVICE_MAX_CONNECTIONS");
  unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
  set_cuda_environment_defaults("allvsall", {"-i", "s.fa", "-o", "out.h5", "--min-score", "50"});
  EXPECT_EQ(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), nullptr);
  for (const char* command : {"search", "hmmsearch", "hmmscan", "msv", "pss", "view", "merge", "makedb", "", "--version"}) {
    set_cuda_environment_defaults(command, {"--score-only"});
    EXPECT_EQ(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), nullptr) << command;
  }
  EXPECT_EQ(cuda_connections_for("search", {"-q", "q.fa", "-d", "db.h5"}), 0);
  EXPECT_EQ(cuda_connections_for("allvsall", {"--score-only"}), 2);
  EXPECT_EQ(cuda_connections_for("allvsall", {"--mode", "global"}), 0);
  EXPECT_EQ(cuda_connections_for("pss", {}), 0);
}

}  // namespace
}  // namespace hpc
