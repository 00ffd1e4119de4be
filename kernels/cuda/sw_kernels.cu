// Smith-Waterman score kernels (inter-sequence parallelism, Gotoh affine gaps).
//
// Each thread owns one subject (Exact32) or two subjects in 16-bit lanes (Packed16) and
// sweeps them in passes of kChunk columns held in registers; the query rows stream past
// (one row per iteration, the query letter is the same for the whole block, so its
// substitution row sits at one shared-memory offset). Between passes the last column's
// H and E of every row go to a per-thread strip of global memory, interleaved across
// threads so each warp's accesses coalesce.
#include "kernels/cuda/sw_kernels.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/sw_ops.cuh"
#include "kernels/cuda/traceback_kernels.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"

namespace hpc::cuda {
namespace {

static_assert(kMaxProfileRows * kCodes * sizeof(uint32_t) <= size_t(kPairProfileBytes),
              "sw_kernels.hpp sizes the pair profiles with 25 letter codes");

// Residue code of column c of a subject, or the padding code past its end.
__device__ __forceinline__ uint32_t code_at(const uint8_t* s, uint32_t len, uint32_t c) {
  return c < len ? uint32_t(s[c]) : uint32_t(kPadCode);
}

// One cell of sw_pass's recurrence (registers as described there). In: f = F of the cell's
// column one row up, diag = H - oe one row up and one column left, up = H - oe one row up,
// ee = E - oe entering the cell, t = substitution + oe. Out: f = the cell's F, diag = the old
// up (the next column's diagonal), up = the cell's H - oe, ee = E - oe leaving it. Returns
// xp = max(diagonal + s, F, 0), whose maxima are the score (see sw_pass). On sm_90 the four
// add-max ops are DPX instructions that fill the ALU pipe (two issue cycles each; ncu, H200)
// and the plain add runs beside it (VIADD.16x2, on the FMA pipe). Splitting add-max ops into
// an add and a 2-input max (one ALU cycle) moves work to the FMA pipe but costs issue slots
// (ptxas fuses the pair back unless the add has a second use): splitting F's and xp's cost
// pss 3% and search 5%, splitting H - oe's cost pss 1% and search 1.5% (H200, same machines).
// Global and semiglobal modes take no relu: x = max(diagonal + s, F); the rest of the recurrence
// holds as it is (E's step max(E - ext, x - oe) equals max(E - ext, H - oe) for any H = max(x, E)).
template <class Ops, AlignMode kMode = AlignMode::Local>
__device__ __forceinline__ uint32_t packed_cell(uint32_t& f, uint32_t& diag, uint32_t& up, uint32_t& ee, uint32_t t,
                                                uint32_t neg_oe, uint32_t neg_ext, uint32_t neg_2oe) {
  f = Ops::add_max(f, neg_ext, up);
  const uint32_t x = kMode == AlignMode::Local ? Ops::add_max_relu(diag, t, f) : Ops::add_max(diag, t, f);
  diag = up;
  up = Ops::add_max(x, neg_oe, ee);
  ee = Ops::add_max(ee, neg_ext, Ops::add(x, neg_2oe));
  return x;
}

// Global and semiglobal modes' side of sw_pass: the border (global: H(0, j) = -(open + j ext),
// H(i, 0) alike; semiglobal: 0, as local) and each lane's score: global H(m, n_k), read once the
// pass holding column n_k has seen the last row; semiglobal the best of 0 (the border cell
// (0, n_k): nothing aligned), the last row's H up to column n_k and column n_k's H on every row.
struct EndCells {
  int open, ext, oe;  // gap costs, oe = open + ext
  uint32_t n[2];      // each lane's subject length
  int h[2] = {0, 0};  // the lanes' scores
  __device__ int border(uint32_t k) const { return k == 0 ? 0 : -(open + int(k) * ext); }
};

// One pass of the DP of one thread: subject columns c0 .. c0 + width - 1 (width <= W, a
// multiple of 8) against every query row: row_table(i) is row i's substitution row (shared
// memory) and column_index(c) column c's entry in it. The H and E of
// the pass's last column go to the thread's strip for the next pass unless this is the
// last, and the pass's previous strip is read unless this is the first. Folds the lanes'
// maxima of H into `best`.
//
// Registers per column: hoe = H(i-1,c) - oe and f = F(i-1,c); along the row, ee = E - oe.
// With xp = max(H(i-1,c-1) + s, F, 0), H = max(xp, E), and because every E is below
// some earlier H of its row, the row maximum of H is the maximum of xp and
//   E(i,c+1) - oe = max(ee - ext, xp - 2 oe):
// the serial dependency along the row is a single add-max per cell (packed_cell).
template <class Ops, int W, bool kNarrow, AlignMode kMode = AlignMode::Local, class RowTable, class ColumnIndex>
__device__ __forceinline__ void sw_pass(RowTable row_table, uint32_t m, ColumnIndex column_index, uint32_t c0,
                                        uint32_t width, bool first,
                                        bool last, uint2* temp, size_t tstride, uint32_t neg_oe, uint32_t neg_ext,
                                        uint32_t neg_2oe, uint32_t& best, EndCells* ends = nullptr) {
  static_assert(W % 8 == 0, "passes are multiples of 8 columns");
  constexpr bool kGlobal = kMode == AlignMode::Global, kSemi = kMode == AlignMode::SemiGlobal;
  uint32_t col[W], hoe[W], f[W];
#pragma unroll
  for (int r = 0; r < W; ++r) {
    col[r] = column_index(c0 + r);
    if (kGlobal) {
      hoe[r] = Ops::splat(ends->border(c0 + r + 1) - ends->oe);  // row 0
      f[r] = Ops::splat(Ops::kNegInf);
    } else {
      hoe[r] = neg_oe;  // row 0: H = 0
      f[r] = neg_oe;    // acts as -infinity: H(0, c) - oe >= F(0, c) - ext decides F(1, c)
    }
  }
  // Semiglobal: each lane's last column in this pass (register index), or -1.
  int last_col[2] = {-1, -1};
  if (kSemi)
    for (int k = 0; k < 2; ++k)
      if (ends->n[k] > c0 && ends->n[k] <= c0 + width) last_col[k] = int(ends->n[k] - 1 - c0);
  uint32_t diag_next = kGlobal ? Ops::splat(ends->border(c0) - ends->oe) : neg_oe;
  // Row i + 1's substitution row and strip entry are loaded while row i computes: with ~3
  // warps per scheduler, waiting on these loads was the largest stall (ncu, H100).
  const uint32_t* next_row = m > 0 ? row_table(0) : nullptr;
  uint2 next_strip = !first && m > 0 ? temp[0] : make_uint2(neg_oe, neg_2oe);
  for (uint32_t i = 0; i < m; ++i) {
    const uint32_t* trow = next_row;
    // column 0: H = 0, so E(i,1) = -oe (first pass); else the previous pass's last column
    uint32_t left = next_strip.x, ee = next_strip.y;
    if (kGlobal && first) {  // column 0: H(i + 1, 0) charged, E(i + 1, 1) = H(i + 1, 0) - oe
      const int h0 = ends->border(i + 1);
      left = Ops::splat(h0 - ends->oe), ee = Ops::splat(h0 - 2 * ends->oe);
    }
    if (i + 1 < m) {
      next_row = row_table(i + 1);
      if (!first) next_strip = temp[(i + 1) * tstride];
    }
    uint32_t diag = diag_next;
    diag_next = left;
#pragma unroll
    for (int r = 0; r < W; r += 2) {
      // A narrow last pass stops after `width` columns: one warp-uniform branch per 8 (full
      // passes are compiled without it).
      if (kNarrow && r % 8 == 0 && r >= 8 && uint32_t(r) >= width) break;
      const uint32_t x0 =
          packed_cell<Ops, kMode>(f[r], diag, hoe[r], ee, trow[col[r]], neg_oe, neg_ext, neg_2oe);
      const uint32_t x1 =
          packed_cell<Ops, kMode>(f[r + 1], diag, hoe[r + 1], ee, trow[col[r + 1]], neg_oe, neg_ext, neg_2oe);
      if (kMode == AlignMode::Local) best = Ops::max3_relu(best, x0, x1);
    }
    if (!last) temp[i * tstride] = make_uint2(hoe[W - 1], ee);
    if (kSemi) {  // column n_k's H on this row: a select chain over the registers (one pass a lane)
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        if (last_col[k] < 0) continue;
        uint32_t v = hoe[0];
#pragma unroll
        for (int r = 1; r < W; ++r) v = r == last_col[k] ? hoe[r] : v;
        ends->h[k] = max(ends->h[k], Ops::lane(v, k) + ends->oe);
      }
    }
  }
  if (kGlobal || kSemi) {  // the last row's H: global at each lane's last column, semiglobal up to it
#pragma unroll
    for (int r = 0; r < W; ++r)
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        if (kGlobal && ends->n[k] == c0 + r + 1) ends->h[k] = Ops::lane(hoe[r], k) + ends->oe;
        if (kSemi && m > 0 && c0 + r < ends->n[k]) ends->h[k] = max(ends->h[k], Ops::lane(hoe[r], k) + ends->oe);
      }
  }
}

