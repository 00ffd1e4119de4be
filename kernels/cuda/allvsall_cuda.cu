// The CUDA all-vs-all engine: pairs sorted by size (similar lengths run side by side in a
// warp) and cut into launches that fit the device memory; per launch one kernel fills the
// DP with 4-bit direction cells (8 per 32-bit word) and a second walks the traceback.
// Pairs whose traceback would take more than a per-pair share of the device, or whose
// values could leave int32, go to the host: the checkpointed reduced-space aligner
// (src/align/reduced_space.hpp), which returns the identical alignment.
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "kernels/cpu/gotoh_scalar.hpp"
#include "kernels/cuda/allvsall_cuda.hpp"
#include "kernels/cuda/allvsall_kernels.cuh"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/packed_scorer.hpp"
#include "src/align/reduced_space.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

using cuda::AvsaPair;
using cuda::AvsaResult;

int kernel_mode(AlignMode m) {
  return m == AlignMode::Local ? cuda::kAvsaLocal : m == AlignMode::Global ? cuda::kAvsaGlobal : cuda::kAvsaSemiGlobal;
}


uint64_t bits_words(uint32_t m, uint32_t n) { return uint64_t(m) * ((n + 7) / 8); }

class CudaAllVsAll : public AllVsAllEngine {
 public:
  CudaAllVsAll(int device, const AllVsAllSetup& setup) : device_(device), setup_(setup) {
    if (!setup_.queries || !setup_.targets) throw Error("allvsall: the cuda engine needs query and target sets");
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaGetDeviceProperties(&prop_, device_));
    CUDA_CHECK(cudaStreamCreate(&stream_));
    qres_.upload(setup_.queries->residues.data(), setup_.queries->residues.size(), stream_);
    if (setup_.targets != setup_.queries) tres_.upload(setup_.targets->residues.data(), setup_.targets->residues.size(), stream_);
    int32_t mat[cuda::kAvsaAlphabet * cuda::kAvsaAlphabet];
    for (int a = 0; a < cuda::kAvsaAlphabet; ++a)
      for (int b = 0; b < cuda::kAvsaAlphabet; ++b) mat[a * cuda::kAvsaAlphabet + b] = setup_.matrix.score[a][b];
    matrix_.upload(mat, cuda::kAvsaAlphabet * cuda::kAvsaAlphabet, stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    threads_per_sm_ = cuda::avsa_fill_threads_per_sm();
    size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    // Most of what is free, leaving room for the other buffers and the runtime.
    launch_budget_ = uint64_t(double(free_bytes) * 0.6);
    // A pair may take an eighth of a launch, so a launch of big pairs still holds several.
    pair_cap_ = setup_.traceback_budget ? setup_.traceback_budget : launch_budget_ / 8;
    host_budget_ = setup_.traceback_budget ? setup_.traceback_budget : (uint64_t(1) << 30);
  }
  ~CudaAllVsAll() override { cudaStreamDestroy(stream_); }

  std::string name() const override { return std::string("cuda: ") + prop_.name; }

  DeviceCapacity capacity() const override {
    DeviceCapacity c;
    c.name = name();
    c.compute_units = prop_.multiProcessorCount;
    c.resident_per_unit = threads_per_sm_;  // one pair per thread
    c.memory_bytes = launch_budget_;
    return c;
  }

  std::vector<int32_t> score(const std::vector<PairIndex>& pairs) override {
    if (setup_.mode == AlignMode::Local) return score_local_packed(pairs);
    std::vector<int32_t> scores(pairs.size());
    std::vector<size_t> device;
    for (size_t k = 0; k < pairs.size(); ++k) {
      const SeqView q = qview(pairs[k]), t = tview(pairs[k]);
      if (gotoh_fits_int32(q, t, setup_.matrix, setup_.gaps))
        device.push_back(k);
      else
        scores[k] = gotoh_score(setup_.mode, q, t, setup_.matrix, setup_.gaps);
    }
    run_device(pairs, device, false, [&](size_t k, const AvsaResult& r, const char*) { scores[k] = r.score; });
    return scores;
  }

  std::vector<Alignment> align(const std::vector<PairIndex>& pairs) override {
    std::vector<Alignment> out(pairs.size());
    std::vector<size_t> device;
    for (size_t k = 0; k < pairs.size(); ++k) {
      const SeqView q = qview(pairs[k]), t = tview(pairs[k]);
      if (gotoh_fits_int32(q, t, setup_.matrix, setup_.gaps) && bits_words(q.length, t.length) * 4 <= pair_cap_) {
        device.push_back(k);
      } else {
        out[k] = reduced_space_align(setup_.mode, q, t, setup_.matrix, setup_.gaps, host_budget_);
        ++reduced_pairs_;
      }
    }
    run_device(pairs, device, true, [&](size_t k, const AvsaResult& r, const char* ops) { out[k] = to_alignment(r, ops); });
    return out;
  }

