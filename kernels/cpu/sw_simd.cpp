#include "kernels/cpu/sw_simd.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "kernels/cpu/strip_align.hpp"
#include "kernels/cpu/sw_simd_isa.hpp"
#include "src/core/error.hpp"

namespace hpc {

namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr bool kX86 = true;
constexpr sw_detail::GroupKernel avx2_16 = sw_detail::group_scores_avx2_16, avx2_8 = sw_detail::group_scores_avx2_8;
constexpr sw_detail::EndKernel avx2_end = sw_detail::group_end_scores_avx2_16;
#else
constexpr bool kX86 = false;  // the 128-bit kernel runs on NEON through SIMDe; AVX2 is x86's only
constexpr sw_detail::GroupKernel avx2_16 = nullptr, avx2_8 = nullptr;
constexpr sw_detail::EndKernel avx2_end = nullptr;
#endif

// A vector group holding at most 1/kSparseGroup real targets (the last of a short batch, a
// few long targets that saturated) costs its full width per cell; the strip kernel scores
// its pairs one by one in less time (AVX2, 15,000-residue pair: ~2 ns per cell for the
// group, ~0.6 ns for the strip kernel).
constexpr uint32_t kSparseGroup = 8;

// One 32-byte block of the kernels' row state (a vector of either ISA fits in it).
struct alignas(32) VectorBlock {
  uint8_t bytes[32];
};

void check_codes(const SeqView& s, const char* what) {
  uint8_t worst = 0;
  for (uint32_t i = 0; i < s.length; ++i) worst = std::max(worst, s.data[i]);
  if (s.length && worst >= kAlphabetSize)
    throw Error(std::string("sw kernel: ") + what + " holds residue code " + std::to_string(worst) +
                ", outside the alphabet (0.." + std::to_string(kAlphabetSize - 1) + ")");
}

}  // namespace

const char* to_string(SimdIsa isa) {
  switch (isa) {
    case SimdIsa::Scalar: return "scalar";
    case SimdIsa::Sse2: return kX86 ? "sse2" : "neon-simde";
    case SimdIsa::Avx2: return "avx2";
  }
  return "?";
}

bool simd_isa_supported(SimdIsa isa) {
  switch (isa) {
    case SimdIsa::Scalar: return true;
    case SimdIsa::Sse2: return true;  // baseline of x86-64 and of aarch64 (NEON, through SIMDe)
    case SimdIsa::Avx2:
#if defined(__x86_64__) || defined(__i386__)
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
  }
  return false;
}

SimdIsa detect_simd_isa() {
  if (simd_isa_supported(SimdIsa::Avx2)) return SimdIsa::Avx2;
  if (simd_isa_supported(SimdIsa::Sse2)) return SimdIsa::Sse2;
  return SimdIsa::Scalar;
}

int simd_lanes(SimdIsa isa) {
  switch (isa) {
    case SimdIsa::Avx2: return sw_detail::kAvx2Lanes;
    case SimdIsa::Sse2: return sw_detail::kSse2Lanes;
    case SimdIsa::Scalar: return 1;
  }
  return 1;
}

int32_t sw_score_scalar(SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g) {
  // Row by row over the query; H and F of the previous row live in arrays over the
  // target. E and F are floored at 0 like in the vector kernels (a negative gap state
  // can never beat the local floor).
  const int32_t open_extend = g.open + g.extend;
  std::vector<int32_t> h_row(t.length + 1, 0), f_row(t.length + 1, 0);
  int32_t best = 0;
  for (uint32_t i = 0; i < q.length; ++i) {
    const auto& scores = m.score[q.data[i]];
    int32_t diag = 0, h_left = 0, e = 0;
    for (uint32_t j = 1; j <= t.length; ++j) {
      const int32_t f = std::max({f_row[j] - g.extend, h_row[j] - open_extend, 0});
      e = std::max({e - g.extend, h_left - open_extend, 0});
      const int32_t h = std::max({diag + scores[t.data[j - 1]], e, f, 0});
      diag = h_row[j];
      h_row[j] = h;
      f_row[j] = f;
      h_left = h;
      best = std::max(best, h);
    }
  }
  return best;
}

