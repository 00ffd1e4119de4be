// Smith-Waterman score kernels (inter-sequence parallelism, Gotoh affine gaps).
//
// Each thread owns one subject (Exact32) or two subjects in 16-bit lanes (Packed16) and
// sweeps them in passes of kChunk columns held in registers; the query rows stream past
// (one row per iteration, the query letter is the same for the whole block, so its
// substitution row sits at one shared-memory offset). Between passes the last column's
// H and E of every row go to a per-thread strip of global memory, interleaved across
// threads so each warp's accesses coalesce.
#include "kernels/cuda/sw_kernels.hpp"

#include <cstdlib>
#include <cstring>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/sw_ops.cuh"

namespace hpc::cuda {
namespace {

// Residue code of column c of a subject, or the padding code past its end.
__device__ __forceinline__ uint32_t code_at(const uint8_t* s, uint32_t len, uint32_t c) {
  return c < len ? uint32_t(s[c]) : uint32_t(kPadCode);
}

// The DP of one thread over ncols subject columns, in passes of Chunk columns;
// `column_index(c)` gives the table column of subject column c. Returns the per-lane
// maximum of H (>= 0).
//
// Registers per column: hoe = H(i-1,c) - oe and f = F(i-1,c); along the row, ee = E - oe.
// With xp = max(H(i-1,c-1) + s, F, 0), H = max(xp, E), and because every E is below
// some earlier H of its row, the row maximum of H is the maximum of xp and
//   E(i,c+1) - oe = max(ee - ext, xp - 2 oe):
// the serial dependency along the row is a single add-max per cell.
template <class Ops, int Chunk, class ColumnIndex>
__device__ uint32_t sw_passes(const uint8_t* __restrict__ q, uint32_t m, const uint32_t* table,
                              ColumnIndex column_index, uint32_t ncols, uint2* temp, size_t tstride,
                              uint32_t neg_oe, uint32_t neg_ext, uint32_t neg_2oe) {
  uint32_t best = 0;
  for (uint32_t c0 = 0; c0 < ncols; c0 += Chunk) {
    uint32_t col[Chunk], hoe[Chunk], f[Chunk];
#pragma unroll
    for (int r = 0; r < Chunk; ++r) {
      col[r] = column_index(c0 + r);
      hoe[r] = neg_oe;  // row 0: H = 0
      f[r] = neg_oe;    // acts as -infinity: H >= 0 keeps every real F >= -(open+extend)
    }
    const bool first = c0 == 0;
    const bool last = c0 + Chunk >= ncols;
    uint32_t diag_next = neg_oe;
    for (uint32_t i = 0; i < m; ++i) {
      const uint32_t* trow = table + uint32_t(q[i]) * Ops::kStride;
      uint32_t ee = neg_2oe, left = neg_oe;  // column 0: H = 0, so E(i,1) = -oe
      if (!first) {
        const uint2 t = temp[i * tstride];
        left = t.x;
        ee = t.y;
      }
      uint32_t diag = diag_next;
      diag_next = left;
#pragma unroll
      for (int r = 0; r < Chunk; r += 2) {
        f[r] = Ops::add_max(f[r], neg_ext, hoe[r]);
        const uint32_t x0 = Ops::add_max_relu(diag, trow[col[r]], f[r]);
        diag = hoe[r];
        hoe[r] = Ops::add_max(x0, neg_oe, ee);
        ee = Ops::add_max(ee, neg_ext, Ops::add(x0, neg_2oe));

        f[r + 1] = Ops::add_max(f[r + 1], neg_ext, hoe[r + 1]);
        const uint32_t x1 = Ops::add_max_relu(diag, trow[col[r + 1]], f[r + 1]);
        diag = hoe[r + 1];
        hoe[r + 1] = Ops::add_max(x1, neg_oe, ee);
        ee = Ops::add_max(ee, neg_ext, Ops::add(x1, neg_2oe));
        best = Ops::max3_relu(best, x0, x1);
      }
      if (!last) temp[i * tstride] = make_uint2(hoe[Chunk - 1], ee);
    }
  }
  return best;
}

template <int Chunk, int MinBlocks>
__global__ void __launch_bounds__(kBlockThreads, MinBlocks)
search16_kernel(DeviceDb db, Partition part, DeviceQueries qs, const WorkUnit* __restrict__ units,
                uint32_t n_units, uint32_t* unit_counter, const uint32_t* __restrict__ packed_table,
                GapConsts gaps, int overflow_limit, uint2* temp, int32_t* scores, uint32_t* overflow_list,
                uint32_t* overflow_count) {
  extern __shared__ uint32_t table[];
  for (int k = threadIdx.x; k < kPackedTableBytes / 4; k += blockDim.x) table[k] = packed_table[k];
  __shared__ uint32_t unit_index;
  const size_t tstride = size_t(gridDim.x) * blockDim.x;
  uint2* my_temp = temp + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint32_t neg_oe = Packed16::splat(-gaps.open_extend);
  const uint32_t neg_ext = Packed16::splat(-gaps.extend);

  for (;;) {
    __syncthreads();  // table ready / everyone done reading unit_index
    if (threadIdx.x == 0) unit_index = atomicAdd(unit_counter, 1u);
    __syncthreads();
    const uint32_t u = unit_index;
    if (u >= n_units) return;
    const WorkUnit w = units[u];
    const uint32_t pa = 2 * (w.first_pair + threadIdx.x);  // partition-local position of lane 0
    if (pa >= part.size) continue;
    const bool has_b = pa + 1 < part.size;
    const uint32_t ga = part.begin + pa;
    const uint8_t* sa = db.residues + db.offsets[ga];
    const uint32_t la = db.lengths[ga];
    const uint8_t* sb = has_b ? db.residues + db.offsets[ga + 1] : sa;
    const uint32_t lb = has_b ? db.lengths[ga + 1] : 0;
    const uint8_t* q = qs.residues + qs.offsets[w.query];
    const uint32_t m = qs.lengths[w.query];

    auto column_index = [=](uint32_t c) { return code_at(sa, la, c) * kCodes + code_at(sb, lb, c); };
    const uint32_t best = sw_passes<Packed16, Chunk>(q, m, table, column_index, max(la, lb), my_temp, tstride,
                                                     neg_oe, neg_ext, Packed16::splat(-2 * gaps.open_extend));
    const size_t out = size_t(w.query) * part.size + pa;
    for (int k = 0; k < (has_b ? 2 : 1); ++k) {
      const int s = Packed16::lane(best, k);
      if (s >= overflow_limit) {
        scores[out + k] = -1;
        overflow_list[atomicAdd(overflow_count, 1u)] = uint32_t(out + k);
      } else {
        scores[out + k] = s;
      }
    }
  }
}

__global__ void __launch_bounds__(kBlockThreads)
rescore32_kernel(DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* __restrict__ list, uint32_t n,
                 const int32_t* __restrict__ table32, GapConsts gaps, uint2* temp, int32_t* scores) {
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
  auto column_index = [=](uint32_t c) { return code_at(s, len, c); };
  const size_t tstride = size_t(gridDim.x) * blockDim.x;
  const uint32_t best = sw_passes<Exact32, kChunk>(qs.residues + qs.offsets[qslot], qs.lengths[qslot], table,
                                                   column_index, len, temp + t, tstride,
                                                   Exact32::splat(-gaps.open_extend), Exact32::splat(-gaps.extend),
                                                   Exact32::splat(-2 * gaps.open_extend));
  scores[index] = int32_t(best);
}

__global__ void make_keys_kernel(DeviceDb db, Partition part, uint32_t n_queries, const int32_t* scores,
                                 uint64_t* keys) {
  const size_t n = size_t(n_queries) * part.size;
  for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < n; k += size_t(gridDim.x) * blockDim.x) {
    const uint32_t target = db.file_index[part.begin + k % part.size];
    keys[k] = (uint64_t(uint32_t(scores[k])) << 32) | uint64_t(0xFFFFFFFFu - target);
  }
}

// Kernel variants (columns per pass, minimum resident blocks): registers against
// occupancy. HPCALIGN_CUDA_VARIANT picks one for tuning; the first is the default.
// Measured on an H200, 20 queries x 207M residues (TCUPS): c40 4.14, c32 3.94, c48 3.80,
// c64 3.72, c24 3.71, c24b4 3.63, c32b4 3.37 (spills), c16b4 2.91. Wider passes cut the
// per-row overhead and the boundary-strip traffic until registers cap the occupancy.
using Search16Fn = decltype(&search16_kernel<40, 1>);
struct Search16Variant {
  const char* name;
  Search16Fn fn;
};
constexpr Search16Variant kVariants[] = {{"c40", &search16_kernel<40, 1>},
                                         {"c32", &search16_kernel<32, 1>},
                                         {"c48", &search16_kernel<48, 1>},
                                         {"c24", &search16_kernel<24, 1>}};

Search16Fn search16_variant() {
  static const Search16Fn fn = [] {
    const char* want = std::getenv("HPCALIGN_CUDA_VARIANT");
    for (const auto& v : kVariants)
      if (want && std::strcmp(want, v.name) == 0) return v.fn;
    return kVariants[0].fn;
  }();
  CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kPackedTableBytes));
  return fn;
}

}  // namespace

