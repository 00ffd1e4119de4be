#include <cuda_runtime.h>

#include "kernels/cuda/allvsall_kernels.cuh"
#include "kernels/cuda/cuda_check.hpp"

// The recurrences below mirror src/align/reference.cpp cell for cell (int32 here: the host
// sends only pairs whose values stay far inside int32, the rest to its 64-bit aligners).

namespace hpc::cuda {
namespace {

constexpr int32_t kNegInf = INT32_MIN / 4;
enum : uint32_t { kZero = 0, kDiag = 1, kUp = 2, kLeft = 3, kEOpenBit = 4, kFOpenBit = 8 };

__device__ __forceinline__ int32_t border(int mode, uint32_t k, int32_t open, int32_t extend) {
  return mode == kAvsaGlobal && k > 0 ? -(open + int32_t(k) * extend) : 0;
}

__global__ void avsa_fill(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres,
                          const AvsaPair* __restrict__ pairs, uint32_t npairs, const int32_t* __restrict__ matrix,
                          int32_t open, int32_t extend, int mode, bool store_bits, uint32_t max_n,
                          uint32_t* __restrict__ bits, int32_t* __restrict__ scratch, AvsaResult* __restrict__ results) {
  __shared__ int32_t smat[kAvsaAlphabet * kAvsaAlphabet];
  for (int k = threadIdx.x; k < kAvsaAlphabet * kAvsaAlphabet; k += blockDim.x) smat[k] = matrix[k];
  __syncthreads();
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npairs) return;
  const AvsaPair pr = pairs[p];
  const uint8_t* q = qres + pr.q_off;
  const uint8_t* t = tres + pr.t_off;
  const uint32_t m = pr.m, n = pr.n, stride = (n + 7) / 8;
  const bool local = mode == kAvsaLocal;
  const int32_t open_ext = open + extend;
  // Row element j of H at H[j * npairs], of F at F[j * npairs]; the scratch holds
  // (max_n + 1) x npairs elements of each (max_n: the launch's longest target).
  int32_t* H = scratch + p;
  int32_t* F = scratch + size_t(max_n + 1) * npairs + p;
  for (uint32_t j = 0; j <= n; ++j) {
    H[size_t(j) * npairs] = border(mode, j, open, extend);
    F[size_t(j) * npairs] = kNegInf;
  }
  int32_t best = mode == kAvsaGlobal ? border(mode, m == 0 ? n : m, open, extend) : 0;
  uint32_t bi = mode == kAvsaGlobal ? m : 0, bj = mode == kAvsaGlobal ? n : (mode == kAvsaSemiGlobal && m > 0 ? n : 0);
  for (uint32_t i = 1; i <= m; ++i) {
    const int32_t* row = smat + q[i - 1] * kAvsaAlphabet;
    int32_t diag = H[0];
    int32_t left = border(mode, i, open, extend);
    H[0] = left;
    int32_t E = kNegInf;
    uint32_t word = 0;
    uint32_t* out = bits + pr.bits_word + size_t(i - 1) * stride;
    for (uint32_t j = 1; j <= n; ++j) {
      const int32_t up = H[size_t(j) * npairs];
      const int32_t e_open = left - open_ext, e_ext = E - extend;
      const bool eo = e_open >= e_ext;
      E = eo ? e_open : e_ext;
      const int32_t f_open = up - open_ext, f_ext = F[size_t(j) * npairs] - extend;
      const bool fo = f_open >= f_ext;
      const int32_t f = fo ? f_open : f_ext;
      F[size_t(j) * npairs] = f;
      const int32_t d = diag + row[t[j - 1]];
      int32_t h = max(d, max(E, f));
      if (local && h < 0) h = 0;
      if (store_bits) {
        const uint32_t src = local && h == 0 ? kZero : h == d ? kDiag : h == f ? kUp : kLeft;
        word |= (src | (eo ? kEOpenBit : 0u) | (fo ? kFOpenBit : 0u)) << (((j - 1) & 7) * 4);
        if ((j & 7) == 0 || j == n) {
          out[(j - 1) >> 3] = word;
          word = 0;
        }
      }
      // End cell, tie rule 1: row-major scan with a strict '>'.
      if (local && h > best) best = h, bi = i, bj = j;
      if (mode == kAvsaSemiGlobal && (i == m || j == n) && h > best) best = h, bi = i, bj = j;
      if (mode == kAvsaGlobal && i == m && j == n) best = h;
      diag = up;
      left = h;
      H[size_t(j) * npairs] = h;
    }
  }
  AvsaResult r{};
  r.score = best;
  r.end_i = bi;
  r.end_j = bj;
  results[p] = r;
}

__global__ void avsa_walk(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres,
                          const AvsaPair* __restrict__ pairs, uint32_t npairs, int mode,
                          const uint32_t* __restrict__ bits, char* __restrict__ ops, AvsaResult* __restrict__ results) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npairs) return;
  const AvsaPair pr = pairs[p];
  AvsaResult r = results[p];
  const uint8_t* q = qres + pr.q_off;
  const uint8_t* t = tres + pr.t_off;
  const uint32_t stride = (pr.n + 7) / 8;
  const uint32_t* cells = bits + pr.bits_word;
  char* out = ops + pr.ops_off;
  uint32_t i = r.end_i, j = r.end_j, count = 0;
  int state = 0;  // 0: in H, 1: in E (moving left), 2: in F (moving up)
  const bool empty_local = mode == kAvsaLocal && r.score == 0;
  while (!empty_local && i > 0 && j > 0) {
    const uint32_t c = (cells[size_t(i - 1) * stride + ((j - 1) >> 3)] >> (((j - 1) & 7) * 4)) & 0xF;
    if (state == 0) {
      const uint32_t src = c & 3;
      if (src == kZero) break;  // local start (tie rule 3)
      if (src == kDiag) {
        out[count++] = q[i - 1] == t[j - 1] ? '=' : 'X';
        --i, --j;
      } else {
        state = src == kUp ? 2 : 1;
      }
    } else if (state == 2) {
      out[count++] = 'I';
      --i;
      if (c & kFOpenBit) state = 0;
    } else {
      out[count++] = 'D';
      --j;
      if (c & kEOpenBit) state = 0;
    }
  }
  r.start_i = empty_local ? r.end_i : i;
  r.start_j = empty_local ? r.end_j : j;
  r.op_count = count;
  results[p] = r;
}

