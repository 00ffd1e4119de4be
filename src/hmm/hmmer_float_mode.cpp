#include "src/hmm/hmmer_float_mode.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace hpc::hmm {

#if defined(__x86_64__) || defined(__i386__)
HmmerFloatMode::HmmerFloatMode() : saved_(_mm_getcsr()) {
  _mm_setcsr(unsigned(saved_) | 0x8000u | 0x0040u);  // FTZ | DAZ
}
HmmerFloatMode::~HmmerFloatMode() { _mm_setcsr(unsigned(saved_)); }
#elif defined(__aarch64__)
HmmerFloatMode::HmmerFloatMode() {
  uint64_t fpcr;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  saved_ = fpcr;
  fpcr |= uint64_t(1) << 24;  // FZ
  __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr));
}
HmmerFloatMode::~HmmerFloatMode() { __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_)); }
#else
#error "HmmerFloatMode: no flush-to-zero control for this architecture"
#endif

}  // namespace hpc::hmm