// The passes of Chunk columns over ncols subject columns: pass(narrow, c0, width, first, last)
// for each, `narrow` a std::integral_constant telling whether it is the last; the last stops
// at what is left rounded up to 8, since short subjects (pss permutations, all-vs-all windows
// of ~170 aa) otherwise compute up to a pass of padding per row (170 columns in passes of 40
// = 200). Callers pass one ncols for the whole warp where they can, so the warp's last pass
// stops at one place.
template <int Chunk, class Pass>
__device__ __forceinline__ void for_each_pass(uint32_t ncols, Pass pass) {
  if (ncols == 0) return;
  uint32_t c0 = 0;
  for (; c0 + Chunk < ncols; c0 += Chunk) pass(std::false_type{}, c0, uint32_t(Chunk), c0 == 0, false);
  pass(std::true_type{}, c0, (ncols - c0 + 7) / 8 * 8, c0 == 0, true);
}

// The DP of one thread over ncols subject columns (columns past a subject's end score as
// padding). Returns the per-lane maximum of H (>= 0).
// Global and semiglobal modes: the lanes' scores into *ends instead (the return value is then 0).
template <class Ops, int Chunk, AlignMode kMode = AlignMode::Local, class RowTable, class ColumnIndex>
__device__ uint32_t sw_passes(RowTable row_table, uint32_t m, ColumnIndex column_index, uint32_t ncols, uint2* temp,
                              size_t tstride, uint32_t neg_oe, uint32_t neg_ext, uint32_t neg_2oe,
                              EndCells* ends = nullptr) {
  uint32_t best = 0;
  for_each_pass<Chunk>(ncols, [&](auto narrow, uint32_t c0, uint32_t width, bool first, bool last) {
    sw_pass<Ops, Chunk, decltype(narrow)::value, kMode>(row_table, m, column_index, c0, width, first, last, temp,
                                                        tstride, neg_oe, neg_ext, neg_2oe, best, ends);
  });
  return best;
}

