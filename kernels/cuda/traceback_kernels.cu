// GPU traceback: reference_align(mode, ...) of src/align/reference.cpp, pass for pass, in
// int32 arithmetic (the host checks each pair fits; see traceback.cu), each pass a queue of
// stripe tickets (traceback_kernels.hpp). Local, global and semiglobal alignment differ only
// in the border, the clamp at 0 and which cells may end the alignment, as in the reference.
//
// A stripe is kTbStripe columns of a pair, thread t owning kTbCols consecutive columns in
// registers; rows flow through the threads as a wavefront (thread t computes row s - t at step
// s) and each thread hands its last column's H and E to its right neighbour through shared
// memory. The last thread writes the stripe's right boundary column to global memory and
// publishes how many rows of it are written; thread 0 of the next stripe reads them as they
// come. The cell recurrence and its tie-breaking comparisons are the reference's, line for line.
//   ends  : pass 1 (end cell, tie rule 1), a partial result a stripe, reduced a pair (global:
//           H(m, n));
//   bounds: pass 2, local only (anchored backward pass from the end cell: start bounds);
//   trace : pass 3 over the rectangle, 4 bits per cell stored diagonal-major (step x thread,
//           so each warp's stores coalesce), then a thread a pair walks back (tie rules 2, 3).
#include "kernels/cuda/traceback_kernels.hpp"

#include <cuda/atomic>

#include <algorithm>
#include <type_traits>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/gotoh_cell.cuh"
#include "src/core/tuning.hpp"

namespace hpc::cuda {
namespace {

// The boundary column's rows are published this many at a time (and at the last row).
constexpr uint32_t kTbPublishRows = 32;

struct Seq {
  const uint8_t* p;
  uint32_t len;
  bool reversed;
  __device__ uint32_t at(uint32_t k) const { return reversed ? p[len - 1 - k] : p[k]; }
};

// As in reference.cpp: H = 0 on the border (local, semiglobal) / only H(0,0) = 0 (the anchored
// backward pass) / H(0, k) = H(k, 0) = -(open + k x extend) (global).
enum class Border { Zero, Anchored, Charged };

// H on the border, k cells from the corner (H(0,0) = 0 in every mode).
template <Border B>
__device__ __forceinline__ int border_h(uint32_t k, int oe, int ext) {
  if (k == 0 || B == Border::Zero) return 0;
  return B == Border::Anchored ? kTbNegInf : -(oe + int(k - 1) * ext);
}

using Rows = ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>;

// Where a stripe reads its left boundary and writes its right one (null: none).
struct StripeLinks {
  const int2* in = nullptr;
  uint32_t* in_ready = nullptr;
  int2* out = nullptr;
  uint32_t* out_ready = nullptr;
};

// Stripe `stripe` of the Gotoh sweep over q (rows) x t (columns); pass.cell(...) sees every
// cell, padding columns (j > t.len) included (they lie right of every real cell, so never
// feed one).
template <bool Clamp, Border B, class Pass>
__device__ void stripe_sweep(Seq q, Seq t, uint32_t stripe, const int* smat, int oe, int ext, StripeLinks links,
                             Pass& pass) {
  __shared__ int2 link[2][kTbThreads];
  const int tid = threadIdx.x;
  const uint32_t m = q.len, n = t.len;
  const uint32_t c0 = stripe * kTbStripe;
  const uint32_t jbase = c0 + uint32_t(tid) * kTbCols;  // 0-based column of my first cell
  int hprev[kTbCols], f[kTbCols], tc[kTbCols];
#pragma unroll
  for (int k = 0; k < kTbCols; ++k) {
    tc[k] = jbase + k < n ? int(t.at(jbase + k)) : 0;
    hprev[k] = border_h<B>(jbase + k + 1, oe, ext);  // row 0
    f[k] = kTbNegInf;
  }
  const bool first = links.in == nullptr;
  int diag_in = border_h<B>(jbase, oe, ext);  // H(0, jbase)
  uint32_t published = 0;                 // thread 0: rows of links.in known to be written
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
        hleft = border_h<B>(r + 1, oe, ext), e = kTbNegInf;
      } else {
        while (published <= r) published = Rows(*links.in_ready).load(::cuda::memory_order_acquire);
        const int2 v = __ldcg(links.in + r);
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
      pass.row_done(stripe, s, word);
      if (tid < kTbThreads - 1) {
        link[s & 1][tid] = make_int2(hleft, e);
      } else if (links.out) {
        __stcg(links.out + r, make_int2(hleft, e));
        if ((r + 1) % kTbPublishRows == 0 || r + 1 == m)
          Rows(*links.out_ready).store(r + 1, ::cuda::memory_order_release);
      }
    }
    __syncthreads();
  }
}

