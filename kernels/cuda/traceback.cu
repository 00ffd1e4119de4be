// Host side of the GPU traceback (see traceback.hpp and traceback_kernels.cu).
#include "kernels/cuda/traceback.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "kernels/cpu/strip_align.hpp"
#include "src/align/traceback_walk.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"

namespace hpc::cuda {
namespace {

struct TraceItem {
  size_t pair;       // index in the caller's list
  TbPair locate;     // the whole pair
  TbEnd end;         // end cell and rectangle (global: the whole pair)
  uint64_t bytes;    // device memory the trace of its rectangle needs
};

}  // namespace

// The pairs the int32 kernels take, their residues on the device (de-duplicated by sequence).
struct GpuTraceback::Placed {
  std::vector<size_t> index;    // the caller's index of each pair in `whole`
  std::vector<TbPair> whole;
  std::vector<size_t> on_host;  // the caller's indices of the pairs the host takes
};

GpuTraceback::GpuTraceback(AlignMode mode, const ScoreMatrix& matrix, GapCosts gaps, cudaStream_t stream,
                           uint64_t budget)
    : mode_(mode), matrix_(matrix), gaps_(gaps), stream_(stream), budget_(budget) {
  static_assert(kTbAlphabet == kAlphabetSize, "the kernels index the substitution table by alphabet code");
  std::vector<int32_t> flat(kTbAlphabet * kTbAlphabet);
  for (int a = 0; a < kTbAlphabet; ++a)
    for (int b = 0; b < kTbAlphabet; ++b) flat[a * kTbAlphabet + b] = matrix(uint8_t(a), uint8_t(b));
  matrix_dev_.upload(flat.data(), flat.size(), stream_);
}

bool GpuTraceback::int32_safe(uint32_t m, uint32_t n) const {
  const int max_abs = std::max(std::abs(matrix_.max_score()), std::abs(matrix_.min_score()));
  return tb_fits_int32(m, n, gaps_.open, gaps_.extend, max_abs);
}

uint64_t GpuTraceback::budget_bytes() const {
  if (const auto bytes = tuning_number(Tunable::kCudaTracebackBytes)) return uint64_t(*bytes);
  if (budget_) return budget_;
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return (free_b + bits_.capacity() * sizeof(uint32_t)) / 2;
}

GpuTraceback::Placed GpuTraceback::place(const Pairs& pairs) {
  Placed pl;
  std::vector<uint8_t> residues;
  std::map<const uint8_t*, uint64_t> placed;
  auto place_seq = [&](SeqView v) {
    auto it = placed.find(v.data);
    if (it != placed.end()) return it->second;
    const uint64_t off = residues.size();
    residues.insert(residues.end(), v.data, v.data + v.length);
    placed.emplace(v.data, off);
    return off;
  };
  for (size_t k = 0; k < pairs.size(); ++k) {
    const SeqView q = pairs[k].first, t = pairs[k].second;
    if (q.length == 0 || t.length == 0) {
      if (mode_ != AlignMode::Local) pl.on_host.push_back(k);  // an end gap; local: score 0, nothing aligned
      continue;
    }
    if (!int32_safe(q.length, t.length)) {
      pl.on_host.push_back(k);
      continue;
    }
    TbPair p;
    p.q_off = place_seq(q);
    p.t_off = place_seq(t);
    p.m = q.length;
    p.n = t.length;
    pl.index.push_back(k);
    pl.whole.push_back(p);
  }
  if (!residues.empty()) residues_.upload(residues.data(), residues.size(), stream_);
  return pl;
}

// Pass 1: the end cells, in groups whose boundary columns fit the budget.
std::vector<TbEnd> GpuTraceback::find_ends(const std::vector<TbPair>& whole, TbResidues res, uint64_t budget) {
  const int oe = gaps_.open + gaps_.extend;
  std::vector<TbEnd> ends(whole.size());
  for_each_tb_group(whole, budget, [&](size_t begin, std::vector<TbPair>& group) {
    const TbTickets tk = queue_.upload(group, stream_);
    pairs_.upload(group.data(), group.size(), stream_);
    colbuf_.reserve(std::max<uint64_t>(queue_.col_rows(), 1));
    partial_.reserve(queue_.tickets());
    ends_.reserve(group.size());
    launch_tb_ends(stream_, mode_, res, pairs_.get(), tk, matrix_dev_.get(), oe, gaps_.extend, colbuf_.get(),
                   partial_.get(), ends_.get());
    CUDA_CHECK(cudaMemcpyAsync(ends.data() + begin, ends_.get(), group.size() * sizeof(TbEnd), cudaMemcpyDeviceToHost,
                               stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  });
  return ends;
}

// Pass 2 (local): each pair cut at its end cell, swept back from it; sets ends[k].rows and .cols.
void GpuTraceback::find_start_bounds(const std::vector<TbPair>& whole, std::vector<TbEnd>& ends, TbResidues res,
                                     uint64_t budget) {
  const int oe = gaps_.open + gaps_.extend;
  std::vector<TbPair> cut(whole);
  for (size_t k = 0; k < cut.size(); ++k) cut[k].m = ends[k].i, cut[k].n = ends[k].j;
  std::vector<uint32_t> bounds(2 * cut.size());
  for_each_tb_group(cut, budget, [&](size_t begin, std::vector<TbPair>& group) {
    const TbTickets tk = queue_.upload(group, stream_);
    pairs_.upload(group.data(), group.size(), stream_);
    ends_.upload(ends.data() + begin, group.size(), stream_);
    colbuf_.reserve(std::max<uint64_t>(queue_.col_rows(), 1));
    const std::vector<uint32_t> ones(2 * group.size(), 1);
    bounds_.upload(ones.data(), ones.size(), stream_);
    launch_tb_bounds(stream_, res, pairs_.get(), tk, matrix_dev_.get(), oe, gaps_.extend, colbuf_.get(), ends_.get(),
                     bounds_.get());
    CUDA_CHECK(cudaMemcpyAsync(bounds.data() + 2 * begin, bounds_.get(), ones.size() * sizeof(uint32_t),
                               cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  });
  for (size_t k = 0; k < ends.size(); ++k) ends[k].rows = bounds[2 * k], ends[k].cols = bounds[2 * k + 1];
}

std::vector<int32_t> GpuTraceback::scores(const Pairs& pairs) {
  stats_ = {};
  std::vector<int32_t> out(pairs.size(), 0);
  const Placed pl = place(pairs);
  if (!pl.whole.empty()) {
    const std::vector<TbEnd> ends = find_ends(pl.whole, TbResidues{residues_.get(), residues_.get()}, budget_bytes());
    for (size_t k = 0; k < ends.size(); ++k) out[pl.index[k]] = ends[k].score;
  }
  stats_.gpu_pairs = pl.whole.size();
  stats_.host_pairs = pl.on_host.size();
  for (const size_t k : pl.on_host) out[k] = strip_score(mode_, pairs[k].first, pairs[k].second, matrix_, gaps_);
  return out;
}

std::vector<Alignment> GpuTraceback::align(const Pairs& pairs) {
  stats_ = {};
  std::vector<Alignment> out(pairs.size());
  const Placed pl = place(pairs);
  std::vector<size_t> on_host = pl.on_host;
  if (!pl.whole.empty()) {
    const TbResidues res{residues_.get(), residues_.get()};
    const int oe = gaps_.open + gaps_.extend;
    const uint64_t budget = budget_bytes();
    // The rectangle of each pair that aligns: local, from its start bounds to its end cell;
    // semiglobal, from (1, 1) to its end cell; global, the whole pair (its score from pass 3).
    std::vector<size_t> aligned;  // places in pl.whole
    std::vector<TbEnd> ends;
    if (mode_ == AlignMode::Global) {
      for (size_t k = 0; k < pl.whole.size(); ++k) {
        const TbPair& p = pl.whole[k];
        aligned.push_back(k);
        ends.push_back(TbEnd{0, p.m, p.n, p.m, p.n});
      }
    } else {
      const std::vector<TbEnd> all = find_ends(pl.whole, res, budget);
      std::vector<TbPair> cut;
      for (size_t k = 0; k < all.size(); ++k) {
        if (all[k].score == 0) continue;  // nothing aligned: Alignment{} (score 0)
        aligned.push_back(k);
        ends.push_back(TbEnd{all[k].score, all[k].i, all[k].j, all[k].i, all[k].j});
        cut.push_back(pl.whole[k]);
      }
      if (mode_ == AlignMode::Local) find_start_bounds(cut, ends, res, budget);
    }

    // Pass 3 and the walk: rectangles in batches within the budget, largest first.
    std::vector<TraceItem> todo;
    for (size_t a = 0; a < aligned.size(); ++a) {
      TraceItem it{pl.index[aligned[a]], pl.whole[aligned[a]], ends[a], 0};
      it.bytes = tb_bits_words(it.end.rows, it.end.cols) * sizeof(uint32_t) + it.end.rows + it.end.cols +
                 uint64_t(tb_stripes(it.end.cols)) * it.end.rows * sizeof(int2);
      if (it.bytes > budget) on_host.push_back(it.pair);
      else todo.push_back(it);
    }
    std::stable_sort(todo.begin(), todo.end(), [](const TraceItem& a, const TraceItem& b) { return a.bytes > b.bytes; });
    for (size_t first = 0; first < todo.size();) {
      size_t last = first;
      uint64_t bytes = 0, words = 0, ops = 0;
      std::vector<TbPair> batch;
      while (last < todo.size() && (last == first || bytes + todo[last].bytes <= budget)) {
        const TraceItem& it = todo[last++];
        TbPair p;
        p.q_off = it.locate.q_off + (it.end.i - it.end.rows);  // first row i0 = i - rows + 1 (1-based)
        p.t_off = it.locate.t_off + (it.end.j - it.end.cols);
        p.m = it.end.rows;
        p.n = it.end.cols;
        p.bits_off = words;
        p.ops_off = ops;
        words += tb_bits_words(p.m, p.n);
        ops += uint64_t(p.m) + p.n;
        bytes += it.bytes;
        batch.push_back(p);
      }
      const TbTickets tk = queue_.upload(batch, stream_);
      pairs_.upload(batch.data(), batch.size(), stream_);
      colbuf_.reserve(std::max<uint64_t>(queue_.col_rows(), 1));
      bits_.reserve(words);
      ops_.reserve(std::max<uint64_t>(ops, 1));
      walks_.reserve(batch.size());
      launch_tb_trace(stream_, mode_, res, pairs_.get(), tk, matrix_dev_.get(), oe, gaps_.extend, colbuf_.get(),
                      bits_.get(), ops_.get(), walks_.get());
      std::vector<TbWalk> walks(batch.size());
      std::vector<char> op_bytes(ops);
      CUDA_CHECK(cudaMemcpyAsync(walks.data(), walks_.get(), walks.size() * sizeof(TbWalk), cudaMemcpyDeviceToHost,
                                 stream_));
      CUDA_CHECK(cudaMemcpyAsync(op_bytes.data(), ops_.get(), ops, cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      for (size_t b = 0; b < batch.size(); ++b) {
        const TraceItem& it = todo[first + b];
        const TbWalk& w = walks[b];
        if (mode_ != AlignMode::Global && w.end_h != it.end.score)
          throw Error("internal error: GPU traceback pass disagrees with its score pass (" + std::to_string(w.end_h) +
                      " vs " + std::to_string(it.end.score) + ")");
        // The host's walk finishes it (global's leading end gap, coordinates), as the reference's.
        traceback::Walk walk;
        walk.i = w.i, walk.j = w.j;
        walk.ops.assign(op_bytes.data() + batch[b].ops_off, w.n_ops);
        Alignment& a = out[it.pair];
        a.score = w.end_h;
        walk.finish(mode_, it.end.i - it.end.rows + 1, it.end.j - it.end.cols + 1, it.end.i, it.end.j, a);
      }
      stats_.gpu_pairs += batch.size();
      ++stats_.trace_batches;
      first = last;
    }
  }
  stats_.host_pairs = on_host.size();
  Pairs host;
  for (const size_t k : on_host) host.push_back(pairs[k]);
  std::vector<Alignment> aligned = strip_align_all(mode_, host, matrix_, gaps_);
  for (size_t w = 0; w < on_host.size(); ++w) out[on_host[w]] = std::move(aligned[w]);
  return out;
}

}  // namespace hpc::cuda
