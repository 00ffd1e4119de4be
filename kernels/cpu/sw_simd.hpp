#pragma once
// SIMD Smith-Waterman local scores (score only, affine gaps in BLAST's convention).
//
// Technique: SWIPE-style inter-sequence parallelism. One vector holds as many
// different targets as it has lanes (AVX2: 32 bytes or 16 words; SSE2: half that);
// the query is walked one residue at a time. For database search this beats Farrar's striped method: no
// lazy-F loop, no per-pair setup, and length-sorted targets fill the lanes evenly.
// The per-column score profile (24 query letters x lanes) is built on the fly from
// the lanes' target residues.
//
// Passes (as SWIPE does): a first pass in unsigned 8-bit lanes (32 targets per AVX2
// vector) scores most pairs, since unrelated proteins score far below 255; a lane whose
// best reaches 255 - bias - matrix max may have saturated and is rerun in signed 16-bit
// lanes; a 16-bit lane reaching 32767 - matrix max is rescored by the exact 32-bit
// strip kernel (strip_align.hpp), which also scores the pairs of groups that are mostly
// padding. A saturated value is never returned.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/end_score_fit.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

enum class SimdIsa { Scalar, Sse2, Avx2 };
const char* to_string(SimdIsa isa);
bool simd_isa_supported(SimdIsa isa);  // can this CPU run it (and was it compiled in)
SimdIsa detect_simd_isa();             // the fastest supported ISA
int simd_lanes(SimdIsa isa);           // targets aligned at once: 16 / 8 / 1

// Exact 32-bit local score in linear memory: the portable fallback and the rescoring
// path for pairs the 16-bit kernel cannot score exactly.
int32_t sw_score_scalar(SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g);

// Tables the vector kernels read, prepared once per (matrix, gaps).
struct SwTables {
  static constexpr int kPadCode = kAlphabetSize;  // target code of the columns after a target ends
  static constexpr int kCodes = 32;               // target codes padded to one 32-byte row

  // 16-bit pass (signed lanes).
  int16_t score16[kAlphabetSize][kCodes];         // [query letter][target code], pad column included
  // When every score fits a byte: byte shuffle tables for two query letters at once,
  // shuffle8[a/2][0] = {row a codes 0..15, row a+1 codes 0..15}, [1] = codes 16..31.
  alignas(32) int8_t shuffle8[kAlphabetSize / 2][2][32];
  bool fits_int8 = false;
  int16_t gap_open_extend = 0;                    // cost of a gap of length 1
  int16_t gap_extend = 0;
  int32_t overflow_limit = 0;                     // a lane best >= this may have saturated

  // 8-bit first pass (unsigned lanes, scores biased by byte_bias so none is negative).
  bool byte_pass_ok = false;                      // matrix and gaps fit a byte
  uint8_t byte_bias = 0;
  uint8_t byte_open_extend = 0, byte_extend = 0;
  int32_t byte_limit = 0;                         // a lane best >= this reruns in 16 bits
  uint8_t byte_score[kAlphabetSize][kCodes];      // biased; the pad column is 0 (= -bias)
  // byte_shuffle[a][0] = biased row a for codes 0..15, [1] = codes 16..31, each
  // repeated in both 128-bit halves (byte shuffles look up within a half).
  alignas(32) uint8_t byte_shuffle[kAlphabetSize][2][32];
};

// Targets interleaved lane by lane in length order (the layout the vector kernels read),
// built once and scored against many queries. Throws hpc::Error on a code outside the
// alphabet. lanes == 1 keeps the targets as they are (scalar kernel).
class SwTargetBatch {
 public:
  SwTargetBatch(const SeqView* targets, size_t n, int lanes);
  size_t size() const { return targets_.size(); }
  int lanes() const { return lanes_; }

 private:
  friend class SwScorer;
  friend class SwEndScorer;
  struct Group {
    uint64_t offset;  // first code in codes_
    uint32_t ncols;   // columns, each `lanes` codes
    uint32_t first;   // first slot in order_
    uint32_t count;   // real targets (the other lanes are padding)
  };
  int lanes_;
  std::vector<SeqView> targets_;
  std::vector<uint32_t> order_;  // slot -> target index, ascending length
  std::vector<Group> groups_;
  std::vector<uint8_t> codes_;
};

class SwScorer {
 public:
  // Throws hpc::Error when `isa` is not supported by this CPU. byte_pass: score in
  // 8-bit lanes first (twice the lanes) and rerun only saturated pairs in 16 bits.
  SwScorer(const ScoreMatrix& m, GapCosts g, SimdIsa isa = detect_simd_isa(), bool byte_pass = true);

  // The batch layout score() expects; build it once and reuse it for every query.
  SwTargetBatch make_batch(const SeqView* targets, size_t n) const;
  // scores[k] = exact local score of `query` against the batch's k-th target.
  // Throws hpc::Error when the batch was not made by make_batch() of an equal scorer.
  void score(SeqView query, const SwTargetBatch& batch, int32_t* scores) const;
  void score(SeqView query, const SeqView* targets, size_t n, int32_t* scores) const;
  int32_t score(SeqView query, SeqView target) const;

  SimdIsa isa() const { return isa_; }
  int batch_lanes() const;  // lanes of the first pass (32/16 with the byte pass, 16/8 without, 1)
  std::string kernel_name() const;  // "avx2 8/16-bit", "sse2 16-bit", "scalar 32-bit"

 private:
  struct Pass;
  // Scores the batch; target k of the batch is index[k] of the caller (nullptr: k).
  // Saturated lanes are appended to `saturated` (caller's numbering) instead of scored.
  void run_pass(const Pass& pass, SeqView query, const SwTargetBatch& batch, const uint32_t* index,
                int32_t* scores, std::vector<uint32_t>& saturated) const;

  friend class SwEndScorer;  // its 16-bit tables
  ScoreMatrix matrix_;
  GapCosts gaps_;
  SimdIsa isa_;
  bool vector_ok_ = false;  // gaps and scores fit 16-bit lanes
  bool byte_pass_ = false;
  SwTables tables_{};
};

// Global and semiglobal scores: the inter-sequence kernel in signed 16-bit lanes without the
// floor at 0 (sw_simd_kernel.hpp's group_end_scores_generic), each lane's score read where its
// target's last column passes; pairs outside its exact range (kernels/end_score_fit.hpp), of
// sparse groups or with an empty sequence by the strip kernel's exact 32 bits.
class SwEndScorer {
 public:
  SwEndScorer(AlignMode mode, const ScoreMatrix& m, GapCosts g, SimdIsa isa = detect_simd_isa());
  // scores[k] = the mode's exact score of `query` against targets[k].
  void score(SeqView query, const SeqView* targets, size_t n, int32_t* scores) const;
  std::string kernel_name() const;
  int batch_lanes() const { return words_.batch_lanes(); }

 private:
  AlignMode mode_;
  SwScorer words_;  // the 16-bit tables, ISA and range (no byte pass)
  EndScoreFit fit_;
};

}  // namespace hpc