unsigned blocks_for(uint32_t npairs) { return (npairs + kAvsaThreads - 1) / kAvsaThreads; }

}  // namespace

void launch_avsa_fill(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, uint32_t npairs,
                      const int32_t* matrix, int32_t open, int32_t extend, int mode, bool store_bits, uint32_t max_n,
                      uint32_t* bits, int32_t* scratch, AvsaResult* results, void* stream) {
  if (npairs == 0) return;
  avsa_fill<<<blocks_for(npairs), kAvsaThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      qres, tres, pairs, npairs, matrix, open, extend, mode, store_bits, max_n, bits, scratch, results);
  CUDA_CHECK_LAUNCH("avsa_fill");
}

void launch_avsa_walk(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, uint32_t npairs, int mode,
                      const uint32_t* bits, char* ops, AvsaResult* results, void* stream) {
  if (npairs == 0) return;
  avsa_walk<<<blocks_for(npairs), kAvsaThreads, 0, static_cast<cudaStream_t>(stream)>>>(qres, tres, pairs, npairs, mode,
                                                                                         bits, ops, results);
  CUDA_CHECK_LAUNCH("avsa_walk");
}

int avsa_fill_threads_per_sm() {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, avsa_fill, kAvsaThreads, 0));
  return blocks * kAvsaThreads;
}

}  // namespace hpc::cuda
