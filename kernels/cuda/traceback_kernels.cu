// GPU traceback: reference_align(Local, ...) of src/align/reference.cpp, pass for pass, with
// one thread block per pair and int32 arithmetic (the host checks the pair fits; see
// traceback.cu).
//
// Every pass is the same block sweep: the block covers kTbStripe columns at a time, thread t
// owning kTbCols consecutive columns in registers; rows flow through the threads as a
// wavefront (thread t computes row s - t at step s) and each thread hands its last column's
// H and E to its right neighbour through shared memory. Between sweeps the last thread's
// column goes to a global buffer that thread 0 reads in the next sweep. The cell recurrence
// and its tie-breaking comparisons are the reference's, line for line.
//   locate: pass 1 (end cell, tie rule 1) then pass 2 (anchored backward pass: start bounds);
//   trace : pass 3 over the rectangle, 4 bits per cell stored diagonal-major (step x thread,
//           so each warp's stores coalesce), then thread 0 walks back (tie rules 2 and 3).
#include "kernels/cuda/traceback_kernels.hpp"

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/gotoh_cell.cuh"

namespace hpc::cuda {
namespace {

struct Seq {
  const uint8_t* p;
  uint32_t len;
  bool reversed;
  __device__ uint32_t at(uint32_t k) const { return reversed ? p[len - 1 - k] : p[k]; }
};

enum class Border { Zero, Anchored };  // as in reference.cpp: H = 0 on the border / only H(0,0) = 0

// Gotoh over q (rows) x t (columns); pass.cell(...) sees every cell, padding columns
// (j > t.len) included (they lie right of every real cell, so never feed one).
template <bool Clamp, Border B, class Pass>
__device__ void block_sweep(Seq q, Seq t, const int* smat, int oe, int ext, int2* colbuf, Pass& pass) {
  __shared__ int2 link[2][kTbThreads];
  const int tid = threadIdx.x;
  const uint32_t m = q.len, n = t.len;
  const int border = B == Border::Zero ? 0 : kTbNegInf;  // H(i, 0) and H(0, j) for i, j >= 1
  uint32_t sweep = 0;
  for (uint32_t c0 = 0; c0 < n; c0 += kTbStripe, ++sweep) {
    const uint32_t jbase = c0 + uint32_t(tid) * kTbCols;  // 0-based column of my first cell
    int hprev[kTbCols], f[kTbCols], tc[kTbCols];
#pragma unroll
    for (int k = 0; k < kTbCols; ++k) {
      tc[k] = jbase + k < n ? int(t.at(jbase + k)) : 0;
      hprev[k] = border;  // row 0
      f[k] = kTbNegInf;
    }
    const bool first = c0 == 0, last = c0 + kTbStripe >= n;
    int diag_in = jbase == 0 ? 0 : border;  // H(0, jbase)
    const uint32_t steps = m + kTbThreads - 1;
    for (uint32_t s = 0; s < steps; ++s) {
      const int64_t row = int64_t(s) - tid;  // 0-based row of this step
      if (row >= 0 && row < int64_t(m)) {
        const uint32_t r = uint32_t(row);
        int hleft, e;  // H(i, jbase) and E(i, jbase)
        if (tid > 0) {
          const int2 v = link[(s - 1) & 1][tid - 1];
          hleft = v.x, e = v.y;
        } else if (first) {
          hleft = border, e = kTbNegInf;
        } else {
          const int2 v = colbuf[r];
          hleft = v.x, e = v.y;
        }
        const int* srow = smat + q.at(r) * kTbAlphabet;
        int diag = diag_in;
        diag_in = hleft;
        uint32_t word = 0;
#pragma unroll
        for (int k = 0; k < kTbCols; ++k) {
          const GotohCell c = gotoh_cell(hleft, e, hprev[k], f[k], diag, srow[tc[k]], oe, ext, Clamp);
          const int h = c.h;
          pass.cell(r + 1, jbase + k + 1, k, h, c.d, f[k], c.eo, c.fo, word);
          diag = hprev[k];
          hprev[k] = h;
          hleft = h;
        }
        pass.row_done(sweep, s, word);
        if (tid < kTbThreads - 1)
          link[s & 1][tid] = make_int2(hleft, e);
        else if (!last)
          colbuf[r] = make_int2(hleft, e);
      }
      __syncthreads();
    }
  }
}

// Pass 1: the highest H, smallest i, then smallest j. A thread sees its cells row by row
// and, within a sweep, left to right; a later sweep has larger j, so "higher, or equal on
// an earlier row" keeps the tie rule per thread, and the block reduction compares all three.
struct FindEnd {
  uint32_t n;
  int best = 0;
  uint32_t bi = 0, bj = 0;
  __device__ void cell(uint32_t i, uint32_t j, int, int h, int, int, bool, bool, uint32_t&) {
    if (j <= n && (h > best || (h == best && i < bi))) best = h, bi = i, bj = j;
  }
  __device__ void row_done(uint32_t, uint32_t, uint32_t) {}
};

// Pass 2: reversed prefixes anchored at the end cell; the largest i and j where the
// diagonal move reaches the full score bound where the alignment can start.
struct StartBounds {
  uint32_t n;
  int score;
  uint32_t max_a = 1, max_b = 1;
  __device__ void cell(uint32_t i, uint32_t j, int, int, int d, int, bool, bool, uint32_t&) {
    if (j <= n && d == score) max_a = max(max_a, i), max_b = max(max_b, j);
  }
  __device__ void row_done(uint32_t, uint32_t, uint32_t) {}
};

// Pass 3: 4 bits per cell as reference.cpp packs them (direction_bits).
struct TraceBits {
  uint32_t rows, cols;
  uint32_t* bits;
  int end_h = 0;
  __device__ void cell(uint32_t i, uint32_t j, int k, int h, int d, int f, bool eo, bool fo, uint32_t& word) {
    word |= direction_bits(GotohCell{h, d, eo, fo}, f, true) << (4 * k);
    if (i == rows && j == cols) end_h = h;
  }
  __device__ void row_done(uint32_t sweep, uint32_t s, uint32_t word) {
    bits[(uint64_t(sweep) * (rows + kTbThreads - 1) + s) * kTbThreads + threadIdx.x] = word;
  }
  __device__ uint32_t get(uint32_t i, uint32_t j) const {  // 1-based
    const uint32_t c = j - 1, sweep = c / kTbStripe, tid = (c % kTbStripe) / kTbCols, k = c % kTbCols;
    const uint64_t s = uint64_t(i - 1) + tid;
    return (bits[(uint64_t(sweep) * (rows + kTbThreads - 1) + s) * kTbThreads + tid] >> (4 * k)) & 0xF;
  }
};

// Pass 1 for the score alone.
struct BestH {
  uint32_t n;
  int best = 0;
  __device__ void cell(uint32_t, uint32_t j, int, int h, int, int, bool, bool, uint32_t&) {
    if (j <= n) best = max(best, h);
  }
  __device__ void row_done(uint32_t, uint32_t, uint32_t) {}
};

__device__ void load_matrix(int* smat, const int32_t* matrix) {
  for (int k = threadIdx.x; k < kTbAlphabet * kTbAlphabet; k += blockDim.x) smat[k] = matrix[k];
  __syncthreads();
}

// Lexicographic block reduction of (score desc, i asc, j asc) into shared `out`.
__device__ bool better_end(int s, uint32_t i, uint32_t j, int bs, uint32_t bi, uint32_t bj) {
  return s != bs ? s > bs : i != bi ? i < bi : j < bj;
}

__global__ void __launch_bounds__(kTbThreads)
tb_locate_kernel(const uint8_t* __restrict__ residues, const TbPair* __restrict__ pairs, const int32_t* matrix,
                 int oe, int ext, int2* colbuf, TbEnd* out) {
  __shared__ int smat[kTbAlphabet * kTbAlphabet];
  __shared__ int red_s[kTbThreads];
  __shared__ uint32_t red_i[kTbThreads], red_j[kTbThreads];
  __shared__ uint32_t bound_a, bound_b;
  load_matrix(smat, matrix);
  const TbPair p = pairs[blockIdx.x];
  const uint8_t* q = residues + p.q_off;
  const uint8_t* t = residues + p.t_off;
  int2* col = colbuf + p.col_off;

  FindEnd fe{p.n};
  block_sweep<true, Border::Zero>(Seq{q, p.m, false}, Seq{t, p.n, false}, smat, oe, ext, col, fe);
  const int tid = threadIdx.x;
  red_s[tid] = fe.best, red_i[tid] = fe.bi, red_j[tid] = fe.bj;
  if (tid == 0) bound_a = 1, bound_b = 1;
  __syncthreads();
  for (int w = kTbThreads / 2; w > 0; w /= 2) {
    if (tid < w && better_end(red_s[tid + w], red_i[tid + w], red_j[tid + w], red_s[tid], red_i[tid], red_j[tid]))
      red_s[tid] = red_s[tid + w], red_i[tid] = red_i[tid + w], red_j[tid] = red_j[tid + w];
    __syncthreads();
  }
  const int score = red_s[0];
  const uint32_t ei = red_i[0], ej = red_j[0];
  if (score > 0) {  // block-uniform branch
    StartBounds sb{ej, score};
    block_sweep<false, Border::Anchored>(Seq{q, ei, true}, Seq{t, ej, true}, smat, oe, ext, col, sb);
    atomicMax(&bound_a, sb.max_a);
    atomicMax(&bound_b, sb.max_b);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = TbEnd{score, ei, ej, score > 0 ? bound_a : 0, score > 0 ? bound_b : 0};
}

__global__ void __launch_bounds__(kTbThreads)
tb_trace_kernel(const uint8_t* __restrict__ residues, const TbPair* __restrict__ pairs, const int32_t* matrix,
                int oe, int ext, int2* colbuf, uint32_t* bits, char* ops, TbWalk* out) {
  __shared__ int smat[kTbAlphabet * kTbAlphabet];
  __shared__ int end_h;
  if (threadIdx.x == 0) end_h = 0;
  load_matrix(smat, matrix);
  const TbPair p = pairs[blockIdx.x];
  const uint8_t* q = residues + p.q_off;
  const uint8_t* t = residues + p.t_off;
  TraceBits tb{p.m, p.n, bits + p.bits_off};
  block_sweep<true, Border::Zero>(Seq{q, p.m, false}, Seq{t, p.n, false}, smat, oe, ext, colbuf + p.col_off, tb);
  if (p.m > 0 && p.n > 0 && threadIdx.x == (p.n - 1) % kTbStripe / kTbCols) end_h = tb.end_h;  // the corner's owner
  __syncthreads();  // also makes every thread's nibbles visible to thread 0
  if (threadIdx.x != 0) return;

  // The walk of reference_align, in rectangle coordinates.
  char* o = ops + p.ops_off;
  uint32_t n_ops = 0, i = p.m, j = p.n;
  gotoh_walk(i, j, q, t, [&](uint32_t ci, uint32_t cj) { return tb.get(ci, cj); }, [&](char op) { o[n_ops++] = op; });
  out[blockIdx.x] = TbWalk{p.m > 0 ? end_h : 0, i, j, n_ops};
}

__global__ void __launch_bounds__(kTbThreads)
tb_rescore_kernel(DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* __restrict__ list,
                  const int32_t* matrix, int oe, int ext, int2* colbuf, uint64_t col_stride, int32_t* scores) {
  __shared__ int smat[kTbAlphabet * kTbAlphabet];
  __shared__ int red[kTbThreads];
  load_matrix(smat, matrix);
  const uint32_t index = list[blockIdx.x];
  const uint32_t qslot = index / part.size, g = part.begin + index % part.size;
  const Seq q{qs.residues + qs.offsets[qslot], qs.lengths[qslot], false};
  const Seq t{db.residues + db.offsets[g], db.lengths[g], false};
  BestH best{t.len};
  block_sweep<true, Border::Zero>(q, t, smat, oe, ext, colbuf + blockIdx.x * col_stride, best);
  const int tid = threadIdx.x;
  red[tid] = best.best;
  __syncthreads();
  for (int w = kTbThreads / 2; w > 0; w /= 2) {
    if (tid < w) red[tid] = max(red[tid], red[tid + w]);
    __syncthreads();
  }
  if (tid == 0) scores[index] = red[0];
}

}  // namespace

void launch_tb_rescore(cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* list,
                       uint32_t n, const int32_t* matrix, int open_extend, int extend, int2* colbuf,
                       uint64_t col_stride, int32_t* scores) {
  if (n == 0) return;
  tb_rescore_kernel<<<n, kTbThreads, 0, stream>>>(db, part, qs, list, matrix, open_extend, extend, colbuf, col_stride,
                                                  scores);
  CUDA_CHECK_LAUNCH("tb_rescore_kernel");
}

void launch_tb_locate(cudaStream_t stream, const uint8_t* residues, const TbPair* pairs, uint32_t n,
                      const int32_t* matrix, int open_extend, int extend, int2* colbuf, TbEnd* out) {
  if (n == 0) return;
  tb_locate_kernel<<<n, kTbThreads, 0, stream>>>(residues, pairs, matrix, open_extend, extend, colbuf, out);
  CUDA_CHECK_LAUNCH("tb_locate_kernel");
}

void launch_tb_trace(cudaStream_t stream, const uint8_t* residues, const TbPair* pairs, uint32_t n,
                     const int32_t* matrix, int open_extend, int extend, int2* colbuf, uint32_t* bits,
                     char* ops, TbWalk* out) {
  if (n == 0) return;
  tb_trace_kernel<<<n, kTbThreads, 0, stream>>>(residues, pairs, matrix, open_extend, extend, colbuf, bits, ops,
                                                out);
  CUDA_CHECK_LAUNCH("tb_trace_kernel");
}

}  // namespace hpc::cuda