// The persistent grid's loop: takes tickets in order until none is left; body(ticket, pair,
// stripe) runs on the whole block.
template <class Body>
__device__ void for_each_ticket(const TbTickets& tk, Body body) {
  __shared__ uint32_t ticket;
  for (;;) {
    __syncthreads();  // everyone is done with the last ticket
    if (threadIdx.x == 0) ticket = atomicAdd(tk.next, 1u);
    __syncthreads();
    const uint32_t t = ticket;
    if (t >= tk.total) return;
    uint32_t lo = 0, hi = tk.n_pairs;  // the pair: the last k with first[k] <= t
    while (hi - lo > 1) {
      const uint32_t mid = (lo + hi) / 2;
      (tk.first[mid] <= t ? lo : hi) = mid;
    }
    body(t, lo, t - tk.first[lo]);
  }
}

// The links of ticket t, stripe `stripe` of pair p.
__device__ StripeLinks links_of(const TbTickets& tk, const TbPair& p, int2* colbuf, uint32_t t, uint32_t stripe) {
  StripeLinks l;
  int2* cols = colbuf + p.col_off;
  if (stripe > 0) l.in = cols + uint64_t(stripe - 1) * p.m, l.in_ready = tk.ready + t - 1;
  if (uint64_t(stripe + 1) * kTbStripe < p.n) l.out = cols + uint64_t(stripe) * p.m, l.out_ready = tk.ready + t;
  return l;
}

__device__ Seq query_of(TbResidues res, const TbPair& p, bool reversed) { return Seq{res.q + p.q_off, p.m, reversed}; }
__device__ Seq target_of(TbResidues res, const TbPair& p, bool reversed) { return Seq{res.t + p.t_off, p.n, reversed}; }