SwTargetBatch::SwTargetBatch(const SeqView* targets, size_t n, int lane_count)
    : lanes_(std::max(lane_count, 1)), targets_(targets, targets + n), order_(n) {
  if (n > UINT32_MAX) throw Error("sw kernel: more than 2^32-1 targets in one batch");
  for (const SeqView& s : targets_) check_codes(s, "target");
  std::iota(order_.begin(), order_.end(), 0u);
  if (lanes_ == 1) return;
  const uint32_t lanes = uint32_t(lanes_);
  // Length order fills each group's lanes with targets of nearly equal length, so
  // little of the vector is spent on padding columns.
  std::stable_sort(order_.begin(), order_.end(),
                   [&](uint32_t a, uint32_t b) { return targets_[a].length < targets_[b].length; });
  for (uint32_t first = 0; first < n; first += lanes) {
    const uint32_t count = std::min<uint32_t>(lanes, uint32_t(n - first));
    const uint32_t longest = targets_[order_[first + count - 1]].length;
    const uint32_t per_pass = sw_detail::kColumnsPerPass;
    const uint32_t ncols = (longest + per_pass - 1) / per_pass * per_pass;
    groups_.push_back({codes_.size(), ncols, first, count});
    codes_.resize(codes_.size() + uint64_t(ncols) * lanes, uint8_t(SwTables::kPadCode));
    uint8_t* cols = codes_.data() + groups_.back().offset;
    for (uint32_t lane = 0; lane < count; ++lane) {
      const SeqView& s = targets_[order_[first + lane]];
      for (uint32_t j = 0; j < s.length; ++j) cols[uint64_t(j) * lanes + lane] = s.data[j];
    }
  }
}

// One vector pass: its kernel, and the lane best from which a score may be saturated.
struct SwScorer::Pass {
  sw_detail::GroupKernel kernel = nullptr;
  int32_t limit = 0;
};

SwScorer::SwScorer(const ScoreMatrix& m, GapCosts g, SimdIsa isa, bool byte_pass)
    : matrix_(m), gaps_(g), isa_(isa) {
  if (!simd_isa_supported(isa))
    throw Error(std::string("sw kernel: this CPU cannot run the ") + to_string(isa) + " kernel");
  const int max_score = std::max(m.max_score(), 0);
  const int min_score = m.min_score();
  const int64_t open_extend = int64_t(g.open) + g.extend;
  SwTables& t = tables_;

  // 16-bit pass. The pad column must score <= 0 against every letter, so a lane's best
  // cannot grow after its target ends (every cell there derives from an earlier one
  // minus something).
  const int pad_score = std::max(std::min(min_score, -1), -128);
  t.fits_int8 = min_score >= -128 && max_score <= 127;
  for (int a = 0; a < kAlphabetSize; ++a) {
    for (int c = 0; c < SwTables::kCodes; ++c) {
      const int s = c < kAlphabetSize ? m.score[a][c] : pad_score;
      t.score16[a][c] = int16_t(std::clamp(s, -32768, 32767));
      if (t.fits_int8) t.shuffle8[a / 2][c / 16][(a % 2) * 16 + c % 16] = int8_t(s);
    }
  }
  vector_ok_ = isa != SimdIsa::Scalar && g.open >= 0 && g.extend >= 0 && open_extend <= 32767 &&
               min_score >= -32768 && max_score < 16384;
  t.gap_open_extend = int16_t(std::clamp<int64_t>(open_extend, 0, 32767));
  t.gap_extend = int16_t(std::clamp(g.extend, 0, 32767));
  t.overflow_limit = 32767 - max_score;

  // 8-bit pass: entries are score + bias >= 0; the pad column is -bias (entry 0).
  const int bias = std::max(-min_score, 1);
  t.byte_limit = 255 - bias - max_score;
  t.byte_pass_ok = vector_ok_ && bias + max_score <= 255 && open_extend <= 255 && t.byte_limit > 0;
  if (t.byte_pass_ok) {
    t.byte_bias = uint8_t(bias);
    t.byte_open_extend = uint8_t(open_extend);
    t.byte_extend = uint8_t(g.extend);
    for (int a = 0; a < kAlphabetSize; ++a) {
      for (int c = 0; c < SwTables::kCodes; ++c) {
        const uint8_t entry = c < kAlphabetSize ? uint8_t(m.score[a][c] + bias) : 0;
        t.byte_score[a][c] = entry;
        t.byte_shuffle[a][c / 16][c % 16] = entry;
        t.byte_shuffle[a][c / 16][16 + c % 16] = entry;
      }
    }
  }
  byte_pass_ = byte_pass && t.byte_pass_ok;
}

