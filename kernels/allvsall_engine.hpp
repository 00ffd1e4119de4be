#pragma once
// What executes the pairs of an all-vs-all tile. The CPU engine (kernels/cpu/allvsall_cpu.hpp)
// is the twin every other engine matches bit for bit: same scores, same alignments (the tie
// rule of src/align/reference.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "src/core/alignment.hpp"
#include "src/core/cigar_buffer.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"
#include "src/plan/allvsall_plan.hpp"

namespace hpc {

struct AllVsAllSetup {
  const SequenceSet* queries = nullptr;
  const SequenceSet* targets = nullptr;  // == queries for a square screen
  ScoreMatrix matrix;
  GapCosts gaps;
  AlignMode mode = AlignMode::Local;
  // Traceback bytes one pair may use before the bounded-memory path takes over (the strip
  // aligner in bands of this size, or the reduced-space aligner);
  // 0 = the engine decides from its memory.
  uint64_t traceback_budget = 0;
  // Device bytes one launch's buffers may take; 0 = 0.6 of the GPU memory free when the engine
  // starts, divided among engines_on_device.
  uint64_t launch_budget = 0;
  // The engines whose launches share this GPU at once (a workload's workers on it): each takes
  // its share, so that their launches together fit.
  uint32_t engines_on_device = 1;
};

// A pair with its exact score.
struct ScoredPair {
  PairIndex pair;
  int32_t score;
};

// Alignments with their CIGARs in one buffer: alns[k] holds pair k's score and coordinates
// (its cigar left empty), cigars.at(k) its CIGAR.
struct AlignedPairs {
  std::vector<Alignment> alns;
  CigarBuffer cigars;
};

class AllVsAllEngine {
 public:
  virtual ~AllVsAllEngine() = default;
  virtual std::string name() const = 0;
  virtual DeviceCapacity capacity() const = 0;
  // Exact scores, scores[k] for pairs[k]; pairs sorted by query run fastest.
  virtual std::vector<int32_t> score(const std::vector<PairIndex>& pairs) = 0;
  // The pairs of `tile` (tile_pairs(tile, target_order, square)) that score at least
  // `min_score` (every pair when it is empty), sorted by (query, target). This default
  // scores the pair list through score(); an engine that can score the two windows at once
  // builds no pair list, only the kept pairs (a screen keeps a few per cent).
  virtual std::vector<ScoredPair> score_tile(const Tile& tile, const std::vector<uint32_t>& target_order, bool square,
                                             std::optional<int32_t> min_score);
  // Whether score_tile_ahead() queues work: an engine whose device scores while its caller's
  // host (and the device's other streams) align and stage the tile before.
  virtual bool scores_ahead() const { return false; }
  // Queues score_tile()'s device work for `tile`, a tile this engine scores next, so that it
  // runs while the caller finishes the current one (a GPU shared by several workers then
  // always has score work queued). score_tile() of that tile then takes it up. The CUDA engine
  // holds two queued tiles (the caller may queue the next before it scores the current one);
  // a third drops the one queued first. A no-op by default.
  virtual void score_tile_ahead(const Tile& /*tile*/, const std::vector<uint32_t>& /*target_order*/, bool /*square*/) {}
  // Alignments (score, coordinates, CIGAR) following the tie rule.
  virtual std::vector<Alignment> align(const std::vector<PairIndex>& pairs) = 0;
  // align() of pairs whose exact scores are known (score_tile's): the same alignments; an
  // engine may use the scores to stop a local fill at the end cell. This default ignores them.
  virtual std::vector<Alignment> align_scored(const std::vector<ScoredPair>& pairs);
  // align_scored()'s alignments with the CIGARs in one buffer (a screen's tiles: no string a
  // hit). This default moves align_scored()'s strings into it.
  virtual AlignedPairs align_scored_flat(const std::vector<ScoredPair>& pairs);
  // Pairs align() sent down the bounded-memory path so far (for logs and tests).
  virtual uint64_t reduced_space_pairs() const = 0;
};

// The alignments with their CIGARs as strings again.
std::vector<Alignment> with_cigar_strings(AlignedPairs aligned);

// The pairs (with their scores[k]) scoring at least min_score, in the order given.
std::vector<ScoredPair> keep_scoring_at_least(const std::vector<PairIndex>& pairs, const std::vector<int32_t>& scores,
                                              std::optional<int32_t> min_score);

// Engine instance `device` of `kind` (BackendKind::Auto: a GPU when one is visible and this
// build has the CUDA all-vs-all kernel, else the CPU). threads: CPU threads, 0 = all cores.
std::unique_ptr<AllVsAllEngine> make_allvsall_engine(BackendKind kind, int device, int threads,
                                                     const AllVsAllSetup& setup);
// Instances this process can drive for `kind` (GPUs visible, or 1 for the CPU).
int allvsall_engine_count(BackendKind kind);

}  // namespace hpc
