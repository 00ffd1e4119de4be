// Host side of the GPU traceback (see traceback.hpp and traceback_kernels.cu).
#include "kernels/cuda/traceback.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "kernels/cpu/strip_align.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"

namespace hpc::cuda {
namespace {

// Ops come end to start from the walk; the CIGAR runs start to end (as reference.cpp).
std::string cigar_from_reversed(const char* ops, uint32_t n) {
  std::string cigar;
  for (uint32_t k = n; k > 0;) {
    const char op = ops[k - 1];
    uint32_t run = 0;
    while (k > 0 && ops[k - 1] == op) --k, ++run;
    cigar += std::to_string(run);
    cigar += op;
  }
  return cigar;
}

struct TraceItem {
  size_t pair;       // index in the caller's list
  TbPair locate;     // the whole pair
  TbEnd end;
  uint64_t bytes;    // device memory the trace of its rectangle needs
};

}  // namespace

GpuTraceback::GpuTraceback(const ScoreMatrix& matrix, GapCosts gaps, cudaStream_t stream, uint64_t budget)
    : matrix_(matrix), gaps_(gaps), stream_(stream), budget_(budget) {
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

std::vector<Alignment> GpuTraceback::align(const std::vector<std::pair<SeqView, SeqView>>& pairs) {
  stats_ = {};
  std::vector<Alignment> out(pairs.size());
  std::vector<size_t> on_host;

  // Every pair the int32 kernels can take; residues de-duplicated by sequence.
  std::vector<uint8_t> residues;
  std::map<const uint8_t*, uint64_t> placed;
  auto place = [&](SeqView v) {
    auto it = placed.find(v.data);
    if (it != placed.end()) return it->second;
    const uint64_t off = residues.size();
    residues.insert(residues.end(), v.data, v.data + v.length);
    placed.emplace(v.data, off);
    return off;
  };
  std::vector<TraceItem> items;
  std::vector<TbPair> whole;
  for (size_t k = 0; k < pairs.size(); ++k) {
    const SeqView q = pairs[k].first, t = pairs[k].second;
    if (q.length == 0 || t.length == 0) continue;  // score 0, nothing aligned
    if (!int32_safe(q.length, t.length)) {
      on_host.push_back(k);
      continue;
    }
    TraceItem it{};
    it.pair = k;
    it.locate.q_off = place(q);
    it.locate.t_off = place(t);
    it.locate.m = q.length;
    it.locate.n = t.length;
    items.push_back(it);
    whole.push_back(it.locate);
  }
  if (!items.empty()) {
    residues_.upload(residues.data(), residues.size(), stream_);
    const TbResidues res{residues_.get(), residues_.get()};
    const int oe = gaps_.open + gaps_.extend;
    // Pass 1: the end cells, in groups whose boundary columns fit the budget.
    const uint64_t budget = budget_bytes();
    std::vector<TbEnd> ends(items.size());
    for_each_tb_group(whole, budget, [&](size_t begin, std::vector<TbPair>& group) {
      const TbTickets tk = queue_.upload(group, stream_);
      pairs_.upload(group.data(), group.size(), stream_);
      colbuf_.reserve(std::max<uint64_t>(queue_.col_rows(), 1));
      partial_.reserve(queue_.tickets());
      ends_.reserve(group.size());
      launch_tb_ends(stream_, res, pairs_.get(), tk, matrix_dev_.get(), oe, gaps_.extend, colbuf_.get(),
                     partial_.get(), ends_.get());
      CUDA_CHECK(cudaMemcpyAsync(ends.data() + begin, ends_.get(), group.size() * sizeof(TbEnd),
                                 cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
    });

    // Pass 2: the start bounds of the pairs that align, each cut at its end cell.
    std::vector<size_t> aligned;
    std::vector<TbPair> cut;
    std::vector<TbEnd> cut_scores;
    for (size_t k = 0; k < items.size(); ++k) {
      if (ends[k].score == 0) {
        out[items[k].pair] = Alignment{};
        continue;
      }
      TbPair p = items[k].locate;
      p.m = ends[k].i, p.n = ends[k].j;
      aligned.push_back(k);
      cut.push_back(p);
      cut_scores.push_back(ends[k]);
    }
    std::vector<uint32_t> bounds(2 * cut.size());
    for_each_tb_group(cut, budget, [&](size_t begin, std::vector<TbPair>& group) {
      const TbTickets tk = queue_.upload(group, stream_);
      pairs_.upload(group.data(), group.size(), stream_);
      ends_.upload(cut_scores.data() + begin, group.size(), stream_);
      colbuf_.reserve(std::max<uint64_t>(queue_.col_rows(), 1));
      const std::vector<uint32_t> ones(2 * group.size(), 1);
      bounds_.upload(ones.data(), ones.size(), stream_);
      launch_tb_bounds(stream_, res, pairs_.get(), tk, matrix_dev_.get(), oe, gaps_.extend, colbuf_.get(), ends_.get(),
                       bounds_.get());
      CUDA_CHECK(cudaMemcpyAsync(bounds.data() + 2 * begin, bounds_.get(), ones.size() * sizeof(uint32_t),
                                 cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
    });
    for (size_t a = 0; a < aligned.size(); ++a) {
      TbEnd& e = ends[aligned[a]];
      e.rows = bounds[2 * a], e.cols = bounds[2 * a + 1];
    }

    // Pass 3 and the walk: rectangles in batches within the budget, largest first.
    std::vector<TraceItem> todo;
    for (const size_t k : aligned) {
      TraceItem it = items[k];
      it.end = ends[k];
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
      launch_tb_trace(stream_, res, pairs_.get(), tk, matrix_dev_.get(), oe, gaps_.extend,
                      colbuf_.get(), bits_.get(), ops_.get(), walks_.get());
      std::vector<TbWalk> walks(batch.size());
      std::vector<char> op_bytes(ops);
      CUDA_CHECK(cudaMemcpyAsync(walks.data(), walks_.get(), walks.size() * sizeof(TbWalk), cudaMemcpyDeviceToHost,
                                 stream_));
      CUDA_CHECK(cudaMemcpyAsync(op_bytes.data(), ops_.get(), ops, cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      for (size_t b = 0; b < batch.size(); ++b) {
        const TraceItem& it = todo[first + b];
        const TbWalk& w = walks[b];
        if (w.end_h != it.end.score)
          throw Error("internal error: GPU traceback pass disagrees with its score pass (" + std::to_string(w.end_h) +
                      " vs " + std::to_string(it.end.score) + ")");
        Alignment& a = out[it.pair];
        a.score = it.end.score;
        a.cigar = cigar_from_reversed(op_bytes.data() + batch[b].ops_off, w.n_ops);
        const uint32_t i0 = it.end.i - it.end.rows + 1, j0 = it.end.j - it.end.cols + 1;
        const uint32_t qs = i0 + w.i, ts = j0 + w.j;  // first residue consumed, 1-based
        if (it.end.i >= qs) a.qstart = qs, a.qend = it.end.i;
        if (it.end.j >= ts) a.tstart = ts, a.tend = it.end.j;
      }
      stats_.gpu_pairs += batch.size();
      ++stats_.trace_batches;
      first = last;
    }
  }
  stats_.host_pairs = on_host.size();
  std::vector<std::pair<SeqView, SeqView>> host;
  for (const size_t k : on_host) host.push_back(pairs[k]);
  std::vector<Alignment> aligned = strip_align_all(AlignMode::Local, host, matrix_, gaps_);
  for (size_t w = 0; w < on_host.size(); ++w) out[on_host[w]] = std::move(aligned[w]);
  return out;
}

}  // namespace hpc::cuda
