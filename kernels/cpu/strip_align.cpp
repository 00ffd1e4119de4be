#include "kernels/cpu/strip_align.hpp"

#include <algorithm>
#include <atomic>
#include <new>
#include <string>
#include <vector>

#include "kernels/cpu/gotoh_scalar.hpp"
#include "kernels/cpu/strip_align_isa.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "src/align/reference.hpp"
#include "src/align/traceback_walk.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"

namespace hpc {
namespace {

using strip_detail::Border;
using strip_detail::Pass;

const strip_detail::Kernels& kernels() {
#if defined(__x86_64__) || defined(__i386__)
  static const strip_detail::Kernels& k =
      simd_isa_supported(SimdIsa::Avx2) ? strip_detail::avx2_kernels() : strip_detail::sse2_kernels();
#else
  static const strip_detail::Kernels& k = strip_detail::sse2_kernels();
#endif
  return k;
}

bool exact_in_int32(SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g) {
  return g.open >= 0 && g.extend >= 0 && gotoh_fits_int32(q, t, m, g);
}

Pass pass_of(AlignMode mode, const uint8_t* q, uint32_t m, const uint8_t* t, uint32_t n, const ScoreMatrix& mat,
             GapCosts g) {
  return Pass{q, m, t, n, &mat, g, mode == AlignMode::Local, mode == AlignMode::Global ? Border::Charged : Border::Zero};
}

}  // namespace

bool strip_align_exact(SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g) { return exact_in_int32(q, t, m, g); }

int32_t strip_score(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& mat, GapCosts g) {
  if (!exact_in_int32(q, t, mat, g)) return reference_score(mode, q, t, mat, g);
  return kernels().end_cell(mode, pass_of(mode, q.data, q.length, t.data, t.length, mat, g)).score;
}

Alignment strip_align(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& mat, GapCosts g,
                      uint64_t traceback_budget) {
  if (!exact_in_int32(q, t, mat, g)) return reference_align(mode, q, t, mat, g);
  const strip_detail::Kernels& k = kernels();
  const strip_detail::EndCell end = k.end_cell(mode, pass_of(mode, q.data, q.length, t.data, t.length, mat, g));
  Alignment a;
  a.score = end.score;
  if (mode == AlignMode::Local && end.score == 0) return a;  // nothing aligned

  // reference.cpp's pass 2 (local): the reversed prefixes anchored at the end cell.
  uint32_t i0 = 1, j0 = 1;
  if (mode == AlignMode::Local) {
    std::vector<uint8_t> rq(q.data, q.data + end.i), rt(t.data, t.data + end.j);
    std::reverse(rq.begin(), rq.end());
    std::reverse(rt.begin(), rt.end());
    Pass anchored = pass_of(mode, rq.data(), end.i, rt.data(), end.j, mat, g);
    anchored.clamp_zero = false;
    anchored.border = Border::Anchored;
    const auto [max_a, max_b] = k.start_bounds(anchored, end.score);
    i0 = end.i - max_a + 1, j0 = end.j - max_b + 1;
  }
  // Pass 3: the 4-bit cells of the rectangle [i0..end.i] x [j0..end.j]. Past the budget, in
  // bands of whole strips recomputed from checkpoint rows, bottom band first (checkpointed
  // traceback, as reduced_space.hpp): a band's cells are the full rectangle's, bit for bit.
  const uint32_t rows = end.i - (i0 - 1), cols = end.j - (j0 - 1);
  const Pass rect = pass_of(mode, q.data + i0 - 1, rows, t.data + j0 - 1, cols, mat, g);
  const uint64_t strips_fit = traceback_budget / (4 * (uint64_t(cols) + strip_detail::kLanes));
  const uint32_t band = uint32_t(std::min<uint64_t>(rows, std::max<uint64_t>(strips_fit, 1) * strip_detail::kLanes));
  const uint32_t bands = rows == 0 ? 0 : (rows + band - 1) / band;
  // Checkpoints: H and F of the row above each band (band 0: the border row).
  std::vector<std::vector<int32_t>> top_h(bands), top_f(bands);
  for (uint32_t b = 1; b < bands; ++b) {
    Pass p = rect;
    p.q += (b - 1) * band, p.m = band, p.row0 = (b - 1) * band;
    if (b > 1) p.top_h = top_h[b - 1].data(), p.top_f = top_f[b - 1].data();
    top_h[b].resize(size_t(cols) + 1), top_f[b].resize(size_t(cols) + 1);
    k.advance(p, top_h[b].data(), top_f[b].data());
  }

  // The walk (tie rules 2 and 3), in rectangle coordinates, band by band.
  traceback::Walk w;
  w.i = rows, w.j = cols;
  std::vector<uint32_t> words;
  for (uint32_t b = bands; b-- > 0 && w.active(0);) {
    // Columns past the walk's are never needed: it never moves right, and the cells left of
    // it do not depend on them.
    Pass p = rect;
    const uint32_t lo = b * band;
    p.q += lo, p.m = w.i - lo, p.n = w.j, p.row0 = lo;
    if (b > 0) p.top_h = top_h[b].data(), p.top_f = top_f[b].data();
    try {
      words.assign(strip_detail::fill_words(p.m, p.n), 0);
    } catch (const std::bad_alloc&) {
      throw Error("traceback band of " + std::to_string(p.m) + " x " + std::to_string(p.n) + " cells (" +
                  std::to_string(strip_detail::fill_words(p.m, p.n) * 4 >> 20) + " MiB) does not fit in memory");
    }
    const int32_t end_h = k.fill(p, words.data());
    if (bands == 1 && end_h != end.score) throw Error("internal error: traceback pass disagrees with score pass");
    while (w.active(lo))
      w.step(strip_detail::fill_cell(words.data(), p.n, w.i - lo, w.j), q.data + i0 - 1, t.data + j0 - 1);
  }
  w.finish(mode, i0, j0, end.i, end.j, a);
  return a;
}

std::vector<Alignment> strip_align_all(AlignMode mode, const std::vector<std::pair<SeqView, SeqView>>& pairs,
                                       const ScoreMatrix& mat, GapCosts g, uint64_t traceback_budget) {
  std::vector<Alignment> out(pairs.size());
  std::atomic<size_t> next{0};
  run_parts(std::max<size_t>(1, std::min(pairs.size(), all_usable_cores())), [&](size_t) {
    for (size_t k; (k = next++) < pairs.size();)
      out[k] = strip_align(mode, pairs[k].first, pairs[k].second, mat, g, traceback_budget);
  });
  return out;
}

}  // namespace hpc
