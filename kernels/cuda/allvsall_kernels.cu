#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include "kernels/cuda/allvsall_kernels.cuh"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/gotoh_cell.cuh"

// The recurrences below mirror src/align/reference.cpp cell for cell (int32 here: the host
// sends only pairs whose values stay far inside int32, the rest to its 64-bit aligners).

namespace hpc::cuda {
namespace {

constexpr int32_t kNegInf = INT32_MIN / 4;
constexpr unsigned kFull = 0xFFFFFFFFu;

__device__ __forceinline__ int32_t border(int mode, uint32_t k, int32_t open, int32_t extend) {
  return mode == kAvsaGlobal && k > 0 ? -(open + int32_t(k) * extend) : 0;
}

// End-cell candidates: the larger score wins, then the earlier cell in row-major order, which
// is what reference.cpp's row-major scan with a strict '>' picks (tie rule 1).
struct Best {
  int32_t score;
  uint32_t i, j;
  __device__ bool beats(const Best& o) const {
    return score != o.score ? score > o.score : i != o.i ? i < o.i : j < o.j;
  }
};

__device__ Best warp_best(Best b) {
  for (int d = 16; d > 0; d >>= 1) {
    Best o{__shfl_xor_sync(kFull, b.score, d), __shfl_xor_sync(kFull, b.i, d), __shfl_xor_sync(kFull, b.j, d)};
    if (o.beats(b)) b = o;
  }
  return b;
}

__global__ void __launch_bounds__(kAvsaThreads)
avsa_fill(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres, const AvsaPair* __restrict__ pairs,
          uint32_t npairs, const int32_t* __restrict__ matrix, int32_t open, int32_t extend, int mode,
          bool store_bits, uint32_t* __restrict__ bits, uint2* __restrict__ strip, AvsaResult* __restrict__ results) {
  __shared__ int32_t smat[kAvsaAlphabet * kAvsaAlphabet];
  for (int k = threadIdx.x; k < kAvsaAlphabet * kAvsaAlphabet; k += blockDim.x) smat[k] = matrix[k];
  __syncthreads();
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (p >= npairs) return;  // the whole warp
  const AvsaPair pr = pairs[p];
  const uint8_t* q = qres + pr.q_off;
  const uint8_t* t = tres + pr.t_off;
  const uint32_t m = pr.m, n = pr.n;
  const bool local = mode == kAvsaLocal, semi = mode == kAvsaSemiGlobal;
  const int32_t oe = open + extend;
  // The scan's starting candidate (reference.cpp): global's is replaced by H(m, n) below.
  const Best start{mode == kAvsaGlobal ? border(mode, m == 0 ? n : m, open, extend) : 0,
            mode == kAvsaGlobal ? m : 0, mode == kAvsaGlobal ? n : (semi && m > 0 ? n : 0)};
  Best best = start;
  int32_t corner = start.score;  // global: H(m, n), kept by the lane that owns column n
  const uint32_t passes = m == 0 ? 0 : (n + kAvsaPassCols - 1) / kAvsaPassCols;
  uint2* my_strip = strip + pr.strip_off;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    const uint32_t j0 = pass * kAvsaPassCols + lane * kAvsaLaneCols;  // columns j0+1 .. j0+8
    const uint32_t valid = n > j0 ? min(n - j0, kAvsaLaneCols) : 0;
    int32_t H[kAvsaLaneCols], F[kAvsaLaneCols];
    uint32_t tcode[kAvsaLaneCols];
#pragma unroll
    for (uint32_t c = 0; c < kAvsaLaneCols; ++c) {
      H[c] = border(mode, j0 + c + 1, open, extend);  // row 0
      F[c] = kNegInf;
      tcode[c] = c < valid ? t[j0 + c] : 0;
    }
    // H(i - 1, j0): the diagonal of the lane's first column (row 0 to start).
    int32_t diag_in = border(mode, j0, open, extend);
    int32_t out_h = 0, out_e = kNegInf;
    Best pbest = start;  // this pass's scan: rows in order, columns in order, strict '>'
    const bool to_strip = lane == 31 && pass + 1 < passes;
    uint32_t* my_bits = bits + pr.bits_word + uint64_t(pass) * (m + 31) * 32 + lane;
    for (uint32_t s = 0; s < m + 31; ++s) {
      int32_t in_h = __shfl_up_sync(kFull, out_h, 1), in_e = __shfl_up_sync(kFull, out_e, 1);
      const uint32_t i = s - lane + 1;  // this lane's row (1-based), valid when 1 <= i <= m
      if (s < lane || i > m) continue;
      if (lane == 0) {
        if (pass == 0) {
          in_h = border(mode, i, open, extend);
          in_e = kNegInf;
        } else {
          const uint2 b = my_strip[i];
          in_h = int32_t(b.x), in_e = int32_t(b.y);
        }
      }
      const int32_t* row = smat + q[i - 1] * kAvsaAlphabet;
      int32_t diag = diag_in, left = in_h, E = in_e;
      diag_in = in_h;
      uint32_t word = 0;
#pragma unroll
      for (uint32_t c = 0; c < kAvsaLaneCols; ++c) {
        const GotohCell g = gotoh_cell(left, E, H[c], F[c], diag, row[tcode[c]], oe, extend, local);
        const int32_t h = g.h;
        word |= direction_bits(g, F[c], local) << (c * 4);
        const uint32_t j = j0 + c + 1;
        if (c < valid) {
          if ((local || (semi && (i == m || j == n))) && h > pbest.score) pbest = {h, i, j};
          if (mode == kAvsaGlobal && i == m && j == n) corner = h;
        }
        diag = H[c];
        H[c] = h;
        left = h;
      }
      out_h = left, out_e = E;
      if (store_bits) my_bits[uint64_t(s) * 32] = word;
      if (to_strip) my_strip[i] = make_uint2(uint32_t(out_h), uint32_t(out_e));
    }
    if (pbest.beats(best)) best = pbest;
    __syncwarp();  // the strip written by lane 31 is read by lane 0 in the next pass
  }
  if (mode == kAvsaGlobal) {
    // The lane that holds column n in the last pass has H(m, n).
    if (passes > 0) best.score = __shfl_sync(kFull, corner, ((n - 1) % kAvsaPassCols) / kAvsaLaneCols);
  } else {
    best = warp_best(best);
  }
  if (lane == 0) {
    AvsaResult r{};
    r.score = best.score;
    r.end_i = best.i;
    r.end_j = best.j;
    results[p] = r;
  }
}

// Cell (i, j) (1-based) in avsa_fill's layout.
__device__ __forceinline__ uint32_t cell_at(const uint32_t* cells, uint32_t m, uint32_t i, uint32_t j) {
  const uint32_t jj = j - 1, pass = jj / kAvsaPassCols, lane = (jj % kAvsaPassCols) / kAvsaLaneCols;
  const uint64_t word = (uint64_t(pass) * (m + 31) + (i - 1) + lane) * 32 + lane;
  return (cells[word] >> ((jj % kAvsaLaneCols) * 4)) & 0xF;
}

// A CIGAR written right to left while a traceback walks from the end to the start: ops of
// one kind are counted, and a run is written ("12=" as '=', '2', '1' backwards) when the op
// changes, so the text ends up in order at [p, end).
struct BackwardCigar {
  char* end;
  char* p;
  char op = 0;
  uint32_t run = 0;
  __device__ explicit BackwardCigar(char* slice_end) : end(slice_end), p(slice_end) {}
  __device__ void push(char o) {
    if (o != op) flush(), op = o;
    ++run;
  }
  __device__ void flush() {
    if (run == 0) return;
    *--p = op;
    for (uint32_t v = run; v; v /= 10) *--p = char('0' + v % 10);
    run = 0;
  }
};

__global__ void avsa_walk(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres,
                          const AvsaPair* __restrict__ pairs, uint32_t npairs, int mode,
                          const uint32_t* __restrict__ bits, char* __restrict__ scratch, char* __restrict__ text,
                          unsigned long long* __restrict__ text_used, AvsaResult* __restrict__ results) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npairs) return;
  const AvsaPair pr = pairs[p];
  AvsaResult r = results[p];
  const uint8_t* q = qres + pr.q_off;
  const uint8_t* t = tres + pr.t_off;
  const uint32_t* cells = bits + pr.bits_word;
  BackwardCigar cigar(scratch + pr.text_off + avsa_cigar_bytes(pr.m, pr.n));
  uint32_t i = r.end_i, j = r.end_j;
  const bool empty_local = mode == kAvsaLocal && r.score == 0;
  if (!empty_local)
    gotoh_walk(i, j, q, t, [&](uint32_t ci, uint32_t cj) { return cell_at(cells, pr.m, ci, cj); },
               [&](char op) { cigar.push(op); });
  if (mode == kAvsaGlobal) {  // the end gap along the border (reference.cpp: I before D, end to start)
    for (; i > 0; --i) cigar.push('I');
    for (; j > 0; --j) cigar.push('D');
  }
  cigar.flush();
  r.start_i = empty_local ? r.end_i : i;
  r.start_j = empty_local ? r.end_j : j;
  r.cigar_len = uint32_t(cigar.end - cigar.p);
  r.cigar_off = atomicAdd(text_used, static_cast<unsigned long long>(r.cigar_len));
  for (uint32_t k = 0; k < r.cigar_len; ++k) text[r.cigar_off + k] = cigar.p[k];
  results[p] = r;
}