  uint64_t reduced_space_pairs() const override { return reduced_pairs_; }

 private:
  SeqView qview(const PairIndex& p) const {
    if (p.query >= setup_.queries->size() || p.target >= setup_.targets->size())
      throw Error("allvsall: pair (" + std::to_string(p.query) + ", " + std::to_string(p.target) + ") is outside the sequence sets");
    return setup_.queries->view(p.query);
  }
  SeqView tview(const PairIndex& p) const { return setup_.targets->view(p.target); }
  // Local scores through the search's packed 16-bit kernel (kernels/cuda/packed_scorer.hpp):
  // every query of the tile against every target of the tile, then the tile's pairs picked
  // out. A diagonal tile of a square screen computes both triangles: twice its pairs, but
  // at the packed kernel's rate, which is far above the one-pair-per-thread fill kernel's.
  std::vector<int32_t> score_local_packed(const std::vector<PairIndex>& pairs) {
    CUDA_CHECK(cudaSetDevice(device_));
    if (!packed_) packed_ = std::make_unique<cuda::PackedScorer>(setup_.matrix, setup_.gaps, stream_, prop_);
    // The tile's distinct queries and targets (a linear pass: tiles hold millions of pairs).
    std::vector<uint32_t> qs, ts;
    std::vector<char> q_seen(setup_.queries->size()), t_seen(setup_.targets->size());
    for (const PairIndex& p : pairs) {
      qview(p);
      if (!q_seen[p.query]) q_seen[p.query] = 1, qs.push_back(p.query);
      if (!t_seen[p.target]) t_seen[p.target] = 1, ts.push_back(p.target);
    }
    // Targets shortest first, so the two lanes of a thread and the threads of a unit match.
    std::stable_sort(ts.begin(), ts.end(),
                     [&](uint32_t a, uint32_t b) { return setup_.targets->length(a) < setup_.targets->length(b); });
    std::vector<uint8_t> residues;
    std::vector<uint64_t> offsets;
    std::vector<uint32_t> lengths, tslot(setup_.targets->size()), qslot(setup_.queries->size());
    for (uint32_t k = 0; k < ts.size(); ++k) {
      const SeqView v = setup_.targets->view(ts[k]);
      tslot[ts[k]] = k;
      offsets.push_back(residues.size());
      lengths.push_back(v.length);
      residues.insert(residues.end(), v.data, v.data + v.length);
    }
    residues.push_back(0);  // never an empty upload
    std::vector<SeqView> qviews;
    for (uint32_t k = 0; k < qs.size(); ++k) qslot[qs[k]] = k, qviews.push_back(setup_.queries->view(qs[k]));
    tile_res_.upload(residues.data(), residues.size(), stream_);
    tile_off_.upload(offsets.data(), offsets.size(), stream_);
    tile_len_.upload(lengths.data(), lengths.size(), stream_);
    const uint32_t nt = uint32_t(ts.size());
    packed_->launch({tile_res_.get(), tile_off_.get(), tile_len_.get(), nullptr}, {0, nt}, qviews,
                    [&](uint32_t p) { return lengths[p]; });
    packed_->finish();
    std::vector<int32_t> all(size_t(qs.size()) * nt);
    if (!all.empty())
      CUDA_CHECK(cudaMemcpyAsync(all.data(), packed_->scores(), all.size() * sizeof(int32_t), cudaMemcpyDeviceToHost,
                                 stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<int32_t> scores(pairs.size());
    for (size_t k = 0; k < pairs.size(); ++k) scores[k] = all[size_t(qslot[pairs[k].query]) * nt + tslot[pairs[k].target]];
    return scores;
  }

  const uint8_t* device_targets() const { return setup_.targets == setup_.queries ? qres_.get() : tres_.get(); }

  // The walk's result as the reference aligner reports it (global: leading end gap along
  // the border; coordinates 1-based, 0 for a sequence that contributes nothing).
  Alignment to_alignment(const AvsaResult& r, const char* ops) const {
    Alignment a;
    a.score = r.score;
    if (setup_.mode == AlignMode::Local && r.score == 0) return a;
    std::string rev(ops, r.op_count);
    uint32_t i = r.start_i, j = r.start_j;
    if (setup_.mode == AlignMode::Global) {
      rev.append(i, 'I');
      rev.append(j, 'D');
      i = j = 0;
    }
    a.cigar = cigar_from_reversed_ops(rev.data(), rev.size());
    if (r.end_i >= 1 + i) a.qstart = 1 + i, a.qend = r.end_i;
    if (r.end_j >= 1 + j) a.tstart = 1 + j, a.tend = r.end_j;
    return a;
  }

  // Runs `which` (indices into pairs) on the device in launches that fit launch_budget_,
  // calling done(k, result, ops of pair k) for each.
  template <class Done>
  void run_device(const std::vector<PairIndex>& pairs, std::vector<size_t> which, bool traceback, Done&& done) {
    CUDA_CHECK(cudaSetDevice(device_));
    auto cells = [&](size_t k) { return uint64_t(qview(pairs[k]).length) * tview(pairs[k]).length; };
    std::stable_sort(which.begin(), which.end(), [&](size_t a, size_t b) { return cells(a) > cells(b); });
    const uint64_t max_pairs = std::max<uint64_t>(1, uint64_t(prop_.multiProcessorCount) * threads_per_sm_ * 4);
    for (size_t begin = 0; begin < which.size();) {
      // Grow the launch while its bits, scratch and op buffers fit.
      std::vector<AvsaPair> launch;
      uint64_t words = 0, ops = 0;
      uint32_t max_n = 0;
      size_t end = begin;
      for (; end < which.size() && launch.size() < max_pairs; ++end) {
        const PairIndex& p = pairs[which[end]];
        const SeqView q = qview(p), t = tview(p);
        const uint64_t w = traceback ? bits_words(q.length, t.length) : 0, o = traceback ? q.length + t.length : 0;
        const uint32_t n = std::max(max_n, t.length);
        const uint64_t bytes = (words + w) * 4 + (ops + o) + uint64_t(n + 1) * (launch.size() + 1) * 8 +
                               (launch.size() + 1) * (sizeof(AvsaPair) + sizeof(AvsaResult));
        if (!launch.empty() && bytes > launch_budget_) break;
        launch.push_back({setup_.queries->offsets[p.query], setup_.targets->offsets[p.target], q.length, t.length, words, ops});
        words += w, ops += o, max_n = n;
      }
      const uint32_t np = uint32_t(launch.size());
      pairs_.upload(launch.data(), np, stream_);
      results_.reserve(np);
      scratch_.reserve(size_t(max_n + 1) * np * 2);
      if (traceback) bits_.reserve(std::max<uint64_t>(1, words)), ops_.reserve(std::max<uint64_t>(1, ops));
      cuda::launch_avsa_fill(qres_.get(), device_targets(), pairs_.get(), np, matrix_.get(), setup_.gaps.open,
                             setup_.gaps.extend, kernel_mode(setup_.mode), traceback, max_n, bits_.get(), scratch_.get(),
                             results_.get(), stream_);
      if (traceback)
        cuda::launch_avsa_walk(qres_.get(), device_targets(), pairs_.get(), np, kernel_mode(setup_.mode), bits_.get(),
                               ops_.get(), results_.get(), stream_);
      host_results_.resize(np);
      CUDA_CHECK(cudaMemcpyAsync(host_results_.data(), results_.get(), np * sizeof(AvsaResult), cudaMemcpyDeviceToHost, stream_));
      host_ops_.resize(traceback ? ops : 0);
      if (traceback && ops)
        CUDA_CHECK(cudaMemcpyAsync(host_ops_.data(), ops_.get(), ops, cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      for (uint32_t k = 0; k < np; ++k)
        done(which[begin + k], host_results_[k], traceback ? host_ops_.data() + launch[k].ops_off : nullptr);
      begin = end;
    }
  }

  int device_;
  AllVsAllSetup setup_;
  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;
  int threads_per_sm_ = 0;
  uint64_t launch_budget_ = 0, pair_cap_ = 0, host_budget_ = 0;
  uint64_t reduced_pairs_ = 0;
  cuda::DeviceBuffer<uint8_t> qres_, tres_;
  std::unique_ptr<cuda::PackedScorer> packed_;  // local scores (created on first use)
  cuda::DeviceBuffer<uint8_t> tile_res_;
  cuda::DeviceBuffer<uint64_t> tile_off_;
  cuda::DeviceBuffer<uint32_t> tile_len_;
  cuda::DeviceBuffer<int32_t> matrix_, scratch_;
  cuda::DeviceBuffer<AvsaPair> pairs_;
  cuda::DeviceBuffer<AvsaResult> results_;
  cuda::DeviceBuffer<uint32_t> bits_;
  cuda::DeviceBuffer<char> ops_;
  std::vector<AvsaResult> host_results_;
  std::vector<char> host_ops_;
};

}  // namespace

std::unique_ptr<AllVsAllEngine> make_cuda_allvsall_engine(int device, const AllVsAllSetup& setup) {
  return std::make_unique<CudaAllVsAll>(device, setup);
}

}  // namespace hpc