// Pass 1: the highest H, smallest i, then smallest j. A thread sees its cells row by row and,
// within the stripe, left to right, so "higher, or equal on an earlier row" keeps the tie rule
// per thread; the block reduction and the pair's reduction over stripes compare all three.
// Semiglobal: only cells of the last row or column end an alignment, and the border cell (0, n)
// (H = 0, nothing aligned) comes first, so only an H above 0 replaces it, as in the reference.
// Global: H(m, n), kept by the thread that owns column n.
template <AlignMode Mode>
struct FindEnd {
  uint32_t m, n;
  int best = 0;
  uint32_t bi = 0, bj = 0;
  __device__ void cell(uint32_t i, uint32_t j, int, int h, int, int, bool, bool, uint32_t&) {
    if (Mode == AlignMode::Global) {
      if (i == m && j == n) best = h, bi = i, bj = j;
    } else if (j <= n && (Mode == AlignMode::Local || i == m || j == n) && (h > best || (h == best && i < bi))) {
      best = h, bi = i, bj = j;
    }
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
template <bool Local>
struct TraceBits {
  uint32_t rows, cols;
  uint32_t* bits;
  int end_h = 0;
  __device__ void cell(uint32_t i, uint32_t j, int k, int h, int d, int f, bool eo, bool fo, uint32_t& word) {
    word |= direction_bits(GotohCell{h, d, eo, fo}, f, Local) << (4 * k);
    if (i == rows && j == cols) end_h = h;
  }
  __device__ void row_done(uint32_t stripe, uint32_t s, uint32_t word) {
    bits[(uint64_t(stripe) * (rows + kTbThreads - 1) + s) * kTbThreads + threadIdx.x] = word;
  }
  __device__ uint32_t get(uint32_t i, uint32_t j) const {  // 1-based
    const uint32_t c = j - 1, stripe = c / kTbStripe, tid = (c % kTbStripe) / kTbCols, k = c % kTbCols;
    const uint64_t s = uint64_t(i - 1) + tid;
    return (bits[(uint64_t(stripe) * (rows + kTbThreads - 1) + s) * kTbThreads + tid] >> (4 * k)) & 0xF;
  }
};

__device__ void load_matrix(int* smat, const int32_t* matrix) {
  for (int k = threadIdx.x; k < kTbAlphabet * kTbAlphabet; k += blockDim.x) smat[k] = matrix[k];
  __syncthreads();
}

// Lexicographic order of end cells: (score desc, i asc, j asc).
__host__ __device__ bool better_end(int s, uint32_t i, uint32_t j, int bs, uint32_t bi, uint32_t bj) {
  return s != bs ? s > bs : i != bi ? i < bi : j < bj;
}

// Block reduction of the threads' (score, i, j) by better_end; the result in thread 0.
__device__ TbPartial block_best_end(int s, uint32_t i, uint32_t j) {
  __shared__ int red_s[kTbThreads];
  __shared__ uint32_t red_i[kTbThreads], red_j[kTbThreads];
  const int tid = threadIdx.x;
  red_s[tid] = s, red_i[tid] = i, red_j[tid] = j;
  __syncthreads();
  for (int w = kTbThreads / 2; w > 0; w /= 2) {
    if (tid < w && better_end(red_s[tid + w], red_i[tid + w], red_j[tid + w], red_s[tid], red_i[tid], red_j[tid]))
      red_s[tid] = red_s[tid + w], red_i[tid] = red_i[tid + w], red_j[tid] = red_j[tid + w];
    __syncthreads();
  }
  return TbPartial{red_s[0], red_i[0], red_j[0]};
}


// What every pass kernel does: the substitution table into shared memory, then, ticket by
// ticket, the stripe swept with the pass start(p, k) makes (pass 2, Anchored, sweeps the pair
// reversed) and finish(pass, t, k, stripe, p) on the whole block.
template <bool Clamp, Border B, class Start, class Finish>
__device__ void sweep_tickets(TbResidues res, const TbPair* __restrict__ pairs, const TbTickets& tk,
                              const int32_t* matrix, int oe, int ext, int2* colbuf, Start start, Finish finish) {
  __shared__ int smat[kTbAlphabet * kTbAlphabet];
  load_matrix(smat, matrix);
  constexpr bool reversed = B == Border::Anchored;
  for_each_ticket(tk, [&](uint32_t t, uint32_t k, uint32_t stripe) {
    const TbPair p = pairs[k];
    auto pass = start(p, k);
    stripe_sweep<Clamp, B>(query_of(res, p, reversed), target_of(res, p, reversed), stripe, smat, oe, ext,
                           links_of(tk, p, colbuf, t, stripe), pass);
    finish(pass, t, k, stripe, p);
  });
}

// The sweep of each mode (reference.cpp's sweep arguments): local clamps at 0; global charges
// the border.
template <AlignMode Mode>
inline constexpr bool kClamp = Mode == AlignMode::Local;
template <AlignMode Mode>
inline constexpr Border kBorder = Mode == AlignMode::Global ? Border::Charged : Border::Zero;

template <AlignMode Mode>
__global__ void __launch_bounds__(kTbThreads)
tb_ends_kernel(TbResidues res, const TbPair* __restrict__ pairs, TbTickets tk, const int32_t* matrix, int oe, int ext,
               int2* colbuf, TbPartial* partial) {
  sweep_tickets<kClamp<Mode>, kBorder<Mode>>(
      res, pairs, tk, matrix, oe, ext, colbuf, [](const TbPair& p, uint32_t) { return FindEnd<Mode>{p.m, p.n}; },
      [&](const FindEnd<Mode>& fe, uint32_t t, uint32_t, uint32_t stripe, const TbPair& p) {
        if (Mode == AlignMode::Global) {  // the corner's owner
          const uint32_t corner = p.n - 1;
          if (corner / kTbStripe == stripe && threadIdx.x == corner % kTbStripe / kTbCols)
            partial[t] = TbPartial{fe.best, fe.bi, fe.bj};
          return;
        }
        const TbPartial best = block_best_end(fe.best, fe.bi, fe.bj);
        if (threadIdx.x == 0) partial[t] = best;
      });
}

// A thread a pair: its stripes' partial ends in stripe order (global: the last stripe's, which
// holds the corner).
template <AlignMode Mode>
__global__ void tb_reduce_ends_kernel(TbTickets tk, const TbPartial* __restrict__ partial, TbEnd* ends) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= tk.n_pairs) return;
  if (Mode == AlignMode::Global) {
    const TbPartial& c = partial[tk.first[k + 1] - 1];
    ends[k] = TbEnd{c.score, c.i, c.j, 0, 0};
    return;
  }
  TbPartial best{0, 0, 0};
  for (uint32_t t = tk.first[k]; t < tk.first[k + 1]; ++t) {
    const TbPartial& c = partial[t];
    if (better_end(c.score, c.i, c.j, best.score, best.i, best.j)) best = c;
  }
  ends[k] = TbEnd{best.score, best.score > 0 ? best.i : 0, best.score > 0 ? best.j : 0, 0, 0};
}