int SwScorer::batch_lanes() const {
  if (!vector_ok_) return 1;
  return simd_lanes(isa_) * (byte_pass_ ? 2 : 1);
}

std::string SwScorer::kernel_name() const {
  if (!vector_ok_) return "scalar 32-bit";
  return std::string(to_string(isa_)) + (byte_pass_ ? " 8/16-bit" : " 16-bit");
}

SwTargetBatch SwScorer::make_batch(const SeqView* targets, size_t n) const {
  return SwTargetBatch(targets, n, batch_lanes());
}

void SwScorer::run_pass(const Pass& pass, SeqView query, const SwTargetBatch& batch, const uint32_t* index,
                        int32_t* scores, std::vector<uint32_t>& saturated) const {
  std::vector<VectorBlock> work(2 * size_t(query.length));
  int32_t best[2 * sw_detail::kVectorBytes];
  for (const SwTargetBatch::Group& group : batch.groups_) {
    if (group.count * kSparseGroup <= uint32_t(batch.lanes())) {  // mostly padding: cheaper one by one
      for (uint32_t lane = 0; lane < group.count; ++lane) {
        const uint32_t slot_target = batch.order_[group.first + lane];
        saturated.push_back(index ? index[slot_target] : slot_target);
      }
      continue;
    }
    pass.kernel(tables_, query.data, int(query.length), batch.codes_.data() + group.offset, int(group.ncols),
                work.data(), best);
    for (uint32_t lane = 0; lane < group.count; ++lane) {
      const uint32_t slot_target = batch.order_[group.first + lane];
      const uint32_t k = index ? index[slot_target] : slot_target;
      if (best[lane] >= pass.limit)
        saturated.push_back(k);
      else
        scores[k] = best[lane];
    }
  }
}

void SwScorer::score(SeqView query, const SwTargetBatch& batch, int32_t* scores) const {
  if (batch.lanes() != batch_lanes())
    throw Error("sw kernel: target batch has " + std::to_string(batch.lanes()) + " lanes, the " + kernel_name() +
                " kernel needs " + std::to_string(batch_lanes()));
  check_codes(query, "query");
  if (query.length > uint32_t(std::numeric_limits<int>::max() / 2)) throw Error("sw kernel: query too long");
  const size_t n = batch.size();
  const std::vector<SeqView>& targets = batch.targets_;
  if (batch_lanes() == 1 || query.length == 0) {
    for (size_t k = 0; k < n; ++k) scores[k] = sw_score_scalar(query, targets[k], matrix_, gaps_);
    return;
  }
  const bool avx2 = kX86 && isa_ == SimdIsa::Avx2;
  const Pass words{avx2 ? avx2_16 : sw_detail::group_scores_sse2_16, tables_.overflow_limit};
  const Pass bytes{avx2 ? avx2_8 : sw_detail::group_scores_sse2_8, tables_.byte_limit};
  std::vector<uint32_t> saturated;
  run_pass(byte_pass_ ? bytes : words, query, batch, nullptr, scores, saturated);
  if (byte_pass_ && saturated.size() * kSparseGroup > size_t(simd_lanes(isa_))) {
    // Rerun the byte pass's saturated pairs in 16-bit lanes.
    std::vector<SeqView> again;
    for (uint32_t k : saturated) again.push_back(targets[k]);
    const SwTargetBatch word_batch(again.data(), again.size(), simd_lanes(isa_));
    const std::vector<uint32_t> index = std::move(saturated);
    saturated.clear();
    run_pass(words, query, word_batch, index.data(), scores, saturated);
  }
  // What even 16 bits could not hold, and the pairs of sparse groups: exact 32-bit, a
  // vector over 8 query rows at once.
  for (uint32_t k : saturated) scores[k] = strip_score(AlignMode::Local, query, targets[k], matrix_, gaps_);
}