// sw_pass for R query rows per step (R = 2 or 4), from a query pair's profile:
// group_entries(g) gives group g's kCodes entries of R words (DeviceQueryPairProfiles), in
// shared memory, called once per group in order (it may stage the profile chunk by chunk). Per
// column and group: one R-word gather at the group's (warp-uniform) base plus the column's
// letter offset, where sw_pass pays a gather and an address computation per row. Row k's
// cell takes its diagonal from row k - 1 one column back and its F from row k - 1 in the same
// column, both just computed; the strip holds (H - oe, E - oe) of every row, R / 2 uint4 per
// group.
template <int R, int W, bool kNarrow, class GroupEntries, class ColumnIndex>
__device__ __forceinline__ void sw_pass_row_groups(GroupEntries group_entries, uint32_t groups, ColumnIndex column_index,
                                                   uint32_t c0, uint32_t width, bool first, bool last, uint4* temp,
                                                   size_t tstride, uint32_t neg_oe, uint32_t neg_ext,
                                                   uint32_t neg_2oe, uint32_t& best) {
  static_assert(W % 8 == 0, "passes are multiples of 8 columns");
  static_assert(R == 2 || R == 4, "two or four rows per step");
  using Ops = Packed16;
  using Entry = std::conditional_t<R == 2, uint2, uint4>;
  uint32_t col[W], hoe[W], f[W];  // col: byte offset of the column's letter in a group's entries
#pragma unroll
  for (int r = 0; r < W; ++r) {
    col[r] = column_index(c0 + r) * uint32_t(sizeof(Entry));
    hoe[r] = neg_oe;  // row 0: H = 0
    f[r] = neg_oe;    // acts as -infinity: H >= 0 keeps every real F >= -(open+extend)
  }
  uint32_t diag_next = neg_oe;
  uint4 next[R / 2];  // the next group's strip entries
#pragma unroll
  for (int q = 0; q < R / 2; ++q)
    next[q] = !first && groups > 0 ? temp[q * tstride] : make_uint4(neg_oe, neg_2oe, neg_oe, neg_2oe);
  for (uint32_t g = 0; g < groups; ++g) {
    const char* trow = reinterpret_cast<const char*>(group_entries(g));
    uint32_t diag[R], ee[R], h_last[R] = {};
#pragma unroll
    for (int q = 0; q < R / 2; ++q) {
      diag[2 * q] = q == 0 ? diag_next : next[q - 1].z;
      diag[2 * q + 1] = next[q].x;
      ee[2 * q] = next[q].y;
      ee[2 * q + 1] = next[q].w;
    }
    diag_next = next[R / 2 - 1].z;
    if (!first && g + 1 < groups) {
#pragma unroll
      for (int q = 0; q < R / 2; ++q) next[q] = temp[((g + 1) * (R / 2) + q) * tstride];
    }
#pragma unroll
    for (int r = 0; r < W; ++r) {
      if (kNarrow && r % 8 == 0 && r >= 8 && uint32_t(r) >= width) break;
      const Entry e = *reinterpret_cast<const Entry*>(trow + col[r]);
      const uint32_t* t = reinterpret_cast<const uint32_t*>(&e);
      uint32_t up = hoe[r];  // H - oe of the row above, this column
      uint32_t x[R];
#pragma unroll
      for (int k = 0; k < R; ++k) {
        x[k] = packed_cell<Ops>(f[r], diag[k], up, ee[k], t[k], neg_oe, neg_ext, neg_2oe);
        if (r == W - 1) h_last[k] = up;
      }
      hoe[r] = up;
#pragma unroll
      for (int k = 0; k < R; k += 2) best = Ops::max3_relu(best, x[k], x[k + 1]);
    }
    if (!last) {
#pragma unroll
      for (int q = 0; q < R / 2; ++q)
        temp[(g * (R / 2) + q) * tstride] = make_uint4(h_last[2 * q], ee[2 * q], h_last[2 * q + 1], ee[2 * q + 1]);
    }
  }
}