// The selection's predicate over cell indices of a tile's score matrix.
struct KeptCell {
  const int32_t* scores;
  uint32_t width;
  bool diagonal;
  int32_t min_score;
  __host__ __device__ bool operator()(uint32_t k) const {
    return scores[k] >= min_score && (!diagonal || k % width > k / width);
  }
};

__global__ void gather_scores(const int32_t* __restrict__ scores, const uint32_t* __restrict__ index,
                              const uint32_t* __restrict__ count, int32_t* __restrict__ out) {
  for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < *count; k += gridDim.x * blockDim.x)
    out[k] = scores[index[k]];
}

}  // namespace

void launch_avsa_fill(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, uint32_t npairs,
                      const int32_t* matrix, int32_t open, int32_t extend, int mode, bool store_bits, uint32_t* bits,
                      uint2* strip, AvsaResult* results, void* stream) {
  if (npairs == 0) return;
  const uint64_t blocks = (uint64_t(npairs) * 32 + kAvsaThreads - 1) / kAvsaThreads;
  avsa_fill<<<unsigned(blocks), kAvsaThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      qres, tres, pairs, npairs, matrix, open, extend, mode, store_bits, bits, strip, results);
  CUDA_CHECK_LAUNCH("avsa_fill");
}

void launch_avsa_walk(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, uint32_t npairs, int mode,
                      const uint32_t* bits, char* scratch, char* text, unsigned long long* text_used,
                      AvsaResult* results, void* stream) {
  if (npairs == 0) return;
  avsa_walk<<<(npairs + kAvsaThreads - 1) / kAvsaThreads, kAvsaThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      qres, tres, pairs, npairs, mode, bits, scratch, text, text_used, results);
  CUDA_CHECK_LAUNCH("avsa_walk");
}

int avsa_fill_pairs_per_sm() {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, avsa_fill, kAvsaThreads, 0));
  return blocks * kAvsaThreads / 32;
}

size_t avsa_select_temp_bytes(uint32_t n) {
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, thrust::counting_iterator<uint32_t>(0), (uint32_t*)nullptr,
                                   (uint32_t*)nullptr, n, KeptCell{}));
  return bytes;
}

void launch_avsa_select(const int32_t* scores, uint32_t nq, uint32_t width, bool diagonal, int32_t min_score,
                        uint32_t* kept_index, int32_t* kept_score, uint32_t* count, void* temp, size_t temp_bytes,
                        void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const uint32_t n = nq * width;
  CUDA_CHECK(cub::DeviceSelect::If(temp, temp_bytes, thrust::counting_iterator<uint32_t>(0), kept_index, count, n,
                                   KeptCell{scores, width, diagonal, min_score}, s));
  gather_scores<<<1024, 256, 0, s>>>(scores, kept_index, count, kept_score);
  CUDA_CHECK_LAUNCH("gather_scores");
}

}  // namespace hpc::cuda
