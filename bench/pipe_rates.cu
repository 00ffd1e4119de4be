// Issue rates of the instructions the DPX kernels are built from, alone and mixed (warp
// instructions per clock per SM; an SM issues at most 4): which ones share the ALU pipe with
// the DPX add-max ops (kernels/cuda/NOTES.md, session of 2026-11-22 early morning).
//   nvcc -O3 -arch=sm_90 -o pipe_rates bench/pipe_rates.cu && ./pipe_rates
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <utility>

constexpr int kSteps = 4096;  // loop trips; 8 independent chains per thread
constexpr int kBlocksPerSm = 8, kThreads = 256;

__device__ __forceinline__ uint32_t hmax2(uint32_t a, uint32_t b) {
  const __half2 r = __hmax2(*reinterpret_cast<const __half2*>(&a), *reinterpret_cast<const __half2*>(&b));
  return *reinterpret_cast<const uint32_t*>(&r);
}
__device__ __forceinline__ uint32_t hfma2_relu(uint32_t a, uint32_t b, uint32_t c) {
  const __half2 r = __hfma2_relu(*reinterpret_cast<const __half2*>(&a), *reinterpret_cast<const __half2*>(&b),
                                 *reinterpret_cast<const __half2*>(&c));
  return *reinterpret_cast<const uint32_t*>(&r);
}
__device__ __forceinline__ uint32_t add16x2(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("add.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

// Op K on chain j (the mixes alternate two kinds over the chains).
template <int K>
__device__ __forceinline__ uint32_t op(uint32_t a, uint32_t b, uint32_t c, int j) {
  switch (K) {
    case 0: return __viaddmax_s16x2(a, b, c);
    case 1: return __vimax3_s16x2_relu(a, b, c);
    case 2: return __vimax_s16x2_relu(a, b);
    case 3: return hmax2(a, b);
    case 4: return hfma2_relu(a, b, c);
    case 5: return __byte_perm(a, b, 0x5140);
    case 6: return a * b + c;
    case 7: return add16x2(a, b);
    case 8: return j & 1 ? hmax2(a, b) : __viaddmax_s16x2(a, b, c);
    case 9: return j & 1 ? hfma2_relu(a, b, c) : __viaddmax_s16x2(a, b, c);
    case 10: return j & 1 ? add16x2(a, b) : __viaddmax_s16x2(a, b, c);
    default: return j % 4 == 0 ? add16x2(a, b) : j % 4 == 1 ? __vimax_s16x2_relu(a, b) : __viaddmax_s16x2(a, b, c);
  }
}

template <int K>
__global__ void chains(uint32_t* out, uint32_t s0, uint32_t s1) {
  uint32_t a[8];
  const uint32_t b = s0 + threadIdx.x, c = s1;
#pragma unroll
  for (int j = 0; j < 8; ++j) a[j] = s0 * (j + 1) + threadIdx.x;
  for (int i = 0; i < kSteps; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = op<K>(a[j], b, c, j);
  }
  uint32_t r = 0;
  for (int j = 0; j < 8; ++j) r ^= a[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

template <int K>
void run(const char* name, uint32_t* d, int sms) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const int blocks = sms * kBlocksPerSm;
  chains<K><<<blocks, kThreads>>>(d, 3, 5);  // warm-up
  cudaEventRecord(e0);
  chains<K><<<blocks, kThreads>>>(d, 3, 5);
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  const double warp_instr = double(blocks) * kThreads / 32 * kSteps * 8;
  std::printf("%-24s %.3f ms  %.2f warp-instr/clk/SM (at %d MHz)\n", name, ms,
              warp_instr / sms / (ms * 1e-3 * khz * 1e3), khz / 1000);
}

// Op K's name (the cases of op<K>).
constexpr const char* kNames[] = {"VIADDMNMX",        "VIMNMX3.relu",        "VIMNMX.relu",   "HMNMX2",
                                  "HFMA2.relu",       "PRMT",                "IMAD",          "add.s16x2",
                                  "VIADDMNMX+HMNMX2", "VIADDMNMX+HFMA2",     "VIADDMNMX+add.s16x2", "2 DPX+add+max"};

template <int... K>
void run_all(std::integer_sequence<int, K...>, uint32_t* d, int sms) {
  (run<K>(kNames[K], d, sms), ...);
}

int main() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  uint32_t* d = nullptr;
  cudaMalloc(&d, size_t(p.multiProcessorCount) * kBlocksPerSm * kThreads * sizeof(uint32_t));
  const int s = p.multiProcessorCount;
  run_all(std::make_integer_sequence<int, 12>{}, d, s);
  return 0;
}
