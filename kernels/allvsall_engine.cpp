#include "kernels/allvsall_engine.hpp"

#include "kernels/cpu/allvsall_cpu.hpp"
#include "src/core/error.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/allvsall_cuda.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#endif

namespace hpc {

std::vector<ScoredPair> AllVsAllEngine::score_tile(const Tile& tile, const std::vector<uint32_t>& target_order,
                                                  bool square, std::optional<int32_t> min_score) {
  const std::vector<PairIndex> pairs = tile_pairs(tile, target_order, square);
  return keep_scoring_at_least(pairs, score(pairs), min_score);
}

std::vector<Alignment> AllVsAllEngine::align_scored(const std::vector<ScoredPair>& pairs) {
  std::vector<PairIndex> list(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k) list[k] = pairs[k].pair;
  return align(list);
}

AlignedPairs AllVsAllEngine::align_scored_flat(const std::vector<ScoredPair>& pairs) {
  AlignedPairs out;
  out.alns = align_scored(pairs);
  out.cigars = take_cigars(out.alns);
  return out;
}

std::vector<Alignment> with_cigar_strings(AlignedPairs aligned) {
  for (size_t k = 0; k < aligned.alns.size(); ++k) aligned.alns[k].cigar.assign(aligned.cigars.at(k));
  return std::move(aligned.alns);
}

std::vector<ScoredPair> keep_scoring_at_least(const std::vector<PairIndex>& pairs, const std::vector<int32_t>& scores,
                                              std::optional<int32_t> min_score) {
  std::vector<ScoredPair> kept;
  for (size_t k = 0; k < pairs.size(); ++k)
    if (!min_score || scores[k] >= *min_score) kept.push_back({pairs[k], scores[k]});
  return kept;
}

// Auto picks the GPUs when this build has CUDA and one is visible; backend_device_count()
// resolves the kind and throws the usual clear message for --backend cuda without a GPU.
int allvsall_engine_count(BackendKind kind) { return backend_device_count(kind); }

std::unique_ptr<AllVsAllEngine> make_allvsall_engine(BackendKind kind, int device, int threads, const AllVsAllSetup& setup) {
#ifdef HPCALIGN_HAVE_CUDA
  if (kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available()))
    return make_cuda_allvsall_engine(device, setup);
#else
  if (kind == BackendKind::Cuda) backend_device_count(kind);  // throws: built without CUDA
#endif
  (void)device;
  return std::make_unique<CpuAllVsAll>(setup, threads);
}

}  // namespace hpc