__global__ void __launch_bounds__(kTbThreads)
tb_bounds_kernel(TbResidues res, const TbPair* __restrict__ pairs, TbTickets tk, const int32_t* matrix, int oe,
                 int ext, int2* colbuf, const TbEnd* __restrict__ score_of, uint32_t* bounds) {
  sweep_tickets<false, Border::Anchored>(
      res, pairs, tk, matrix, oe, ext, colbuf,
      [&](const TbPair& p, uint32_t k) { return StartBounds{p.n, score_of[k].score}; },
      [&](const StartBounds& sb, uint32_t, uint32_t k, uint32_t, const TbPair&) {
        if (sb.max_a > 1) atomicMax(bounds + 2 * k, sb.max_a);
        if (sb.max_b > 1) atomicMax(bounds + 2 * k + 1, sb.max_b);
      });
}

template <AlignMode Mode>
__global__ void __launch_bounds__(kTbThreads)
tb_trace_kernel(TbResidues res, const TbPair* __restrict__ pairs, TbTickets tk, const int32_t* matrix, int oe,
                int ext, int2* colbuf, uint32_t* bits, TbWalk* out) {
  constexpr bool local = Mode == AlignMode::Local;
  sweep_tickets<kClamp<Mode>, kBorder<Mode>>(
      res, pairs, tk, matrix, oe, ext, colbuf,
      [&](const TbPair& p, uint32_t) { return TraceBits<local>{p.m, p.n, bits + p.bits_off}; },
      [&](const TraceBits<local>& tb, uint32_t, uint32_t k, uint32_t stripe, const TbPair& p) {
        const uint32_t corner = p.n - 1;  // the corner's owner records H there
        if (corner / kTbStripe == stripe && threadIdx.x == corner % kTbStripe / kTbCols) out[k].end_h = tb.end_h;
      });
}

// The walk of reference_align, in rectangle coordinates, a thread a pair (after tb_trace_kernel):
// to a local start or the border (global and semiglobal cells never say "start").
__global__ void tb_walk_kernel(TbResidues res, const TbPair* __restrict__ pairs, uint32_t n, uint32_t* bits,
                               char* ops, TbWalk* out) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const TbPair p = pairs[k];
  const TraceBits<true> tb{p.m, p.n, bits + p.bits_off};  // get() is the same for every mode
  char* o = ops + p.ops_off;
  uint32_t n_ops = 0, i = p.m, j = p.n;
  gotoh_walk(i, j, res.q + p.q_off, res.t + p.t_off, [&](uint32_t ci, uint32_t cj) { return tb.get(ci, cj); },
             [&](char op) { o[n_ops++] = op; });
  out[k].i = i, out[k].j = j, out[k].n_ops = n_ops;
}

__global__ void tb_scatter_scores_kernel(const TbEnd* __restrict__ ends, const uint32_t* __restrict__ out_index,
                                         uint32_t n, int32_t* scores) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) scores[out_index[k]] = ends[k].score;
}

__global__ void tb_places_kernel(DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* __restrict__ list,
                                 uint32_t n, TbPair* out) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const uint32_t index = list[k];
  const uint32_t qslot = index / part.size, g = part.begin + index % part.size;
  TbPair p;
  p.q_off = qs.offsets[qslot], p.t_off = db.offsets[g], p.m = qs.lengths[qslot], p.n = db.lengths[g];
  out[k] = p;
}

// Blocks of the persistent grid: as many as are resident at once, at most one a ticket.
template <class Kernel>
unsigned grid_of(Kernel kernel, uint32_t tickets) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kTbThreads, 0));
  return unsigned(std::max<uint64_t>(1, std::min<uint64_t>(tickets, uint64_t(sms) * std::max(per_sm, 1))));
}

}  // namespace

uint64_t tb_long_pair_cells() {
  if (const auto cells = tuning_number(Tunable::kCudaLongPairCells)) return uint64_t(*cells);
  return uint64_t(1) << 24;
}

TbTickets TbQueue::upload(std::vector<TbPair>& pairs, cudaStream_t stream) {
  first_host_.assign(1, 0);
  col_rows_ = 0;
  for (TbPair& p : pairs) {
    const uint32_t stripes = tb_stripes(p.n);
    p.col_off = col_rows_;
    col_rows_ += uint64_t(stripes) * p.m;
    first_host_.push_back(first_host_.back() + stripes);
  }
  tickets_ = first_host_.back();
  first_.upload(first_host_.data(), first_host_.size(), stream);
  counters_.reserve(size_t(tickets_) + 1);
  CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, (size_t(tickets_) + 1) * sizeof(uint32_t), stream));
  TbTickets tk;
  tk.first = first_.get();
  tk.n_pairs = uint32_t(pairs.size());
  tk.total = tickets_;
  tk.next = counters_.get();
  tk.ready = counters_.get() + 1;
  return tk;
}