// Lane k of a packed result to scores[out], or -1 and the overflow list when the lane may
// have saturated (it is rescored exactly).
__device__ __forceinline__ void set_aside(size_t out, int32_t* scores, uint32_t* overflow_list,
                                          uint32_t* overflow_count) {
  scores[out] = -1;
  overflow_list[atomicAdd(overflow_count, 1u)] = uint32_t(out);
}
__device__ __forceinline__ void store_lane(uint32_t best, int k, size_t out, int overflow_limit, int32_t* scores,
                                           uint32_t* overflow_list, uint32_t* overflow_count) {
  const int s = Packed16::lane(best, k);
  if (s >= overflow_limit)
    set_aside(out, scores, overflow_list, overflow_count);
  else
    scores[out] = s;
}
// Whether a thread of `rows` query rows leaves a subject of `len` residues to the exact
// rescoring (see launch_search16): it is then run as an empty subject.
__device__ __forceinline__ bool long_lane(uint32_t rows, uint32_t len, uint64_t long_cells) {
  return uint64_t(rows) * len >= long_cells;
}

// The persistent loop of a packed kernel: takes work units from the shared counter until
// none is left; for each, prepare(unit) runs on all threads (it may fill shared memory and
// then returns true, the same in every thread: a barrier follows), then body(unit).
template <class Prepare, class Body>
__device__ __forceinline__ void unit_loop(const WorkUnit* __restrict__ units, uint32_t n_units,
                                          uint32_t* unit_counter, Prepare prepare, Body body) {
  __shared__ uint32_t unit_index;
  for (;;) {
    __syncthreads();  // shared memory ready / everyone done with the last unit and unit_index
    if (threadIdx.x == 0) unit_index = atomicAdd(unit_counter, 1u);
    __syncthreads();
    const uint32_t u = unit_index;
    if (u >= n_units) return;
    const WorkUnit w = units[u];
    if (prepare(w)) __syncthreads();
    body(w);
  }
}

// unit_loop for kernels whose block first copies one substitution table (`words` 32-bit
// words) into shared memory.
template <class Body>
__device__ __forceinline__ void for_each_unit(uint32_t* table, const uint32_t* __restrict__ table_src, int words,
                                              const WorkUnit* __restrict__ units, uint32_t n_units,
                                              uint32_t* unit_counter, Body body) {
  for (int k = threadIdx.x; k < words; k += blockDim.x) table[k] = table_src[k];
  unit_loop(units, n_units, unit_counter, [](const WorkUnit&) { return false; }, body);
}

// The maximum of v over the block (every thread calls it; barriers).
__device__ __forceinline__ uint32_t block_max(uint32_t v) {
  __shared__ uint32_t m;
  if (threadIdx.x == 0) m = 0;
  __syncthreads();
  v = __reduce_max_sync(0xFFFFFFFFu, v);
  if (threadIdx.x % 32 == 0) atomicMax(&m, v);
  __syncthreads();
  v = m;
  __syncthreads();  // read by all before a later call resets it
  return v;
}

// What a query-pair kernel's unit does around its DP: thread = subject w.first_pair +
// threadIdx.x against query pair w.query (slots[2 w.query + k]: lane k's query, or kNoQuery);
// score(column_index, ncols) runs the DP over the warp's longest subject (one pass structure
// per warp; subjects are length-sorted) and returns the lanes' maxima, stored here; a subject
// that makes `rows` x its length reach long_cells is set aside instead (long_lane). With
// kBlockWide, over the block's longest subject instead, every thread running it (those past
// the partition on padding), so the DP may hold block barriers.
template <bool kBlockWide = false, class Score>
__device__ __forceinline__ void query_pair_unit(const DeviceDb& db, Partition part, const WorkUnit& w,
                                                const uint32_t* slots, uint32_t rows, int overflow_limit,
                                                uint64_t long_cells, int32_t* scores, uint32_t* overflow_list,
                                                uint32_t* overflow_count, Score score) {
  const uint32_t p = w.first_pair + threadIdx.x;
  const bool in_part = p < part.size;
  const unsigned working = __ballot_sync(0xFFFFFFFFu, in_part);  // the warp is converged here
  if (!kBlockWide && !in_part) return;
  const uint32_t g = part.begin + (in_part ? p : 0);
  const uint8_t* sub = db.residues + db.offsets[g];
  const uint32_t full = in_part ? db.lengths[g] : 0;
  const bool aside = long_lane(rows, full, long_cells);
  const uint32_t len = aside ? 0 : full;
  auto column_index = [=](uint32_t c) { return code_at(sub, len, c); };
  const uint32_t best = score(column_index, kBlockWide ? block_max(len) : __reduce_max_sync(working, len));
  if (!in_part) return;
  for (int k = 0; k < 2; ++k) {
    const uint32_t slot = slots[2 * w.query + k];
    if (slot == kNoQuery) continue;
    const size_t out = size_t(slot) * part.size + p;
    if (aside)
      set_aside(out, scores, overflow_list, overflow_count);
    else
      store_lane(best, k, out, overflow_limit, scores, overflow_list, overflow_count);
  }
}

