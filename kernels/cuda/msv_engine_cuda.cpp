#include "kernels/cuda/msv_engine_cuda.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "kernels/cpu/thread_pool.hpp"
#include "kernels/cuda/bias_cuda.hpp"
#include "kernels/cuda/msv_cuda.hpp"
#include "kernels/cuda/vit_cuda.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/tuning.hpp"

namespace hpc {
namespace {

// Codes below cut(L) fail the MSV filter at target length L: the lowest kernel code that
// passes (bisection over the 256 codes with the pipeline's own test) less one code. A code's
// score in nats never falls as the code rises, nor does passing, so a pair is decided by its
// code alone, no float made for it (the ones at or above the cut are decided by the full test
// on their score). Remembers the last length: a batch's targets come length-sorted. The
// next length's lowest passing code is mostly the last one's or a neighbour: it is searched
// from there (two tests) before bisecting (eight); passing is monotone in the code, so both
// find the same code.
class MsvCut {
 public:
  MsvCut(const hmm::ModelFilters& f, const hmm::FilterSettings& s) : f_(f), s_(s) {}
  // The overflow and CPU-twin codes (negative) are never below the cut.
  bool fails(int L, int32_t code) {
    if (L != length_) length_ = L, code_ = lowest_passing(L, code_);
    return code >= 0 && code < code_ - 1;
  }
  // After fails(L, code): whether the pair passes for sure (a code above the lowest passing
  // one; by the same monotony), so that its P-value is made once, by the bias stage, not also
  // here. The codes at the cut's edges (lowest less one, lowest) take the full test.
  bool surely_passes(int32_t code) const { return code >= 0 && code_ < 256 && code > code_; }

