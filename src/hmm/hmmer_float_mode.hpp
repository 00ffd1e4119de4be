#pragma once
// hmmsearch runs with denormals flushed to zero, on results and on inputs (impl_Init: the
// SSE control register's FTZ and DAZ bits), for all its float and double arithmetic, libm's
// exp() included: an E-value below 2.2e-308 prints as 0, and DP cells that would go subnormal
// are 0. This guard sets the same mode for its scope and restores the caller's on exit
// (x86: MXCSR; aarch64: FPCR.FZ, which flushes both ways).
#include <cstdint>

namespace hpc::hmm {

class HmmerFloatMode {
 public:
  HmmerFloatMode();
  ~HmmerFloatMode();
  HmmerFloatMode(const HmmerFloatMode&) = delete;
  HmmerFloatMode& operator=(const HmmerFloatMode&) = delete;

 private:
  uint64_t saved_ = 0;
};

}  // namespace hpc::hmm
