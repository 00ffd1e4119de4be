#include <cuda_runtime.h>

#include "kernels/cuda/allvsall_kernels.cuh"
#include "kernels/cuda/cuda_check.hpp"

// The recurrences below mirror src/align/reference.cpp cell for cell (int32 here: the host
// sends only pairs whose values stay far inside int32, the rest to its 64-bit aligners).

namespace hpc::cuda {
namespace {

constexpr int32_t kNegInf = INT32_MIN / 4;
constexpr unsigned kFull = 0xFFFFFFFFu;
// Columns past a target's end (the last pass's padding) get a substitution score no cell can
// recover from: their H, E and F then stay below the best valid H of the rows so far (every
// gap costs >= 1), so local mode tracks the best cell without a column check.
constexpr uint32_t kPadCode = kAvsaAlphabet;
constexpr int32_t kPadScore = -(1 << 20);
constexpr int kSmatStride = kAvsaAlphabet + 1;
constexpr uint32_t kNoPair = 0xFFFFFFFFu;

template <int Mode>
__device__ __forceinline__ int32_t border(uint32_t k, int32_t open, int32_t extend) {
  return Mode == kAvsaGlobal && k > 0 ? -(open + int32_t(k) * extend) : 0;
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

// The best of a group's lanes (xor distances below G stay inside the aligned group).
template <uint32_t G>
__device__ Best group_best(Best b) {
  for (uint32_t d = G / 2; d > 0; d >>= 1) {
    Best o{__shfl_xor_sync(kFull, b.score, d), __shfl_xor_sync(kFull, b.i, d), __shfl_xor_sync(kFull, b.j, d)};
    if (o.beats(b)) b = o;
  }
  return b;
}

// A cell's direction bits in avsa_fill's words (tie rule 2 as reference.cpp decides it): the
// last cell of a lane's C columns in the lowest nibble, the first C - 1 nibbles above it. H's source is the diagonal unless
// kNotDiag, else up (F) unless kNotUp, else left (E); a local H of 0 (tie rule 3) is not
// stored: the walk tracks H itself.
enum : uint32_t { kNotDiag = 8, kNotUp = 4, kEOpened = 2, kFOpened = 1 };

// One Gotoh cell (reference.cpp's recurrences: E/F opened when opening is at least as good as
// extending), its 4 direction bits shifted into `word`: each bit is the sign of a difference
// (H >= diagonal and H >= F, so H - x > 0 exactly when x is not H's source), one funnel shift
// per bit instead of compares and selects.
template <bool Local, bool Bits>
__device__ __forceinline__ int32_t avsa_cell(int32_t left, int32_t& E, int32_t up, int32_t& F, int32_t diag,
                                             int32_t sub, int32_t oe, int32_t extend, uint32_t& word) {
  const int32_t e_open = left - oe, e_ext = E - extend, f_open = up - oe, f_ext = F - extend;
  E = max(e_open, e_ext);
  F = max(f_open, f_ext);
  const int32_t d = diag + sub;
  int32_t h = max(d, max(E, F));
  if (Local) h = max(h, 0);
  if (Bits) {
    word = __funnelshift_l(uint32_t(d - h), word, 1);                // kNotDiag
    word = __funnelshift_l(uint32_t(F - h), word, 1);                // kNotUp
    word = __funnelshift_l(uint32_t(e_ext - e_open - 1), word, 1);   // kEOpened: e_open >= e_ext
    word = __funnelshift_l(uint32_t(f_ext - f_open - 1), word, 1);   // kFOpened
  }
  return h;
}

// One pair (index p, or kNoPair for an empty slot of the warp) on a group of G lanes. Every
// lane of the warp calls it with the same G: the shuffles run over the whole warp, so the
// steps are the warp's longest.
// Known (local mode): the pair's exact score S is pr.score (the score pass's), so the end cell
// is the first cell in row-major order where H reaches S: a lane checks its row's maximum
// against S instead of tracking the best cell, and the group stops once every lane has passed
// the end row (rows below it cannot hold the end cell, and the walk never reads them).
template <uint32_t G, uint32_t C, int Mode, int Trace, bool Known>
__device__ __forceinline__ void fill_pair(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres,
                                          const AvsaPair* __restrict__ pairs, uint32_t p, const int32_t* smat,
                                          int32_t open, int32_t extend, uint32_t* __restrict__ bits,
                                          uint2* __restrict__ strip, AvsaResult* __restrict__ results) {
  constexpr bool local = Mode == kAvsaLocal, semi = Mode == kAvsaSemiGlobal, global = Mode == kAvsaGlobal;
  constexpr bool Bits = Trace == kAvsaDirBits, Heights = Trace == kAvsaHeights;
  static_assert(!Heights || (local && Known), "heights: local fills with known scores");
  constexpr uint32_t cols = G * C;  // columns per pass (C = avsa_lane_cols(n))
  const uint32_t lane = threadIdx.x % G;
  const AvsaPair pr = p != kNoPair ? pairs[p] : AvsaPair{};
  const uint8_t* q = qres + pr.q_off;
  const uint8_t* t = tres + pr.t_off;
  const uint32_t m = pr.m, n = pr.n;
  const int32_t oe = open + extend;
  // The scan's starting candidate (reference.cpp): global's is replaced by H(m, n) below.
  const Best start{global ? border<Mode>(m == 0 ? n : m, open, extend) : 0, global ? m : 0,
                   global ? n : (semi && m > 0 ? n : 0)};
  Best best = start;
  int32_t corner = start.score;  // global: H(m, n), kept by the lane that owns column n
  // Only 32-lane groups (one pair per warp) take several passes; the others one, even empty.
  const uint32_t passes = G == 32 ? (m == 0 ? 0 : avsa_passes(n)) : 1;
  uint32_t steps = G == 32 ? m + 31 : __reduce_max_sync(kFull, m + G - 1);
  // Known: the end row once found (rows past it are not computed), and the score to reach (a
  // score of 0 is the empty alignment at the start candidate: nothing to find).
  uint32_t end_row = m;
  const int32_t target = Known && pr.score > 0 ? pr.score : INT32_MAX;
  uint2* my_strip = strip + pr.strip_off;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    const uint32_t j0 = pass * cols + lane * C;  // columns j0+1 .. j0+C
    const uint32_t valid = n > j0 ? min(n - j0, C) : 0;
    int32_t H[C], F[C];
    uint32_t toff[C];  // byte offset of the column's score in a table row
#pragma unroll
    for (uint32_t c = 0; c < C; ++c) {
      H[c] = border<Mode>(j0 + c + 1, open, extend);  // row 0
      F[c] = kNegInf;
      toff[c] = (c < valid ? t[j0 + c] : kPadCode) * sizeof(int32_t);
    }
    // H(i - 1, j0): the diagonal of the lane's first column (row 0 to start).
    int32_t diag_in = border<Mode>(j0, open, extend);
    int32_t out_h = 0, out_e = kNegInf;
    Best pbest = start;  // this pass's scan: rows in order, columns in order, strict '>'
    const bool to_strip = lane == G - 1 && pass + 1 < passes;
    const uint64_t lane_step0 = uint64_t(pass) * (m + G - 1) * G + lane;  // (pass, step 0, lane)
    uint32_t* my_bits = bits + pr.bits_word + lane_step0;
    uint2* my_heights = reinterpret_cast<uint2*>(bits + pr.bits_word) + lane_step0;
    if (Known && G == 32) steps = end_row + 31;  // an earlier pass found the end row
    bool found = false;  // Known: this lane reached the score in this pass
    for (uint32_t s = 0; s < steps; ++s) {
      int32_t in_h = __shfl_up_sync(kFull, out_h, 1, G), in_e = __shfl_up_sync(kFull, out_e, 1, G);
      const uint32_t i = s - lane + 1;  // this lane's row (1-based), valid when 1 <= i <= m
      if (Known) {
        // A lane that reached the score at row i (step s - 1) limits its group to rows <= i:
        // the group's last lane finishes that row G - 1 steps later.
        const bool hit = found && pbest.i == i - 1;
        if (__ballot_sync(kFull, hit)) {
          uint32_t row = hit ? pbest.i : UINT32_MAX;
          for (uint32_t d = G / 2; d > 0; d >>= 1) row = min(row, __shfl_xor_sync(kFull, row, d));
          end_row = min(end_row, row);
          steps = __reduce_max_sync(kFull, min(steps, end_row + G - 1));
          if (s >= steps) break;
        }
      }
      if (s < lane || i > m) continue;
      if (lane == 0) {
        if (pass == 0) {
          in_h = border<Mode>(i, open, extend);
          in_e = kNegInf;
        } else {
          const uint2 b = my_strip[i];
          in_h = int32_t(b.x), in_e = int32_t(b.y);
        }
      }
      const char* row = reinterpret_cast<const char*>(smat + q[i - 1] * kSmatStride);
      int32_t diag = diag_in, left = in_h, E = in_e;
      diag_in = in_h;
      uint32_t word = 0;
#pragma unroll
      for (uint32_t c = 0; c < C; ++c) {
        const int32_t h = avsa_cell<local, Bits>(left, E, H[c], F[c], diag,
                                                  *reinterpret_cast<const int32_t*>(row + toff[c]), oe, extend, word);
        const uint32_t j = j0 + c + 1;
        if (Known) {
        } else if (local) {
          if (h > pbest.score) pbest = {h, i, j};
        } else if (semi) {
          if (((i == m && c < valid) || j == n) && h > pbest.score) pbest = {h, i, j};
        } else if (i == m && j == n) {
          corner = h;
        }
        diag = H[c];
        H[c] = h;
        left = h;
      }
      out_h = left, out_e = E;
      if (Known && !found) {
        int32_t row_max = H[0];
#pragma unroll
        for (uint32_t c = 1; c < C; ++c) row_max = max(row_max, H[c]);
        if (row_max >= target) {  // the lane's first cell reaching the score
          uint32_t first = 0;
#pragma unroll
          for (uint32_t c = C - 1; c > 0; --c) first = H[c] >= target ? c : first;
          first = H[0] >= target ? 0 : first;
          pbest = {target, i, j0 + first + 1};
          found = true;
        }
      }
      if (Bits) my_bits[uint64_t(s) * G] = word;
      if (Heights) {
        // Column c's byte: H modulo 128 shifted up, plus 1 when H is not F (F < H: the walk's
        // up-or-left test).
        uint32_t cell[kAvsaLaneCols];
#pragma unroll
        for (uint32_t c = 0; c < kAvsaLaneCols; ++c)
          cell[c] = c < C ? (uint32_t(H[c]) << 1) + (uint32_t(F[c] - H[c]) >> 31) : 0;
        const auto four = [](uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
          return __byte_perm(__byte_perm(a, b, 0x0040), __byte_perm(c, d, 0x0040), 0x5410);
        };
        my_heights[uint64_t(s) * G] = make_uint2(four(cell[0], cell[1], cell[2], cell[3]),
                                                 four(cell[4], cell[5], cell[6], cell[7]));
      }
      if (to_strip) my_strip[i] = make_uint2(uint32_t(out_h), uint32_t(out_e));
    }
    if (pbest.beats(best)) best = pbest;
    __syncwarp();  // the strip written by the group's last lane is read by its lane 0 next pass
  }
  if (global) {
    // The lane that holds column n in the last pass has H(m, n).
    if (passes > 0) best.score = __shfl_sync(kFull, corner, ((n - 1) % cols) / C, G);
  } else {
    best = group_best<G>(best);
  }
  if (lane == 0 && p != kNoPair) {
    AvsaResult r{};
    r.score = best.score;
    r.end_i = best.i;
    r.end_j = best.j;
    results[p] = r;
  }
}

// Warps [0, g32) take the 32-lane pairs, then 2 pairs per warp of 16 lanes, then 4 of 8.
inline uint32_t fill_warps(AvsaFillShape s) { return s.g32 + (s.g16 + 1) / 2 + (s.g8 + 3) / 4; }

template <int Mode, int Trace, bool Known>
__global__ void __launch_bounds__(kAvsaThreads, 6)
avsa_fill(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres, const AvsaPair* __restrict__ pairs,
          AvsaFillShape shape, const int32_t* __restrict__ matrix, int32_t open, int32_t extend,
          uint32_t* __restrict__ bits, uint2* __restrict__ strip, AvsaResult* __restrict__ results) {
  __shared__ int32_t smat[kAvsaAlphabet * kSmatStride];
  for (int k = threadIdx.x; k < kAvsaAlphabet * kSmatStride; k += blockDim.x) {
    const int a = k / kSmatStride, b = k % kSmatStride;
    smat[k] = b < kAvsaAlphabet ? matrix[a * kAvsaAlphabet + b] : kPadScore;
  }
  __syncthreads();
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  const uint32_t w16 = (shape.g16 + 1) / 2, w8 = (shape.g8 + 3) / 4;
  if (warp < shape.g32) {
    switch (avsa_lane_cols(pairs[warp].n)) {  // warp-uniform: one pair per warp
#define HPC_AVSA_FILL32(C) \
  case C: fill_pair<32, C, Mode, Trace, Known>(qres, tres, pairs, warp, smat, open, extend, bits, strip, results); break;
      HPC_AVSA_FILL32(5)
      HPC_AVSA_FILL32(6)
      HPC_AVSA_FILL32(7)
      HPC_AVSA_FILL32(8)
#undef HPC_AVSA_FILL32
    }
  } else if (warp < shape.g32 + w16) {
    const uint32_t k = (warp - shape.g32) * 2 + lane / 16;
    fill_pair<16, kAvsaLaneCols, Mode, Trace, Known>(qres, tres, pairs, k < shape.g16 ? shape.g32 + k : kNoPair, smat,
                                                    open, extend, bits, strip, results);
  } else if (warp < shape.g32 + w16 + w8) {
    const uint32_t k = (warp - shape.g32 - w16) * 4 + lane / 8;
    fill_pair<8, kAvsaLaneCols, Mode, Trace, Known>(qres, tres, pairs, k < shape.g8 ? shape.g32 + shape.g16 + k : kNoPair,
                                                   smat, open, extend, bits, strip, results);
  }
}

// A walk's place in avsa_fill's layout of an m x n pair: column j's pass, lane and column in
// the lane, divided out once at the end cell and then stepped left without divisions.
struct CellCursor {
  const uint32_t* cells;
  uint32_t g, c, steps;     // lanes, columns per lane, steps per pass (m + g - 1)
  uint32_t pass, lane, cc;  // column j - 1 = (pass * g + lane) * c + cc
  uint64_t last = ~uint64_t(0);
  uint32_t word = 0;
  __device__ CellCursor(const uint32_t* bits, uint32_t m, uint32_t n, uint32_t j)
      : cells(bits), g(avsa_group(n)), c(avsa_lane_cols(n)), steps(m + g - 1) {
    const uint32_t jj = j - 1, cols = g * c;
    pass = jj / cols, lane = jj % cols / c, cc = jj % c;
  }
  // The direction bits of row i (1-based) at the current column.
  __device__ uint32_t bits(uint32_t i) {
    const uint64_t w = (uint64_t(pass) * steps + (i - 1) + lane) * g + lane;
    if (w != last) last = w, word = cells[w];  // runs of 'D' stay in one word
    return (word >> ((c - 1 - cc) * 4)) & 0xF;
  }
  // kAvsaHeights: the byte of row i (1-based): H modulo 128 shifted up, plus 1 when H is not F.
  __device__ const uint8_t* height_at(uint32_t i) const {
    const uint64_t w = (uint64_t(pass) * steps + (i - 1) + lane) * g + lane;  // the lane-step's uint2
    return reinterpret_cast<const uint8_t*>(cells) + w * kAvsaLaneCols + cc;
  }
  __device__ uint32_t height(uint32_t i) const { return *height_at(i); }
  __device__ void left() {
    if (cc > 0) return void(--cc);
    cc = c - 1;
    if (lane > 0) return void(--lane);
    lane = g - 1, --pass;
  }
};

// reference.cpp's traceback walk (tie rules 2 and 3) over avsa_fill's direction bits from the
// end cell (i, j) (1-based), whose H is `h`, until a local start or a border: emit(op) takes the
// ops end to start ('=' 'X' 'I' 'D'). H is tracked along the walk (a diagonal step takes off the
// substitution score, a gap's open adds open + extend back, an extension extend), so a local
// walk stops where H is 0 without a stored bit. Leaves (i, j) at the cell where it stopped.
template <class Emit>
__device__ __forceinline__ void avsa_trace(uint32_t& i, uint32_t& j, int32_t h, bool local, const uint8_t* q,
                                           const uint8_t* t, const uint32_t* cells, uint32_t m, uint32_t n,
                                           const int32_t* matrix, int32_t oe, int32_t extend, Emit emit) {
  enum { InH, InE, InF } state = InH;  // InE: moving left, InF: moving up; h is then E or F
  if (i == 0 || j == 0) return;
  CellCursor at(cells, m, n, j);
  while (i > 0 && j > 0) {
    if (state == InH && local && h == 0) break;
    const uint32_t b = at.bits(i);
    if (state == InH) {
      if (!(b & kNotDiag)) {
        emit(q[i - 1] == t[j - 1] ? '=' : 'X');
        h -= matrix[q[i - 1] * kAvsaAlphabet + t[j - 1]];
        --i, --j;
        at.left();
      } else {
        state = b & kNotUp ? InE : InF;
      }
    } else if (state == InF) {
      emit('I');
      --i;
      const bool opened = b & kFOpened;
      h += opened ? oe : extend;
      if (opened) state = InH;
    } else {
      emit('D');
      --j;
      at.left();
      const bool opened = b & kEOpened;
      h += opened ? oe : extend;
      if (opened) state = InH;
    }
  }
}

// avsa_trace over kAvsaHeights cells (local mode): the same walk, its decisions taken from the
// heights as reference.cpp's tie rules take them. H(i, j) is the diagonal's (rule 2's first
// choice) exactly when H(i - 1, j - 1) + s(i, j) = H(i, j), else up when F(i, j) = H(i, j) (the
// cell's stored bit), else left; a gap at (i, j) was opened exactly when H of its neighbour
// (up for F, left for E) minus open + extend equals the gap's value (E and F are the maximum
// of opening and extending, opening winning ties). Borders (row or column 0) are H = 0. The
// walk's H, E and F are exact (tracked from the score); each test compares them with a stored
// H modulo 128, which avsa_heights_exact makes exact.
template <class Emit>
__device__ __forceinline__ void avsa_trace_heights(uint32_t& i, uint32_t& j, int32_t h, const uint8_t* q,
                                                   const uint8_t* t, const uint32_t* cells, uint32_t m, uint32_t n,
                                                   const int32_t* matrix, int32_t oe, int32_t extend, Emit emit) {
  enum { InH, InE, InF } state = InH;  // InE: moving left, InF: moving up; h is then E or F
  if (i == 0 || j == 0) return;
  CellCursor at(cells, m, n, j);
  uint32_t cell = at.height(i);  // (i, j)'s while in InH
  while (i > 0 && j > 0) {
    if (state == InH) {
      if (h == 0) break;
      CellCursor diag = at;
      diag.left();
      const uint32_t up_left = i > 1 && j > 1 ? *diag.height_at(i - 1) : 0;
      const int32_t sub = matrix[q[i - 1] * kAvsaAlphabet + t[j - 1]];
      if ((int32_t(up_left >> 1) + sub - h) & 127) {
        state = cell & 1 ? InE : InF;
      } else {
        emit(q[i - 1] == t[j - 1] ? '=' : 'X');
        h -= sub, cell = up_left;
        --i, --j;
        at = diag;
      }
    } else if (state == InF) {
      emit('I');
      const uint32_t up = i > 1 ? at.height(i - 1) : 0;
      --i;
      if (((int32_t(up >> 1) - oe - h) & 127) == 0)
        h += oe, cell = up, state = InH;
      else
        h += extend;
    } else {
      emit('D');
      CellCursor left = at;
      left.left();
      const uint32_t lc = j > 1 ? left.height(i) : 0;
      --j;
      at = left;
      if (((int32_t(lc >> 1) - oe - h) & 127) == 0)
        h += oe, cell = lc, state = InH;
      else
        h += extend;
    }
  }
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

template <int Trace>
__global__ void avsa_walk(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres,
                          const AvsaPair* __restrict__ pairs, uint32_t npairs, int mode,
                          const int32_t* __restrict__ matrix, int32_t open, int32_t extend,
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
  if (empty_local) {
  } else if (Trace == kAvsaHeights) {
    avsa_trace_heights(i, j, r.score, q, t, cells, pr.m, pr.n, matrix, open + extend, extend,
                       [&](char op) { cigar.push(op); });
  } else {
    avsa_trace(i, j, r.score, mode == kAvsaLocal, q, t, cells, pr.m, pr.n, matrix, open + extend, extend,
               [&](char op) { cigar.push(op); });
  }
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

template <int Mode, int Trace, bool Known>
void launch_fill_kernel(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, AvsaFillShape shape,
                        const int32_t* matrix, int32_t open, int32_t extend, uint32_t* bits, uint2* strip,
                        AvsaResult* results, cudaStream_t stream) {
  const uint64_t blocks = (uint64_t(fill_warps(shape)) * 32 + kAvsaThreads - 1) / kAvsaThreads;
  avsa_fill<Mode, Trace, Known><<<unsigned(blocks), kAvsaThreads, 0, stream>>>(qres, tres, pairs, shape, matrix, open,
                                                                               extend, bits, strip, results);
}

template <int Mode>
void launch_fill_mode(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, AvsaFillShape shape,
                      const int32_t* matrix, int32_t open, int32_t extend, int trace, bool known_scores,
                      uint32_t* bits, uint2* strip, AvsaResult* results, cudaStream_t stream) {
  if constexpr (Mode == kAvsaLocal) {
    if (trace == kAvsaHeights && known_scores)
      return launch_fill_kernel<Mode, kAvsaHeights, true>(qres, tres, pairs, shape, matrix, open, extend, bits, strip,
                                                          results, stream);
    if (trace == kAvsaDirBits && known_scores)
      return launch_fill_kernel<Mode, kAvsaDirBits, true>(qres, tres, pairs, shape, matrix, open, extend, bits, strip,
                                                          results, stream);
  }
  if (trace == kAvsaHeights) throw Error("avsa_fill: heights need known local scores");
  if (trace == kAvsaDirBits)
    launch_fill_kernel<Mode, kAvsaDirBits, false>(qres, tres, pairs, shape, matrix, open, extend, bits, strip, results,
                                                  stream);
  else
    launch_fill_kernel<Mode, kAvsaNoTrace, false>(qres, tres, pairs, shape, matrix, open, extend, bits, strip, results,
                                                  stream);
}

}  // namespace

void launch_avsa_fill(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, AvsaFillShape shape,
                      const int32_t* matrix, int32_t open, int32_t extend, int mode, int trace,
                      bool known_scores, uint32_t* bits, uint2* strip, AvsaResult* results, void* stream) {
  if (shape.pairs() == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  if (mode == kAvsaLocal)
    launch_fill_mode<kAvsaLocal>(qres, tres, pairs, shape, matrix, open, extend, trace, known_scores, bits, strip,
                                 results, s);
  else if (mode == kAvsaGlobal)
    launch_fill_mode<kAvsaGlobal>(qres, tres, pairs, shape, matrix, open, extend, trace, false, bits, strip,
                                  results, s);
  else
    launch_fill_mode<kAvsaSemiGlobal>(qres, tres, pairs, shape, matrix, open, extend, trace, false, bits, strip,
                                      results, s);
  CUDA_CHECK_LAUNCH("avsa_fill");
}

void launch_avsa_walk(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, uint32_t npairs, int mode,
                      int trace, const int32_t* matrix, int32_t open, int32_t extend, const uint32_t* bits,
                      char* scratch, char* text, unsigned long long* text_used, AvsaResult* results, void* stream) {
  if (npairs == 0) return;
  const unsigned blocks = (npairs + kAvsaThreads - 1) / kAvsaThreads;
  const auto s = static_cast<cudaStream_t>(stream);
  if (trace == kAvsaHeights)
    avsa_walk<kAvsaHeights><<<blocks, kAvsaThreads, 0, s>>>(qres, tres, pairs, npairs, mode, matrix, open, extend, bits,
                                                             scratch, text, text_used, results);
  else
    avsa_walk<kAvsaDirBits><<<blocks, kAvsaThreads, 0, s>>>(qres, tres, pairs, npairs, mode, matrix, open, extend, bits,
                                                             scratch, text, text_used, results);
  CUDA_CHECK_LAUNCH("avsa_walk");
}

int avsa_fill_pairs_per_sm() {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, avsa_fill<kAvsaLocal, kAvsaDirBits, true>, kAvsaThreads, 0));
  return blocks * kAvsaThreads / 32;
}

}  // namespace hpc::cuda