// kMode Global or SemiGlobal: those modes' scores of each lane; lanes that `fit` rejects are set
// aside with the long ones.
template <int Chunk, int MinBlocks, AlignMode kMode = AlignMode::Local>
__global__ void __launch_bounds__(kBlockThreads, MinBlocks)
search16_kernel(DeviceDb db, Partition part, DeviceQueries qs, const WorkUnit* __restrict__ units,
                uint32_t n_units, uint32_t* unit_counter, const uint32_t* __restrict__ packed_table,
                GapConsts gaps, int overflow_limit, uint64_t long_cells, uint2* temp, int32_t* scores,
                uint32_t* overflow_list, uint32_t* overflow_count, EndScoreFit fit) {
  extern __shared__ uint32_t table[];
  const size_t tstride = size_t(gridDim.x) * blockDim.x;
  uint2* my_temp = temp + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint32_t neg_oe = Packed16::splat(-gaps.open_extend);
  const uint32_t neg_ext = Packed16::splat(-gaps.extend);
  for_each_unit(table, packed_table, kPackedTableBytes / 4, units, n_units, unit_counter, [&](const WorkUnit& w) {
    const uint32_t pa = 2 * (w.first_pair + threadIdx.x);  // partition-local position of lane 0
    const unsigned working = __ballot_sync(0xFFFFFFFFu, pa < part.size);  // the warp is converged here
    if (pa >= part.size) return;
    const bool has_b = pa + 1 < part.size;
    const uint32_t ga = part.begin + pa;
    const uint8_t* q = qs.residues + qs.offsets[w.query];
    const uint32_t m = qs.lengths[w.query];
    const uint8_t* sa = db.residues + db.offsets[ga];
    constexpr bool kLocal = kMode == AlignMode::Local;
    const bool aside_a =
        long_lane(m, db.lengths[ga], long_cells) || (!kLocal && !fit.fits(m, db.lengths[ga]));
    const uint32_t la = aside_a ? 0 : db.lengths[ga];
    const uint8_t* sb = has_b ? db.residues + db.offsets[ga + 1] : sa;
    const bool aside_b = has_b && (long_lane(m, db.lengths[ga + 1], long_cells) ||
                                   (!kLocal && !fit.fits(m, db.lengths[ga + 1])));
    const uint32_t lb = has_b && !aside_b ? db.lengths[ga + 1] : 0;

    auto row_table = [=](uint32_t i) { return table + uint32_t(q[i]) * Packed16::kStride; };
    auto column_index = [=](uint32_t c) { return code_at(sa, la, c) * kCodes + code_at(sb, lb, c); };
    // The warp's longest subject: one pass structure for the warp (subjects are length-sorted).
    const uint32_t ncols = __reduce_max_sync(working, max(la, lb));
    EndCells ends{gaps.open_extend - gaps.extend, gaps.extend, gaps.open_extend, {la, lb}};
    const uint32_t best = sw_passes<Packed16, Chunk, kMode>(row_table, m, column_index, ncols, my_temp, tstride,
                                                            neg_oe, neg_ext, Packed16::splat(-2 * gaps.open_extend),
                                                            &ends);
    const size_t out = size_t(w.query) * part.size + pa;
    if (aside_a)
      set_aside(out, scores, overflow_list, overflow_count);
    else if (!kLocal)
      scores[out] = ends.h[0];
    else
      store_lane(best, 0, out, overflow_limit, scores, overflow_list, overflow_count);
    if (aside_b)
      set_aside(out + 1, scores, overflow_list, overflow_count);
    else if (has_b && !kLocal)
      scores[out + 1] = ends.h[1];
    else if (has_b)
      store_lane(best, 1, out + 1, overflow_limit, scores, overflow_list, overflow_count);
  });
}

// The query-pair kernel: one subject per thread against two queries, one in each 16-bit
// lane, all threads of a block on the same query pair. A row's substitution entries are
// then one 25-word row of the table (query pair letters x subject letter): the threads'
// different subject letters fall in different banks, where the subject-pair kernel's
// (subject a, subject b) gather over 625 words costs ~3.2-way bank conflicts (ncu, H100).
template <int Chunk, int MinBlocks>
__global__ void __launch_bounds__(kBlockThreads, MinBlocks)
search16q_kernel(DeviceDb db, Partition part, DeviceQueryPairs qp, const WorkUnit* __restrict__ units,
                 uint32_t n_units, uint32_t* unit_counter, const uint32_t* __restrict__ pair_table, GapConsts gaps,
                 int overflow_limit, uint64_t long_cells, uint2* temp, int32_t* scores, uint32_t* overflow_list,
                 uint32_t* overflow_count) {
  extern __shared__ uint32_t table[];
  const size_t tstride = size_t(gridDim.x) * blockDim.x;
  uint2* my_temp = temp + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint32_t neg_oe = Packed16::splat(-gaps.open_extend);
  const uint32_t neg_ext = Packed16::splat(-gaps.extend);
  // w.query: the query pair; w.first_pair: the first subject.
  for_each_unit(table, pair_table, kQueryPairTableBytes / 4, units, n_units, unit_counter, [&](const WorkUnit& w) {
    const uint16_t* rows = qp.rows + qp.offsets[w.query];
    auto row_table = [=](uint32_t i) { return table + uint32_t(rows[i]) * kCodes; };
    query_pair_unit(db, part, w, qp.slots, qp.lengths[w.query], overflow_limit, long_cells, scores, overflow_list,
                    overflow_count, [&](auto column_index, uint32_t ncols) {
                      return sw_passes<Packed16, Chunk>(row_table, qp.lengths[w.query], column_index, ncols, my_temp,
                                                        tstride, neg_oe, neg_ext,
                                                        Packed16::splat(-2 * gaps.open_extend));
                    });
  });
}