void SwScorer::score(SeqView query, const SeqView* targets, size_t n, int32_t* scores) const {
  score(query, make_batch(targets, n), scores);
}

int32_t SwScorer::score(SeqView query, SeqView target) const {
  int32_t s = 0;
  score(query, &target, 1, &s);
  return s;
}

SwEndScorer::SwEndScorer(AlignMode mode, const ScoreMatrix& m, GapCosts g, SimdIsa isa)
    : mode_(mode), words_(m, g, isa, /*byte_pass=*/false) {
  if (mode == AlignMode::Local) throw Error("sw kernel: SwEndScorer scores global and semiglobal alignments");
  // The lanes saturate at -32768; substitutions within +-1,000 as the GPU's packed kernel bounds them.
  if (words_.vector_ok_ && m.max_score() <= 1000 && m.min_score() >= -1000)
    fit_ = end_score_fit(mode, g.open, g.extend, m.max_score(), -32768);
  fit_.max_sum = std::min<uint32_t>(fit_.max_sum, 32767);  // lane lengths are int16
}

std::string SwEndScorer::kernel_name() const {
  return fit_.max_sum > 0 ? std::string(to_string(words_.isa_)) + " 16-bit " + (mode_ == AlignMode::Global ? "global" : "semiglobal")
                          : "strip 32-bit";
}

void SwEndScorer::score(SeqView query, const SeqView* targets, size_t n, int32_t* scores) const {
  check_codes(query, "query");
  std::vector<SeqView> lanes;
  std::vector<uint32_t> index;  // lanes[k] is targets[index[k]]
  for (size_t k = 0; k < n; ++k) {
    const SeqView& t = targets[k];
    if (query.length > 0 && t.length > 0 && fit_.max_sum > 0 && fit_.fits(query.length, t.length)) {
      lanes.push_back(t);
      index.push_back(uint32_t(k));
    } else {
      scores[k] = strip_score(mode_, query, t, words_.matrix_, words_.gaps_);
    }
  }
  if (lanes.empty()) return;
  const SwTargetBatch batch(lanes.data(), lanes.size(), simd_lanes(words_.isa_));
  const sw_detail::EndKernel kernel =
      kX86 && words_.isa_ == SimdIsa::Avx2 ? avx2_end : sw_detail::group_end_scores_sse2_16;
  std::vector<VectorBlock> work(2 * size_t(query.length));
  int32_t out[sw_detail::kVectorBytes];
  int16_t lane_len[sw_detail::kVectorBytes];
  for (const SwTargetBatch::Group& group : batch.groups_) {
    const uint32_t* slots = batch.order_.data() + group.first;
    if (group.count * kSparseGroup <= uint32_t(batch.lanes())) {  // mostly padding: cheaper one by one
      for (uint32_t lane = 0; lane < group.count; ++lane)
        scores[index[slots[lane]]] = strip_score(mode_, query, lanes[slots[lane]], words_.matrix_, words_.gaps_);
      continue;
    }
    for (int lane = 0; lane < batch.lanes(); ++lane)
      lane_len[lane] = uint32_t(lane) < group.count ? int16_t(lanes[slots[lane]].length) : 0;
    kernel(words_.tables_, query.data, int(query.length), batch.codes_.data() + group.offset, int(group.ncols), lane_len,
           mode_ == AlignMode::SemiGlobal, work.data(), out);
    for (uint32_t lane = 0; lane < group.count; ++lane) scores[index[slots[lane]]] = out[lane];
  }
}

}  // namespace hpc