 private:
  bool passes(int L, int code) const { return hmm::msv_filter_passes(f_, L, hmm::MsvCuda::nats(f_.msv, code, L), s_); }
  // The lowest passing code at L (256: none passes), near `guess` when that is one (-1: none).
  int lowest_passing(int L, int guess) const {
    int lo = 0, hi = 256;  // the lowest passing code is in [lo, hi]
    if (guess >= 0) {  // narrow [lo, hi] around the guess by a step either way first
      const int at = std::min(guess, 255);
      if (passes(L, at)) {
        hi = at;
        if (at > 0 && !passes(L, at - 1)) return at;
        lo = 0, hi = at - (at > 0);
        if (at > 1 && !passes(L, at - 2)) return at - 1;
      } else {
        lo = at + 1;
        if (lo < 256 && passes(L, lo)) return lo;
        lo += lo < 256;
      }
    }
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (passes(L, mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }
  const hmm::ModelFilters& f_;
  const hmm::FilterSettings& s_;
  int length_ = -1;
  int code_ = -1;
};

// One engine's first MSV call at a time a GPU. A worker's first tile has no look-ahead, and a
// GPU's 16 workers launch their first tiles (the plan's largest) together: sharing the GPU, they
// all got their codes only ~0.6-0.7 s in, their cores idle until then. One after the other,
// each worker starts its survivors as soon as its own codes are back (2 x H200, 2,000 models x
// 207 M residues: the tile phase 4.72-4.93 s against 4.94-5.17 s; one GPU 8.81-8.85 against
// 9.01-9.06 s). Every call gated was no faster than none: later tiles keep the GPU busier
// side by side.
std::mutex& first_call_gate(int device) {
  static std::mutex guard;
  static std::map<int, std::mutex> gates;  // a map's nodes stay where they are
  std::lock_guard<std::mutex> lk(guard);
  return gates[device];
}

// A tile's models on the GPU: the MSV filter of every (model, target) in one launch, the
// P-values on a host thread pool (the shared pipeline code), the bias filter of the pairs past
// MSV in one GPU call, then the Viterbi filter of the bias survivors of all the tile's models
// in one GPU call.
class CudaMsvEngine : public MsvEngine {
 public:
  CudaMsvEngine(int device, int host_threads, const MsvSetup& setup)
      : setup_(setup),
        device_(device),
        gpu_(device, *setup.db),
        vit_(device, *setup.db),
        bias_(device, *setup.db),
        bias_gpu_(std::string(tuning_choice(Tunable::kHmmBias)) == "device"),
        pool_(host_threads) {}
  DeviceCapacity capacity() const override {
    DeviceCapacity c;
    c.name = "cuda device " + std::to_string(device_) + " (MSV, bias and Viterbi filters on the GPU)";
    return c;
  }
  // The tile's models in one GPU launch (models too long for the kernel: the CPU twin).
  MsvTileResult run(const Tile& tile) override {
    MsvTileResult r;
    std::vector<uint32_t> models;
    std::vector<const hmm::MsvProfile*> profiles;
    for (uint32_t m : tile.queries) {
      if (setup_.filters->at(m).msv.M > hmm::MsvCuda::max_model_length()) {
        msv_model_cpu(setup_, tile, m, r, ws_);
      } else {
        models.push_back(m);
        profiles.push_back(&(*setup_.filters)[m].msv);
      }
    }
    StageClock clock;
    // The kernels' codes, each made a score in nats only where the cut below passes it on.
    std::unique_lock<std::mutex> gate(first_call_gate(device_), std::defer_lock);
    if (first_call_) gate.lock(), first_call_ = false;
    const hmm::MsvCodes& codes = gpu_.codes(profiles, tile.part_begin, tile.part_end);
    if (gate.owns_lock()) gate.unlock();
    const auto usc = [&](size_t k, size_t i) { return codes.nats(*profiles[k], k, i); };
    clock.mark("msv");
    const size_t n = tile.part_end - tile.part_begin;
    auto view = [&](size_t i) { return setup_.db->seqs.view(setup_.db->by_length[tile.part_begin + i]); };
    // The tile's target lengths in order (the device database's host copy): a target's
    // sequence is looked up only for the pairs past the cut test below.
    const uint32_t* lengths = gpu_.lengths() + tile.part_begin;
    // Pass 1 (host pool): MSV P-values, and the bias filter there unless the GPU runs it (then
    // only the pairs past the MSV filter are marked). Without --all, a pair below its length's
    // MSV cut fails for sure and is only counted: ~98% of the pairs then cost a comparison
    // instead of a log, an exp and a result. Each batch keeps its own list, joined in batch
    // order (the same result for any thread count).
    const size_t batches = batch_count(n);
    std::vector<std::vector<Scored>> lists(models.size() * batches);
    for_batches(models.size(), n, [&](size_t k, size_t first, size_t last) {
      const hmm::ModelFilters& f = (*setup_.filters)[models[k]];
      MsvCut cut(f, setup_.settings);
      std::vector<Scored>& list = lists[k * batches + first / kBatch];
      for (size_t i = first; i < last; ++i) {
        const int L = int(lengths[i]);
        if (!setup_.all_pairs && cut.fails(L, codes.code[k * n + i])) continue;
        Scored sp{uint32_t(i), {}, false};
        if (!bias_gpu_)
          sp.r = hmm::run_filters_until_viterbi(f, view(i).data, L, usc(k, i), setup_.settings);
        else
          sp.needs_bias = (!setup_.all_pairs && cut.surely_passes(codes.code[k * n + i])) ||
                          hmm::msv_filter_passes(f, L, usc(k, i), setup_.settings);
        list.push_back(sp);
      }
    });
    std::vector<std::vector<Scored>> scored(models.size());  // per model, in target order
    for (size_t k = 0; k < models.size(); ++k)
      for (size_t b = 0; b < batches; ++b)
        scored[k].insert(scored[k].end(), lists[k * batches + b].begin(), lists[k * batches + b].end());
    clock.mark("pvalues");
    if (bias_gpu_) bias_on_gpu(tile, models, usc, scored);
    clock.mark("bias");
    // Pass 2: the Viterbi filter scores of the pairs it decides, every model of the tile in
    // one GPU call that reads the targets by position from the GPU's database (models longer
    // than the Viterbi kernel: the CPU twin), then their verdict.
    std::vector<hmm::VitGroup> groups;
    std::vector<int> group_of(models.size(), -1);  // -1: too long for the kernel, CPU twin
    std::vector<std::vector<uint32_t>> cand(models.size());  // indices into scored[k]
    for (size_t k = 0; k < models.size(); ++k) {
      for (uint32_t j = 0; j < scored[k].size(); ++j)
        if (scored[k][j].r.needs_viterbi) cand[k].push_back(j);
      const hmm::VitProfile& vp = (*setup_.filters)[models[k]].vit;
      if (cand[k].empty() || vp.M > hmm::VitCuda::max_model_length()) continue;
      group_of[k] = int(groups.size());
      groups.push_back({&vp, {}});
      for (uint32_t j : cand[k]) groups.back().positions.push_back(uint32_t(tile.part_begin + scored[k][j].i));
    }
    clock.mark("select");
    const std::vector<std::vector<float>> vit = vit_.scores(groups);
    clock.mark("vit");
    for (size_t k = 0; k < models.size(); ++k) {
      const hmm::ModelFilters& f = (*setup_.filters)[models[k]];
      const int g = group_of[k];
      for_pairs(1, cand[k].size(), [&](size_t, size_t c, hmm::FilterWorkspace& ws) {
        Scored& sp = scored[k][cand[k][c]];
        float vit_nats = 0;
        if (g >= 0) {
          vit_nats = vit[size_t(g)][c];
        } else {
          const SeqView v = view(sp.i);
          vit_nats = hmm::viterbi_filter_score(f.vit, v.data, int(v.length), ws);
        }
        sp.r = hmm::finish_viterbi(f, sp.r, vit_nats, setup_.settings);
      });
    }
    clock.mark("after-vit");
    for (size_t k = 0; k < models.size(); ++k) {
      MsvModelCounts c;
      c.model = models[k];
      for (const Scored& sp : scored[k]) msv_count_pair(setup_, r, c, setup_.db->by_length[tile.part_begin + sp.i], sp.r);
      c.targets += n - scored[k].size();  // the pairs below the cut: counted, failed at MSV
      r.counts.push_back(c);
    }
    clock.mark("count");
    clock.report("msv tile");
    return r;
  }

  // A pair the pipeline looked at: its position in the tile and its result (with the bias
  // filter on the GPU, first only whether the pair passed the MSV filter).
  struct Scored {
    uint32_t i;
    hmm::PairResult r;
    bool needs_bias;
  };

  // The bias filter of the pairs past the MSV filter in one GPU call, then each pair's
  // pipeline up to the Viterbi filter given its score (the pairs that failed MSV too).
  template <class Usc>
  void bias_on_gpu(const Tile& tile, const std::vector<uint32_t>& models, const Usc& usc,
                   std::vector<std::vector<Scored>>& scored) {
    const bool bias_stage = setup_.settings.stages & hmm::kStageBias;
    std::vector<hmm::BiasPair> pairs;
    for (size_t k = 0; k < models.size() && bias_stage; ++k)
      for (const Scored& sp : scored[k])
        if (sp.needs_bias) pairs.push_back({&(*setup_.filters)[models[k]].bias, uint32_t(tile.part_begin + sp.i)});
    const std::vector<float> bias = bias_.scores(pairs);
    size_t next = 0;
    for (size_t k = 0; k < models.size(); ++k) {
      const hmm::ModelFilters& f = (*setup_.filters)[models[k]];
      for (Scored& sp : scored[k]) {
        const float b = bias_stage && sp.needs_bias ? bias[next++] : NAN;
        const int L = int(gpu_.lengths()[tile.part_begin + sp.i]);
        sp.r = hmm::run_filters_until_viterbi(f, L, usc(k, sp.i), b, setup_.settings);
      }
    }
  }
  static constexpr size_t kBatch = 512;
  static size_t batch_count(size_t n) { return (n + kBatch - 1) / kBatch; }

  // Runs body(k, first, last) over batches [first, last) of i < n, for k < models, on the host pool.
  template <class Body>
  void for_batches(size_t models, size_t n, Body&& body) {
    const size_t batches = batch_count(n);
    pool_.run(models * batches, [&](size_t job) {
      const size_t k = job / batches, b = job % batches;
      body(k, b * kBatch, std::min(n, (b + 1) * kBatch));
    });
  }
  // Runs body(k, i, workspace) for k < models, i < n on the host pool, in batches.
  template <class Body>
  void for_pairs(size_t models, size_t n, Body&& body) {
    for_batches(models, n, [&](size_t k, size_t first, size_t last) {
      hmm::FilterWorkspace ws;
      for (size_t i = first; i < last; ++i) body(k, i, ws);
    });
  }

  const MsvSetup setup_;
  int device_;
  hmm::MsvCuda gpu_;
  hmm::VitCuda vit_;
  hmm::BiasCuda bias_;
  bool first_call_ = true;  // first_call_gate
  bool bias_gpu_;  // HPCALIGN_HMM_BIAS: the bias filter on the GPU (else on the host pool)
  ThreadPool pool_;
  hmm::FilterWorkspace ws_;
};
}  // namespace

std::unique_ptr<MsvEngine> make_cuda_msv_engine(int device, int host_threads, const MsvSetup& setup) {
  return std::make_unique<CudaMsvEngine>(device, host_threads, setup);
}

}  // namespace hpc