// The row-group kernel: the query-pair kernel's lanes (one subject per thread, a query pair
// in the 16-bit lanes, a block on one pair at a time) stepping R query rows at once through
// the pair's profile, which the block copies into shared memory when its unit's pair changes,
// or, for a pair past kMaxProfileRows, chunk by chunk in every pass (sw_pass_row_groups).
template <int Chunk, int MinBlocks, int R>
__global__ void __launch_bounds__(kBlockThreads, MinBlocks)
search16p_kernel(DeviceDb db, Partition part, DeviceQueryPairProfiles pp, const WorkUnit* __restrict__ units,
                 uint32_t n_units, uint32_t* unit_counter, GapConsts gaps, int overflow_limit, uint64_t long_cells,
                 uint2* temp, int32_t* scores, uint32_t* overflow_list, uint32_t* overflow_count) {
  extern __shared__ uint4 profile4[];
  uint32_t* profile = reinterpret_cast<uint32_t*>(profile4);
  const size_t tstride = size_t(gridDim.x) * blockDim.x;
  uint4* my_temp = reinterpret_cast<uint4*>(temp) + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint32_t neg_oe = Packed16::splat(-gaps.open_extend);
  const uint32_t neg_ext = Packed16::splat(-gaps.extend);
  uint32_t loaded = kNoQuery;  // the pair whose profile is in shared memory (one value in all threads)
  // A group's entries are 25 R words: whole uint2 (R = 2) or uint4 (R = 4), copied a few at a
  // time so the global loads overlap.
  using Vec = std::conditional_t<R == 2, uint2, uint4>;
  constexpr uint32_t kGroupsHeld = kMaxProfileRows / R;  // groups that shared memory holds
  auto copy_groups = [&](uint32_t pair, uint32_t first_group, uint32_t n_groups) {
    const Vec* src =
        reinterpret_cast<const Vec*>(pp.profile + (size_t(pp.row_offsets[pair]) + size_t(first_group) * R) * kCodes);
    Vec* dst = reinterpret_cast<Vec*>(profile);
    const uint32_t n = n_groups * kCodes;
#pragma unroll 4
    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x) dst[k] = src[k];
  };
  // A pair that fits is copied once for all its units; a longer one chunk by chunk in every
  // pass (below), leaving nothing loaded.
  auto prepare = [&](const WorkUnit& w) {
    if (w.query == loaded) return false;
    const uint32_t groups = pp.groups[w.query];
    loaded = groups <= kGroupsHeld ? w.query : kNoQuery;
    if (groups > kGroupsHeld) return false;
    copy_groups(w.query, 0, groups);
    return true;
  };
  const uint32_t neg_2oe = Packed16::splat(-2 * gaps.open_extend);
  // w.query: the query pair; w.first_pair: the first subject.
  unit_loop(units, n_units, unit_counter, prepare, [&](const WorkUnit& w) {
    const uint32_t groups = pp.groups[w.query];
    auto passes = [&](auto group_entries) {
      return [&, group_entries](auto column_index, uint32_t ncols) {
        uint32_t best = 0;
        for_each_pass<Chunk>(ncols, [&](auto narrow, uint32_t c0, uint32_t width, bool first, bool last) {
          sw_pass_row_groups<R, Chunk, decltype(narrow)::value>(group_entries, groups, column_index, c0, width,
                                                                first, last, my_temp, tstride, neg_oe, neg_ext,
                                                                neg_2oe, best);
        });
        return best;
      };
    };
    if (groups <= kGroupsHeld) {
      query_pair_unit(db, part, w, pp.slots, groups * R, overflow_limit, long_cells, scores, overflow_list,
                      overflow_count, passes([=](uint32_t g) { return profile + g * (kCodes * R); }));
    } else {
      // Longer than shared memory: the block steps through the pair's rows together (one pass
      // structure for the block), restaging the next kGroupsHeld groups between barriers. The
      // profile is read once per pass from L2, next to the pass's DP over 128 subjects.
      query_pair_unit<true>(db, part, w, pp.slots, groups * R, overflow_limit, long_cells, scores, overflow_list,
                            overflow_count, passes([=](uint32_t g) {
                              const uint32_t k = g % kGroupsHeld;
                              if (k == 0) {
                                __syncthreads();  // everyone is done with the last chunk
                                copy_groups(w.query, g, min(kGroupsHeld, groups - g));
                                __syncthreads();
                              }
                              return profile + k * (kCodes * R);
                            }));
    }
  });
}

