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

TEST(DeviceEnvironment, SetsThirtyTwoConnectionsUnlessTheUserChoseOthers) {
  const SavedVariable saved("CUDA_DEVICE_MAX_CONNECTIONS");
  unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
  set_cuda_environment_defaults();
  ASSERT_NE(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), nullptr);
  EXPECT_STREQ(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "32");
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
  set_cuda_environment_defaults();
  EXPECT_STREQ(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "4");
}

}  // namespace
}  // namespace hpc