void launch_search16(int grid_blocks, cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs,
                     const WorkUnit* units, uint32_t n_units, uint32_t* unit_counter,
                     const uint32_t* packed_table, GapConsts gaps, int overflow_limit, uint2* temp,
                     int32_t* scores, uint32_t* overflow_list, uint32_t* overflow_count) {
  search16_variant()<<<grid_blocks, kBlockThreads, kPackedTableBytes, stream>>>(
      db, part, qs, units, n_units, unit_counter, packed_table, gaps, overflow_limit, temp, scores, overflow_list,
      overflow_count);
  CUDA_CHECK_LAUNCH("search16_kernel");
}

void launch_rescore32(cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* list,
                      uint32_t n, const int32_t* table32, GapConsts gaps, uint2* temp, int32_t* scores) {
  if (n == 0) return;
  const uint32_t blocks = (n + kBlockThreads - 1) / kBlockThreads;
  rescore32_kernel<<<blocks, kBlockThreads, 0, stream>>>(db, part, qs, list, n, table32, gaps, temp, scores);
  CUDA_CHECK_LAUNCH("rescore32_kernel");
}

void launch_make_keys(cudaStream_t stream, DeviceDb db, Partition part, uint32_t n_queries, const int32_t* scores,
                      uint64_t* keys) {
  const size_t n = size_t(n_queries) * part.size;
  if (n == 0) return;
  const size_t blocks = std::min<size_t>((n + 255) / 256, 65535);
  make_keys_kernel<<<unsigned(blocks), 256, 0, stream>>>(db, part, n_queries, scores, keys);
  CUDA_CHECK_LAUNCH("make_keys_kernel");
}

int search16_blocks_per_sm() {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, search16_variant(), kBlockThreads,
                                                           kPackedTableBytes));
  return blocks;
}

}  // namespace hpc::cuda