template <AlignMode kMode>
__global__ void __launch_bounds__(kBlockThreads)
rescore32_kernel(DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* __restrict__ list, uint32_t n,
                 const int32_t* __restrict__ table32, GapConsts gaps, uint2* temp, int32_t* scores,
                 LongPairs long_pairs) {
  __shared__ uint32_t table[24 * kCodes];
  for (int k = threadIdx.x; k < 24 * kCodes; k += blockDim.x) table[k] = uint32_t(table32[k]);
  __syncthreads();
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const uint32_t index = list[t];
  const uint32_t qslot = index / part.size;
  const uint32_t g = part.begin + index % part.size;
  const uint8_t* s = db.residues + db.offsets[g];
  const uint32_t len = db.lengths[g];
  const uint8_t* q = qs.residues + qs.offsets[qslot];
  const uint32_t qlen = qs.lengths[qslot];
  if (uint64_t(qlen) * len >= long_pairs.min_cells &&
      tb_fits_int32(qlen, len, long_pairs.open, long_pairs.extend, long_pairs.max_abs_score)) {
    long_pairs.list[atomicAdd(long_pairs.count, 1u)] = index;
    return;
  }
  auto row_table = [=](uint32_t i) { return table + uint32_t(q[i]) * Exact32::kStride; };
  auto column_index = [=](uint32_t c) { return code_at(s, len, c); };
  const size_t tstride = size_t(gridDim.x) * blockDim.x;
  EndCells ends{gaps.open_extend - gaps.extend, gaps.extend, gaps.open_extend, {len, 0}};
  const uint32_t best = sw_passes<Exact32, kChunk, kMode>(row_table, qlen, column_index, len, temp + t, tstride,
                                                          Exact32::splat(-gaps.open_extend),
                                                          Exact32::splat(-gaps.extend),
                                                          Exact32::splat(-2 * gaps.open_extend), &ends);
  scores[index] = kMode == AlignMode::Local ? int32_t(best) : ends.h[0];
}

__global__ void build_row_groups_kernel(const uint16_t* __restrict__ rows, uint32_t n_rows,
                                        const uint32_t* __restrict__ pair_table, int R, uint32_t* profile) {
  const size_t n = size_t(n_rows) * kCodes;
  for (size_t w = blockIdx.x * size_t(blockDim.x) + threadIdx.x; w < n; w += size_t(gridDim.x) * blockDim.x) {
    const size_t group = w / (kCodes * R), c = (w / R) % kCodes;
    const size_t row = group * R + w % R;
    profile[w] = pair_table[uint32_t(rows[row]) * kCodes + c];
  }
}

template <class Key>
__global__ void make_keys_kernel(DeviceDb db, Partition part, uint32_t n_queries, const int32_t* scores,
                                 TopHitKey<Key> key, Key* keys) {
  const size_t n = size_t(n_queries) * part.size;
  for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < n; k += size_t(gridDim.x) * blockDim.x)
    keys[k] = key.encode(scores[k], db.file_index[part.begin + k % part.size]);
}

// Kernel variants (columns per pass, minimum resident blocks): registers against
// occupancy. HPCALIGN_CUDA_VARIANT picks one for tuning; the first is the default.
// Measured on an H200, 20 queries x 207M residues (TCUPS): c40 4.14, c32 3.94, c48 3.80,
// c64 3.72, c24 3.71, c24b4 3.63, c32b4 3.37 (spills), c16b4 2.91. Wider passes cut the
// per-row overhead and the boundary-strip traffic until registers cap the occupancy.
using Search16Fn = decltype(&search16_kernel<40, 3>);
struct Search16Variant {
  const char* name;
  Search16Fn fn;
};
constexpr Search16Variant kVariants[] = {{"c40", &search16_kernel<40, 3>},
                                         {"c32", &search16_kernel<32, 1>},
                                         {"c48", &search16_kernel<48, 1>},
                                         {"c24", &search16_kernel<24, 1>}};

using Search16QFn = decltype(&search16q_kernel<40, 3>);

// Global and semiglobal modes' subject-pair kernels (the default variant's shape).
Search16Fn search16_mode_kernel_fn(AlignMode mode) {
  static const Search16Fn global = &search16_kernel<40, 3, AlignMode::Global>;
  static const Search16Fn semi = &search16_kernel<40, 3, AlignMode::SemiGlobal>;
  const Search16Fn fn = mode == AlignMode::Global ? global : semi;
  CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kPackedTableBytes));
  return fn;
}

Search16Fn search16_variant() {
  static const Search16Fn fn = [] {
    const char* want = tuning_choice(Tunable::kCudaVariant);
    for (const auto& v : kVariants)
      if (want && std::strcmp(want, v.name) == 0) return v.fn;
    return kVariants[0].fn;
  }();
  CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kPackedTableBytes));
  return fn;
}

Search16QFn search16q_kernel_fn() {
  static const Search16QFn fn = &search16q_kernel<40, 3>;
  CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kQueryPairTableBytes));
  return fn;
}

// The row-group kernel: four rows per step (two: +2-3% against the table kernel on pss, four:
// +7-8%, eight: 3-5% below four), passes of 32 columns (40 spills with four rows; 24 at 4
// blocks per SM and 480 rows of shared memory: even with 32), 3 blocks per SM (H200, pss
// 86 x 2,771 x 1,000; kernels/cuda/NOTES.md).
using Search16PFn = decltype(&search16p_kernel<32, 3, kRowsPerGroup>);

Search16PFn search16p_kernel_fn() {
  static const Search16PFn fn = &search16p_kernel<32, 3, kRowsPerGroup>;
  CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kPairProfileBytes));
  return fn;
}

}  // namespace

