#pragma once
// The GPU SSV filter in 16-bit lanes (kernels/cuda/msv16_kernels.cu) as one lane of
// a warp runs it. Compiled twice: by nvcc into the kernel, and by the host compiler into the
// warp emulator (kernels/cuda/msv16_layout.hpp) that the CPU unit tests
// (tests/unit/msv16_layout_test.cpp) check bit for bit against hmm::msv_filter_score. Plain
// C++ apart from the macros below, so host files may include it.
//
// Recurrence. msv_filters.cpp's ssv_score keeps, per cell, g = max(0, g_diag + w) with
// w = bias - min(cost, 127 + bias) and best = the max of every g, then decides on `best`. One
// instruction does it for two cells: the DPX __viaddmax_s16x2_relu(g_diag, w, 0) =
// max(g_diag + w, 0) per signed 16-bit lane, or fma.rn.relu.f16x2(g_diag, 1, w) on the same
// bits read as fp16 (kF16: see f16_add_relu), with w precomputed in the profile; one more
// (__vimax3_s16x2_relu) folds two words into `best`.
//
// Layout (Farrar's striping over a warp). One warp per target. A "pack" of up to 32 models
// (kMaxModels) shares the warp: its 64 slots (2 per lane: slot s = 2*lane + h, h = 0 the low
// half, h = 1 the high half of every word) hold Q consecutive nodes each, node q of a slot in
// word q of its lane. The diagonal dependency k-1 -> k is then word q-1 -> word q inside the
// lane (no data movement at all) except for q = 0, which takes word Q-1 of the slot before:
// one shuffle + one byte permute per row for the whole lane, instead of one per word.
// Sub-slots: a slot of even Q is cut into 2 sub-slots of Q/2 nodes (subslots(Q); one for odd
// Q), the unit in which models are placed: model j takes ceil(M_j / (Q/2)) consecutive
// sub-slots (sub-slot u = S*s + t, t = 0 the words below Q/2), so it wastes under Q/2 nodes
// where whole slots wasted under Q, and a pack of short and long models fills the warp (the
// kernel's time is per node of the pack, used or not: the test models fill 80% of a Q = 24
// pack in whole slots, 96% of a Q = 20 pack in sub-slots). A sub-slot that starts a model (or
// belongs to none) takes 0 instead of its diagonal input (the k = 0 cell), so models never see
// each other: at word 0 through the permute's selector, at word Q/2 through a per-lane gate
// (kF16: the fma's multiplier, 1.0 or 0.0 per half, so the gate costs nothing; the DPX words
// of the other formats: one AND). Each sub-slot has its own running max, so the max of a model
// is the max over its sub-slots.
// Exactness (same result as ssv_score, hence as the GPU byte kernel, for every target):
//  - Before a model's best reaches T = 127 - bias, all its cells are < T <= 127, so
//    g_diag + w lies in [-127, 253]: nothing saturates, nothing wraps, and the 16-bit value is
//    the CPU's int16 value (and the byte kernel's unsaturated byte: its byte cells saturate
//    only at diag + bias >= 255, i.e. diag >= 255 - bias > T, so only after best >= T).
//  - ssv_score returns as soon as best >= T, with an answer that depends on the model and
//    tjb alone (fallback when base - tjb - tbm < 128, else overflow); best never decreases.
//    The kernel tests best >= T only every kCheckRows rows (and after the last row): a model
//    found there takes that same answer, whatever its cells did after crossing T, since it
//    did cross at some row no later than the check. Its threshold is then lifted (32767) and
//    its cells no longer matter (they feed no other model). Once every model of the pack is
//    decided the warp stops early: for a pack of one model that is ssv_score's early return.
//  - Bounds: at each check, every cell of an undecided model is <= its best < T <= 127, and
//    the cells of decided models are clamped to <= 127 (kCap; a no-op for undecided ones, so
//    it changes nothing that is used). Between two checks a cell grows by at most
//    max(w) <= 127 per row (as a bit pattern in fp16 words too, see f16_add_relu), so every
//    cell, every `best` and every g_diag + w stays within [-127, kCellBound] = [-127, 127 + 64
//    * 127]: the 16-bit adds never wrap, and whether the DPX add wraps or saturates (it
//    wraps: add.s16x2) cannot matter.
//  - w: ssv_score's step bias - min(cost, 127 + bias) lies in [-127, bias]. The profile clamps
//    it to [-127, 127] (so it also fits the signed bytes of the W8/mix profiles); this changes
//    only models with bias > 127, and those always fall back before any row
//    (tjb + tbm + tec + bias >= 127), as in ssv_score.
//  - Padding nodes past a model's M and sub-slots of no model cost kPadW = -127 <= 0: a padding
//    cell max(diag - 127, 0) is <= its diagonal predecessor (a real cell of the same model one
//    row earlier, already counted in its best, or padding, or 0), and feeds only padding cells
//    (the rest of its sub-slot; the next sub-slot starts a model or none).
//  - The after-row rule of ssv_score (xE = base - tjb - tbm + best; overflow when
//    xE >= 255 - bias; fallback when xJ = xE - tec > base) runs on each model's exact best
//    (its max over its own sub-slots), in the same int arithmetic (final_result below).
// A fallback is answered by the full MSV (msv_full16.cuh: HMMER's byte arithmetic in 16-bit
// lanes) on the model's own profile.
#include <climits>
#include <cstddef>
#include <cstdint>