namespace {

// A pass's kernel over a ticket queue on its persistent grid.
template <class Kernel, class... Extra>
void launch_stripes(Kernel kernel, cudaStream_t stream, TbResidues res, const TbPair* pairs, const TbTickets& tk,
                    const int32_t* matrix, int open_extend, int extend, int2* colbuf, Extra... extra) {
  kernel<<<grid_of(kernel, tk.total), kTbThreads, 0, stream>>>(res, pairs, tk, matrix, open_extend, extend, colbuf,
                                                               extra...);
  CUDA_CHECK_LAUNCH("stripe kernel");
}

// A kernel of a thread a pair.
template <class Kernel, class... Args>
void launch_per_pair(Kernel kernel, cudaStream_t stream, uint32_t n, Args... args) {
  kernel<<<(n + 127) / 128, 128, 0, stream>>>(args...);
  CUDA_CHECK_LAUNCH("per-pair kernel");
}

template <AlignMode Mode>
void launch_tb_ends_mode(cudaStream_t stream, TbResidues res, const TbPair* pairs, TbTickets tk,
                         const int32_t* matrix, int open_extend, int extend, int2* colbuf, TbPartial* partial,
                         TbEnd* ends) {
  launch_stripes(tb_ends_kernel<Mode>, stream, res, pairs, tk, matrix, open_extend, extend, colbuf, partial);
  launch_per_pair(tb_reduce_ends_kernel<Mode>, stream, tk.n_pairs, tk, static_cast<const TbPartial*>(partial), ends);
}

template <AlignMode Mode>
void launch_tb_trace_mode(cudaStream_t stream, TbResidues res, const TbPair* pairs, TbTickets tk,
                          const int32_t* matrix, int open_extend, int extend, int2* colbuf, uint32_t* bits, char* ops,
                          TbWalk* out) {
  launch_stripes(tb_trace_kernel<Mode>, stream, res, pairs, tk, matrix, open_extend, extend, colbuf, bits, out);
  launch_per_pair(tb_walk_kernel, stream, tk.n_pairs, res, pairs, tk.n_pairs, bits, ops, out);
}

// f(ModeTag<M>{}) for the mode's instantiation M.
template <AlignMode M>
using ModeTag = std::integral_constant<AlignMode, M>;
template <class F>
void with_mode(AlignMode mode, F f) {
  switch (mode) {
    case AlignMode::Local: return f(ModeTag<AlignMode::Local>{});
    case AlignMode::Global: return f(ModeTag<AlignMode::Global>{});
    case AlignMode::SemiGlobal: return f(ModeTag<AlignMode::SemiGlobal>{});
  }
}

}  // namespace

void launch_tb_ends(cudaStream_t stream, AlignMode mode, TbResidues res, const TbPair* pairs, TbTickets tk,
                    const int32_t* matrix, int open_extend, int extend, int2* colbuf, TbPartial* partial, TbEnd* ends) {
  if (tk.total == 0) return;
  with_mode(mode, [&](auto m) {
    launch_tb_ends_mode<decltype(m)::value>(stream, res, pairs, tk, matrix, open_extend, extend, colbuf, partial, ends);
  });
}

void launch_tb_bounds(cudaStream_t stream, TbResidues res, const TbPair* pairs, TbTickets tk, const int32_t* matrix,
                      int open_extend, int extend, int2* colbuf, const TbEnd* score_of, uint32_t* bounds) {
  if (tk.total == 0) return;
  launch_stripes(tb_bounds_kernel, stream, res, pairs, tk, matrix, open_extend, extend, colbuf, score_of, bounds);
}

void launch_tb_trace(cudaStream_t stream, AlignMode mode, TbResidues res, const TbPair* pairs, TbTickets tk,
                     const int32_t* matrix, int open_extend, int extend, int2* colbuf, uint32_t* bits, char* ops,
                     TbWalk* out) {
  if (tk.total == 0) return;
  with_mode(mode, [&](auto m) {
    launch_tb_trace_mode<decltype(m)::value>(stream, res, pairs, tk, matrix, open_extend, extend, colbuf, bits, ops, out);
  });
}

void launch_tb_scatter_scores(cudaStream_t stream, const TbEnd* ends, const uint32_t* out_index, uint32_t n,
                              int32_t* scores) {
  if (n == 0) return;
  launch_per_pair(tb_scatter_scores_kernel, stream, n, ends, out_index, n, scores);
}

void launch_tb_places(cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* list,
                      uint32_t n, TbPair* out) {
  if (n == 0) return;
  launch_per_pair(tb_places_kernel, stream, n, db, part, qs, list, n, out);
}

}  // namespace hpc::cuda