void launch_search16p(int grid_blocks, cudaStream_t stream, DeviceDb db, Partition part, DeviceQueryPairProfiles pp,
                      const WorkUnit* units, uint32_t n_units, uint32_t* unit_counter, GapConsts gaps,
                      int overflow_limit, uint64_t long_cells, uint2* temp, int32_t* scores,
                      uint32_t* overflow_list, uint32_t* overflow_count) {
  search16p_kernel_fn()<<<grid_blocks, kBlockThreads, kPairProfileBytes, stream>>>(
      db, part, pp, units, n_units, unit_counter, gaps, overflow_limit, long_cells, temp, scores, overflow_list,
      overflow_count);
  CUDA_CHECK_LAUNCH("search16p_kernel");
}

void launch_search16q(int grid_blocks, cudaStream_t stream, DeviceDb db, Partition part, DeviceQueryPairs qp,
                      const WorkUnit* units, uint32_t n_units, uint32_t* unit_counter, const uint32_t* pair_table,
                      GapConsts gaps, int overflow_limit, uint64_t long_cells, uint2* temp, int32_t* scores,
                      uint32_t* overflow_list, uint32_t* overflow_count) {
  search16q_kernel_fn()<<<grid_blocks, kBlockThreads, kQueryPairTableBytes, stream>>>(
      db, part, qp, units, n_units, unit_counter, pair_table, gaps, overflow_limit, long_cells, temp, scores,
      overflow_list, overflow_count);
  CUDA_CHECK_LAUNCH("search16q_kernel");
}

void launch_search16(int grid_blocks, cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs,
                     const WorkUnit* units, uint32_t n_units, uint32_t* unit_counter,
                     const uint32_t* packed_table, GapConsts gaps, int overflow_limit, uint64_t long_cells,
                     uint2* temp, int32_t* scores, uint32_t* overflow_list, uint32_t* overflow_count,
                     EndScoreFit end_fit) {
  const Search16Fn fn = end_fit.mode == AlignMode::Local ? search16_variant() : search16_mode_kernel_fn(end_fit.mode);
  fn<<<grid_blocks, kBlockThreads, kPackedTableBytes, stream>>>(db, part, qs, units, n_units, unit_counter,
                                                                packed_table, gaps, overflow_limit, long_cells, temp,
                                                                scores, overflow_list, overflow_count, end_fit);
  CUDA_CHECK_LAUNCH("search16_kernel");
}

EndScoreFit packed_end_score_fit(AlignMode mode, int open, int extend, int max_score) {
  // Above the F sentinel, which leaves room for an extension above -32768 (packed_ok_: extend < 4,096).
  return end_score_fit(mode, open, extend, max_score, Packed16::kNegInf);
}

void launch_rescore32(cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* list,
                      uint32_t n, const int32_t* table32, GapConsts gaps, uint2* temp, int32_t* scores,
                      LongPairs long_pairs, AlignMode mode) {
  if (n == 0) return;
  const uint32_t blocks = (n + kBlockThreads - 1) / kBlockThreads;
  const auto kernel = mode == AlignMode::Global       ? rescore32_kernel<AlignMode::Global>
                      : mode == AlignMode::SemiGlobal ? rescore32_kernel<AlignMode::SemiGlobal>
                                                      : rescore32_kernel<AlignMode::Local>;
  kernel<<<blocks, kBlockThreads, 0, stream>>>(db, part, qs, list, n, table32, gaps, temp, scores, long_pairs);
  CUDA_CHECK_LAUNCH("rescore32_kernel");
}

void launch_build_row_groups(cudaStream_t stream, const uint16_t* rows, uint32_t n_rows, const uint32_t* pair_table,
                             uint32_t* profile) {
  const size_t n = size_t(n_rows) * kCodes;
  if (n == 0) return;
  const size_t blocks = std::min<size_t>((n + 255) / 256, 65535);
  build_row_groups_kernel<<<unsigned(blocks), 256, 0, stream>>>(rows, n_rows, pair_table, kRowsPerGroup, profile);
  CUDA_CHECK_LAUNCH("build_row_groups_kernel");
}

template <class Key>
void launch_make_keys(cudaStream_t stream, DeviceDb db, Partition part, uint32_t n_queries, const int32_t* scores,
                      TopHitKey<Key> key, Key* keys) {
  const size_t n = size_t(n_queries) * part.size;
  if (n == 0) return;
  const size_t blocks = std::min<size_t>((n + 255) / 256, 65535);
  make_keys_kernel<Key><<<unsigned(blocks), 256, 0, stream>>>(db, part, n_queries, scores, key, keys);
  CUDA_CHECK_LAUNCH("make_keys_kernel");
}
template void launch_make_keys<uint32_t>(cudaStream_t, DeviceDb, Partition, uint32_t, const int32_t*,
                                         TopHitKey<uint32_t>, uint32_t*);
template void launch_make_keys<uint64_t>(cudaStream_t, DeviceDb, Partition, uint32_t, const int32_t*,
                                         TopHitKey<uint64_t>, uint64_t*);

int search16q_blocks_per_sm() {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, search16q_kernel_fn(), kBlockThreads,
                                                           kQueryPairTableBytes));
  return blocks;
}

int search16p_blocks_per_sm() {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, search16p_kernel_fn(), kBlockThreads,
                                                           kPairProfileBytes));
  return blocks;
}

int search16_blocks_per_sm() {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, search16_variant(), kBlockThreads,
                                                           kPackedTableBytes));
  return blocks;
}

}  // namespace hpc::cuda