#include "kernels/cuda/lane_code.hpp"

namespace hpc::hmm::msv16 {

constexpr int kLanes = 32;
constexpr int kSlots = 2 * kLanes;
constexpr int kCodes = 24;       // residue rows of MsvProfile::cost (src/core/alphabet.hpp)
constexpr int kMaxModels = 32;   // models per pack: lane j holds model j's parameters and result
// Nodes per slot (words per lane) compiled; the largest bounds the model length (64 x 64).
constexpr int kQs[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64};
// X(Q) for every Q of kQs: the switch cases of the kernel launch and of the host emulator.
#define HPC_MSV16_FOR_EACH_Q(X) \
  X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(10) X(12) X(14) X(16) X(20) X(24) X(28) X(32) X(40) X(48) X(56) X(64)
constexpr int kMaxQ = 64;
constexpr int kMaxModelLength = kSlots * kMaxQ;
constexpr int kMaxSubslots = 2;
// Sub-slots per slot (the unit of model placement) and nodes per sub-slot.
HPC_LANE_FN constexpr int subslots(int q) { return q % 2 ? 1 : 2; }
HPC_LANE_FN constexpr int subslot_nodes(int q) { return q / subslots(q); }
// Chunk counts of the full MSV that answers fallbacks (msv_full16.cuh; the byte kernel's, in
// msv_kernels.cu, alike): 128 nodes per chunk.
constexpr int kByteChunks[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
constexpr int kByteChunkNodes = 128;
// Rows between two tests of best against the thresholds. 64 rather than 32 (H100, test models):
// 2.65 -> 2.62 ms, the test's work (thresholds, votes, clamps) halved; the cells' bound below
// doubles, still far inside int16.
constexpr int kCheckRows = 64;
// The largest cell (and best) between two checks: the clamp's 127 plus kCheckRows rows of at
// most a step (127) each.
constexpr int kCellBound = 127 + kCheckRows * 127;
static_assert(kCellBound < (1 << 15), "cells stay non-negative int16 values: no 16-bit wrap");
constexpr int kPadW = -127;      // w of padding nodes and empty slots
constexpr int kCap = 127;        // clamp of the cells once some model of the pack is decided
constexpr int kNoThreshold = 0x7fff;
constexpr int kNoModel = 0xff;
// Result codes: the xJ byte score (>= 0), or these two.
constexpr int32_t kOverflow = INT_MIN;      // +infinity nats (cuda::kMsvOverflow)
constexpr int32_t kFallback = INT_MIN + 1;  // the full MSV decides (never leaves the kernel)

// Per model of a call (plain data shared by host and kernel).
struct ModelParams {
  uint64_t full_profile = 0;  // first word of its full-MSV profile (msv_full16.cuh) in Args::fprof
  uint64_t targets = 0;       // first entry of its rows in Args::tjb and Args::out (n per model)
  int32_t base = 0, bias = 0, tbm = 0, tec = 0;
  int32_t chunks = 0;         // chunk count of its full-MSV profile (a kByteChunks value)
  int32_t pad = 0;
};

// Lane descriptors, per lane: Pack::lane_models, byte 2t + h: the pack model of sub-slot t of
// the lane's half h (kNoModel: none); Pack::lane_links, bit 2t + h: that sub-slot continues the
// model of the sub-slot before it (its first word reads that sub-slot's last word on the
// diagonal; otherwise it takes 0).
struct Pack {
  uint64_t profile = 0;              // first word of its profile in Args::wprof (a multiple of 4)
  uint32_t q = 0;                    // nodes per slot = words per lane
  uint32_t n_models = 0;
  uint32_t model[kMaxModels] = {};   // call index (ModelParams) of pack model j
  uint32_t lane_models[kLanes] = {};
  uint32_t lane_links[kLanes] = {};
};

struct Args {
  const uint8_t* residues = nullptr;  // whole database, concatenated in Database::by_length order
  const uint64_t* offsets = nullptr;  // sequence p of that order is residues[offsets[p] .. offsets[p+1])
  const uint32_t* wprof = nullptr;    // the packs' w profiles
  const uint32_t* fprof = nullptr;    // the models' full-MSV profiles (fallbacks)
  const Pack* packs = nullptr;        // the packs of this launch (blockIdx.y)
  uint32_t n_packs = 0;
  const ModelParams* models = nullptr;
  const uint8_t* tjb = nullptr;       // per (model, target of the call): MsvProfile::tjb(L)
  int32_t* out = nullptr;             // per (model, target): the xJ byte score, or kOverflow
  uint32_t begin = 0, end = 0;        // by_length positions of the targets
  uint32_t* taken = nullptr;          // per pack of the launch: targets handed out (zero at launch)
};

// ---- profile layout ------------------------------------------------------------------------
// Profile formats (HPCALIGN_MSV_KERNEL): the w of a row word comes either from one int16-pair
// profile word (4 bytes per lane and row word: shared-memory bandwidth) or from half of a
// signed-byte profile word (2 bytes, plus one byte permute: integer work).
//  - kW16: every row word from int16 pairs;
//  - kW8: every row word from bytes;
//  - kMix: the last byte_words(q) = 2 * (q / 8) row words (about a quarter) from bytes, the
//    rest from int16 pairs: the balance of the two costs when both run at 64 lanes per clock.
// A lane's profile words per code: first the int16 words of row words 0 .. Q16-1 (Q16 = q -
// byte_words), then the byte words, byte word j holding row words Q16 + 2j (bytes 0,1: its low
// and high half) and Q16 + 2j + 1 (bytes 2,3).
//  - kF16: the row words from fp16 words (f16_bits), their cells by one HFMA2.RELU each on
//    the FMA pipe, which the other formats leave idle; from q = 10 on, the last
//    byte_words(q) = 2 * (q / 6) (about a third) from bytes on the integer pipe, as in kMix.
//    Both kinds of cell are the same 16-bit pattern (see f16_add_relu), so a row mixes them
//    freely. Measured (H200, MsvGpu.KernelVariantsThroughput, TCUPS per forced q, kF16 against
//    kW16): a third from bytes 12.1 / 11.0 at q = 10 and 12.5 / 11.4 at 24, none 12.1 at 10
//    and 11.6 at 24, half 11.8 at 10 and 11.2 at 24; at q = 8, none 10.1 / 9.6, a quarter 9.0.
enum ProfileFormat : int { kW16 = 0, kMix = 1, kW8 = 2, kF16 = 3 };
// kF16: a third of the row words from bytes from q = 10 on (2 (q / 6)), never sub-slot 1's
// first word (q / 2: the fp16 gate). At q = 20, 8 byte words instead of 6 ran no faster (H100).
HPC_LANE_FN constexpr int f16_byte_words(int q) {
  const int want = q >= 10 ? 2 * (q / 6) : 0, cap = 2 * ((q / 2 - 1) / 2);
  return want < cap ? want : cap;
}
HPC_LANE_FN constexpr int byte_words(int q, int format) {
  return format == kW8 ? q : format == kMix ? 2 * (q / 8) : format == kF16 ? f16_byte_words(q) : 0;
}
HPC_LANE_FN constexpr int words_per_lane(int q, int format) {
  return (q - byte_words(q, format)) + (byte_words(q, format) + 1) / 2;
}
HPC_LANE_FN constexpr size_t profile_words(int q, int format) {
  return size_t(kCodes) * kLanes * size_t(words_per_lane(q, format));
}
// Offset of a lane's profile word j (of P) in one code's 32 * P words: groups of 4 words per
// lane (one 16-byte load, a warp's loads contiguous), then a group of 2, then a single word.
HPC_LANE_FN constexpr int word_offset(int P, int j, int lane) {
  const int full = P & ~3;
  if (j < full) return (j & ~3) * kLanes + lane * 4 + (j & 3);
  if (P - full >= 2 && j < full + 2) return full * kLanes + lane * 2 + (j - full);
  return (P - 1) * kLanes + lane;
}

// The pack model of sub-slot t of half h (kNoModel: none), from Pack::lane_models.
HPC_LANE_FN int model_of(uint32_t models, int t, int h) { return int((models >> (8 * (2 * t + h))) & 0xffu); }
HPC_LANE_FN bool links(uint32_t lane_links, int t, int h) { return (lane_links >> (2 * t + h)) & 1u; }
// Byte selector (prmt) of word 0's diagonal input: a half whose sub-slot 0 continues a model
// takes its diagonal predecessor (low half: bytes 2-3 of `up`, high half: bytes 4-5, the low
// half of `last`); a half that starts a model (or none) takes 0 as two sign copies of byte 3
// (0xB), the top byte of a cell, whose sign bit is always clear (cells lie in [0, kCellBound]). One
// permute then does what a permute and a mask did.
HPC_LANE_FN uint32_t diagonal_selector(uint32_t lane_links) {
  return (links(lane_links, 0, 0) ? 0x0032u : 0x00BBu) | (links(lane_links, 0, 1) ? 0x5400u : 0xBB00u);
}
// The gate of sub-slot 1's first word (word Q/2): per half, its diagonal input passes where the
// sub-slot continues a model and becomes 0 where it starts one. kF16 words take it as the fma's
// multiplier (fp16 1.0 or 0.0: the gate is free), DPX words as an AND mask.
HPC_LANE_FN uint32_t subslot_gate(uint32_t lane_links, bool fp16) {
  const uint32_t pass = fp16 ? 0x3c00u : 0xffffu;
  return (links(lane_links, 1, 0) ? pass : 0u) | (links(lane_links, 1, 1) ? pass << 16 : 0u);
}

// ---- 16x2 arithmetic: the DPX intrinsics on the device, their CUDA definitions on the host ----
HPC_LANE_FN int half(uint32_t w, int h) { return int(int16_t(uint16_t(w >> (16 * h)))); }
HPC_LANE_FN uint32_t pack16(int lo, int hi) { return uint32_t(uint16_t(lo)) | (uint32_t(uint16_t(hi)) << 16); }
HPC_LANE_FN int relu(int v) { return v > 0 ? v : 0; }
HPC_LANE_FN int imax(int a, int b) { return a > b ? a : b; }
HPC_LANE_FN int imin(int a, int b) { return a < b ? a : b; }

// max(a + b, 0) per signed 16-bit lane (__viaddmax_s16x2_relu(a, b, 0): add.s16x2, which
// wraps, then max.s16x2.relu). Our sums never leave [-127, kCellBound], so wrapping never happens.
HPC_LANE_FN uint32_t add_relu(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __viaddmax_s16x2_relu(a, b, 0u);
#else
  const int lo = int(int16_t(uint16_t(half(a, 0) + half(b, 0))));
  const int hi = int(int16_t(uint16_t(half(a, 1) + half(b, 1))));
  return pack16(relu(lo), relu(hi));
#endif
}
// max(a, b, c, 0) per signed 16-bit lane (__vimax3_s16x2_relu).
HPC_LANE_FN uint32_t max3_relu(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
  return __vimax3_s16x2_relu(a, b, c);
#else
  return pack16(relu(imax(imax(half(a, 0), half(b, 0)), half(c, 0))),
                relu(imax(imax(half(a, 1), half(b, 1)), half(c, 1))));
#endif
}
// max(a, b, 0) per signed 16-bit lane (__vimax_s16x2_relu).
HPC_LANE_FN uint32_t max_relu(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __vimax_s16x2_relu(a, b);
#else
  return pack16(relu(imax(half(a, 0), half(b, 0))), relu(imax(half(a, 1), half(b, 1))));
#endif
}
// max(min(a, b), 0) per signed 16-bit lane (__vimin_s16x2_relu).
HPC_LANE_FN uint32_t min_relu(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __vimin_s16x2_relu(a, b);
#else
  return pack16(relu(imin(half(a, 0), half(b, 0))), relu(imin(half(a, 1), half(b, 1))));
#endif
}
// PTX prmt.b32 in its generic mode: result byte n is byte (sel_n & 7) of {b, a}, replaced by
// 8 copies of its sign bit when sel_n & 8 (CUDA's __byte_perm ignores that bit, hence the asm).
// The selector in a register (prmt_r) or as an immediate (prmt<Sel>).
HPC_LANE_FN uint32_t prmt_r(uint32_t a, uint32_t b, uint32_t sel) {
#if defined(__CUDA_ARCH__)
  uint32_t r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
  return r;
#else
  const uint64_t src = (uint64_t(b) << 32) | a;
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) {
    const unsigned s = (sel >> (4 * n)) & 0xfu;
    uint32_t byte = uint32_t(src >> (8 * (s & 7u))) & 0xffu;
    if (s & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
    r |= byte << (8 * n);
  }
  return r;
#endif
}
template <unsigned Sel>
HPC_LANE_FN uint32_t prmt(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  uint32_t r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "n"(Sel));
  return r;
#else
  return prmt_r(a, b, Sel);
#endif
}
// Byte profile word -> row words: signed bytes 0,1 (2,3) sign-extended into the two halves.
HPC_LANE_FN uint32_t w8_even(uint32_t p) { return prmt<0x9180u>(p, 0u); }
HPC_LANE_FN uint32_t w8_odd(uint32_t p) { return prmt<0xB3A2u>(p, 0u); }
// Word 0's diagonal input: low half <- the high half of the lane before (`up`, its word Q-1),
// high half <- my own low half of word Q-1; halves that start a model (or none) get 0
// (`sel`: diagonal_selector).
HPC_LANE_FN uint32_t diagonal_in(uint32_t up, uint32_t last, uint32_t sel) { return prmt_r(up, last, sel); }

// ---- fp16 cells (kF16) ---------------------------------------------------------------------------
// An fp16 bit pattern below 0x0800 is the number pattern * 2^-24 (subnormals, and exponent 1,
// have the same spacing 2^-24), so a cell in [0, 2047] is the same 16 bits as an int16 and as
// an fp16 scaled by 2^-24: the DPX words and the fp16 words of a row pass cells to each other
// unchanged. fma.rn(cell, 1, w) with w = f16_bits(step) is then exact whenever cell + step
// lies in [-2047, 2047], and .relu gives +0 for a negative sum, like the DPX relu. The
// exactness argument (msv16_lane.hpp's head) keeps every cell of an undecided model below
// T <= 127, so there the fp16 cell is the int16 cell. Cells of a decided model may pass 2048
// before the next check; above it the pattern no longer reads as an integer and the sum may
// round, but the result stays a non-negative pattern that grows by at most the step per row
// (the spacing doubles), so the kCellBound bound holds, and those cells feed no other model.
// Non-negative patterns order as integers, so best, thresholds and cap are unchanged.
HPC_LANE_FN uint32_t f16_bits(int w) { return w < 0 ? 0x8000u | uint32_t(-w) : uint32_t(w); }  // |w| <= 2047
// The value of an fp16 pattern in units of 2^-24 (finite patterns).
HPC_LANE_FN int f16_units(uint32_t bits) {
  const int e = int((bits >> 10) & 31u), m = int(bits & 0x3ffu);
  const int v = e == 0 ? m : (1024 + m) << (e - 1);
  return (bits & 0x8000u) ? -v : v;
}
// The fp16 pattern nearest (ties to even) to v >= 0 units of 2^-24 (v < 2^20).
HPC_LANE_FN uint32_t f16_round(int v) {
  if (v < 2048) return uint32_t(v);
  int shift = 1;  // v / 2^shift in [1024, 2048): exponent field shift + 1
  while ((v >> shift) >= 2048) ++shift;
  uint32_t mant = uint32_t(v) >> shift;
  const uint32_t rem = uint32_t(v) & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (mant & 1u))) ++mant;
  if (mant == 2048u) mant = 1024u, ++shift;
  return (uint32_t(shift + 1) << 10) | (mant - 1024u);
}
// max(a * g + w, 0) per fp16 half with the gate g in {1.0, 0.0} (0x3c00, 0): fma.rn.relu.f16x2,
// one HFMA2.RELU. g = 1.0 adds a (exact, as above); g = 0.0 gives max(w, 0), a model's first node
// (a is a finite cell pattern, so a * 0 = +0 exactly).
HPC_LANE_FN uint32_t f16_gated_add_relu(uint32_t a, uint32_t g, uint32_t w) {
#if defined(__CUDA_ARCH__)
  uint32_t r;
  asm("fma.rn.relu.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(g), "r"(w));
  return r;
#else
  uint32_t r = 0;
  for (int h = 0; h < 2; ++h) {
    const int in = ((g >> (16 * h)) & 0xffffu) ? f16_units((a >> (16 * h)) & 0xffffu) : 0;
    const int sum = in + f16_units((w >> (16 * h)) & 0xffffu);
    r |= (sum > 0 ? f16_round(sum) : 0u) << (16 * h);
  }
  return r;
#endif
}
constexpr uint32_t kF16One = 0x3c003c00u;  // the gate that passes both halves
// max(a + w, 0) per fp16 half: fma.rn.relu.f16x2(a, 1, w).
HPC_LANE_FN uint32_t f16_add_relu(uint32_t a, uint32_t w) { return f16_gated_add_relu(a, kF16One, w); }

// ---- one row of one lane ---------------------------------------------------------------------
// A lane's view of a pack profile (P words per lane and code): the bases of its 4-word groups,
// of its 2-word group and of its last single word (loop invariants: one add per row and kind).
template <int P>
struct LaneProfile {
  const uint32_t* prof;
  const char* g4;
  const char* g2;
  const char* g1;
  int lane;
};
template <int P>
HPC_LANE_FN LaneProfile<P> lane_profile(const uint32_t* prof, int lane) {
  constexpr int full = P & ~3;
  return {prof, reinterpret_cast<const char*>(prof + lane * 4),
          reinterpret_cast<const char*>(prof + full * kLanes + lane * 2),
          reinterpret_cast<const char*>(prof + (P - 1) * kLanes + lane), lane};
}
// Byte offset of residue code's profile words (32 * P per code).
template <int P>
HPC_LANE_FN int code_offset(int code) { return code * (kLanes * P * 4); }
// The lane's P profile words of the residue whose words start `off` bytes into the profile
// (code_offset). The groups are read last first: the row is computed from its last word down.
template <int P>
HPC_LANE_FN void load_words(const LaneProfile<P>& lp, int off, uint32_t (&p)[P]) {
#if defined(__CUDA_ARCH__)
  constexpr int full = P & ~3;
  if constexpr ((P - full) & 1) p[P - 1] = *reinterpret_cast<const uint32_t*>(lp.g1 + off);
  if constexpr (P - full >= 2) {
    const uint2 v = *reinterpret_cast<const uint2*>(lp.g2 + off);
    p[full] = v.x, p[full + 1] = v.y;
  }
  HPC_LANE_UNROLL
  for (int b = full - 4; b >= 0; b -= 4) {
    const uint4 v = *reinterpret_cast<const uint4*>(lp.g4 + off + b * kLanes * 4);
    p[b] = v.x, p[b + 1] = v.y, p[b + 2] = v.z, p[b + 3] = v.w;
  }
#else
  for (int j = 0; j < P; ++j) p[j] = lp.prof[off / 4 + word_offset(P, j, lp.lane)];
#endif
}

// The lane's state for one target: the previous row's cells (Q words = 2Q cells) and two
// running maxima: one per sub-slot (two sub-slots), or both of the one sub-slot (odd Q: two
// chains, each half as long; max is associative).
template <int Q>
struct LaneState {
  uint32_t row[Q];
  uint32_t best[2];
};

template <int Q>
HPC_LANE_FN void lane_start(LaneState<Q>& s) {
  HPC_LANE_UNROLL
  for (int q = 0; q < Q; ++q) s.row[q] = 0;
  s.best[0] = s.best[1] = 0;
}

// The running max of sub-slot t (both halves).
template <int Q>
HPC_LANE_FN uint32_t sub_best(const LaneState<Q>& s, int t) {
  return subslots(Q) == 2 ? s.best[t] : max_relu(s.best[0], s.best[1]);
}
template <int Q>
HPC_LANE_FN uint32_t lane_best(const LaneState<Q>& s) { return max_relu(s.best[0], s.best[1]); }

// Folds words [from, to) of the row into the running max m, two words per 3-way max.
template <int Q, int From, int To>
HPC_LANE_FN void fold_max(uint32_t& m, const uint32_t (&row)[Q]) {
  HPC_LANE_UNROLL
  for (int q = From; q + 1 < To; q += 2) m = max3_relu(m, row[q], row[q + 1]);
  if constexpr ((To - From) & 1) m = max_relu(m, row[To - 1]);
}

// One DP row for the residue whose profile words start at byte `off` (code_offset). `up`: the
// lane before's word Q-1 of the previous row (lane 0: its own; its low slot always starts a
// model or is empty, so `sel` (diagonal_selector) takes 0 there); `gate`: subslot_gate.
template <int Q, int Format>
HPC_LANE_FN void lane_row(LaneState<Q>& s, const LaneProfile<words_per_lane(Q, Format)>& lp, int off, uint32_t up,
                           uint32_t sel, uint32_t gate) {
  constexpr int P = words_per_lane(Q, Format);
  constexpr int Q16 = Q - byte_words(Q, Format);
  constexpr int G = subslots(Q) == 2 ? Q / 2 : 0;  // sub-slot 1's first word (0: one sub-slot)
  static_assert(Format != kF16 || G < Q16, "kF16: a sub-slot's first word is an fp16 word (the gate multiplies)");
  uint32_t p[P];
  load_words<P>(lp, off, p);
  uint32_t w[Q];
  HPC_LANE_UNROLL
  for (int q = 0; q < Q; ++q) {
    if (q < Q16) {
      w[q] = p[q];
    } else {
      const uint32_t b = p[Q16 + ((q - Q16) >> 1)];
      w[q] = ((q - Q16) & 1) ? w8_odd(b) : w8_even(b);
    }
  }
  const uint32_t d0 = diagonal_in(up, s.row[Q - 1], sel);
  // kF16's int16 words are fp16 words (f16_add_relu), its byte words and every other format's
  // words DPX ones.
  HPC_LANE_UNROLL
  for (int q = Q - 1; q > 0; --q) {
    const bool fp16 = Format == kF16 && q < Q16;
    if (q == G)
      s.row[q] = fp16 ? f16_gated_add_relu(s.row[q - 1], gate, w[q]) : add_relu(s.row[q - 1] & gate, w[q]);
    else
      s.row[q] = fp16 ? f16_add_relu(s.row[q - 1], w[q]) : add_relu(s.row[q - 1], w[q]);
  }
  s.row[0] = Format == kF16 && 0 < Q16 ? f16_add_relu(d0, w[0]) : add_relu(d0, w[0]);
  if constexpr (G > 0) {
    fold_max<Q, 0, G>(s.best[0], s.row);
    fold_max<Q, G, Q>(s.best[1], s.row);
  } else {
    HPC_LANE_UNROLL
    for (int q = 0; q + 1 < Q; q += 2) s.best[(q >> 1) & 1] = max3_relu(s.best[(q >> 1) & 1], s.row[q], s.row[q + 1]);
    if constexpr (Q & 1) s.best[((Q - 1) >> 1) & 1] = max_relu(s.best[((Q - 1) >> 1) & 1], s.row[Q - 1]);
  }
}

// Clamp every cell to kCap (run at a check once some model of the pack is decided; a no-op on
// the cells of undecided models, which are all < T <= 127 there).
template <int Q>
HPC_LANE_FN void lane_cap(LaneState<Q>& s) {
  const uint32_t cap = pack16(kCap, kCap);
  HPC_LANE_UNROLL
  for (int q = 0; q < Q; ++q) s.row[q] = min_relu(s.row[q], cap);
}

// ---- thresholds and decisions ------------------------------------------------------------------
// T of one model: ssv_score's overflow level 127 - bias.
HPC_LANE_FN int threshold(const ModelParams& m) { return 127 - m.bias; }
// ssv_score's first test: the full MSV decides (always true when bias >= 127).
HPC_LANE_FN bool falls_back_at_start(const ModelParams& m, int tjb) { return tjb + m.tbm + m.tec + m.bias >= 127; }
// ssv_score's answer once best >= T.
HPC_LANE_FN int32_t reached_result(const ModelParams& m, int tjb) {
  return m.base - tjb - m.tbm < 128 ? kFallback : kOverflow;
}
// ssv_score's answer after the last row, best < T.
HPC_LANE_FN int32_t final_result(const ModelParams& m, int tjb, int best) {
  const int xE = m.base - tjb - m.tbm + best;
  if (xE >= 255 - m.bias) return kOverflow;
  const int xJ = xE - m.tec;
  if (xJ > m.base) return kFallback;  // the J state may have been used
  return xJ;
}

// The threshold word of the lane's sub-slot t: per half, T of that sub-slot's model (t_of[2t +
// h]: that model's T), kNoThreshold for no model or a decided one (bit j of `decided`: pack
// model j).
HPC_LANE_FN uint32_t lane_threshold(uint32_t models, const int (&t_of)[2 * kMaxSubslots], uint32_t decided, int t) {
  int v[2];
  for (int h = 0; h < 2; ++h) {
    const int m = model_of(models, t, h);
    v[h] = (m == kNoModel || ((decided >> m) & 1u)) ? kNoThreshold : t_of[2 * t + h];
  }
  return pack16(v[0], v[1]);
}
// The pack models (bit j) whose threshold one of this lane's sub-slots has reached.
template <int Q>
HPC_LANE_FN uint32_t lane_reached(const LaneState<Q>& s, const uint32_t (&thr)[kMaxSubslots], uint32_t models) {
  uint32_t r = 0;
  for (int t = 0; t < subslots(Q); ++t) {
    const uint32_t b = sub_best(s, t);
    for (int h = 0; h < 2; ++h) {
      const int m = model_of(models, t, h);
      if (m != kNoModel && half(b, h) >= half(thr[t], h)) r |= 1u << m;
    }
  }
  return r;
}
// This lane's part of pack model m's best (0 when it holds none of m's sub-slots).
template <int Q>
HPC_LANE_FN int lane_model_best(const LaneState<Q>& s, uint32_t models, int m) {
  int r = 0;
  for (int t = 0; t < subslots(Q); ++t)
    for (int h = 0; h < 2; ++h)
      if (model_of(models, t, h) == m) r = imax(r, half(sub_best(s, t), h));
  return r;
}

// Chunk count (kByteChunks) of the full MSV holding M nodes, 0 when none does.
HPC_LANE_FN constexpr int byte_chunks_for(int M) {
  constexpr int chunks[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};  // kByteChunks (a local: device code too)
  for (int c : chunks)
    if (M <= c * kByteChunkNodes) return c;
  return 0;
}

}  // namespace hpc::hmm::msv16
