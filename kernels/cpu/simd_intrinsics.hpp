#pragma once
// The x86 vector intrinsics the CPU kernels are written in. On x86 they are the compiler's
// own. Elsewhere (aarch64: Grace, Graviton) SIMDe (libsimde-dev) provides the same functions
// under the same names, built on NEON with the same defined results (saturating adds, unsigned
// max, byte shuffles), so one kernel source serves both and scores stay bit-identical.
// Only the 128-bit (SSE2) kernels are used off x86: NEON vectors are 128 bits wide.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HPCALIGN_SIMD_NATIVE 1
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/sse2.h>
#define HPCALIGN_SIMD_NATIVE 0
#endif
