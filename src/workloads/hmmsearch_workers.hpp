#pragma once
// The tile workers of `hpcalign hmmsearch` (tiles: models x a run of the length-sorted
// database, src/plan/msv_plan.hpp). Both send back the same HmmTileResult
// (src/workloads/hmmsearch_rows.hpp): per model of the tile, in tile order, hmmsearch's pass
// counts; the targets that reach the hit list, by model then database position.
//   CPU worker     one thread runs the tile's filters (the CPU msv engine, SIMD) and then its
//                  survivors through the engine worker's stage below, on that thread alone;
//                  one worker per CPU thread.
//   engine worker  an msv engine (the GPU's, kernels/msv_engine.hpp) runs the MSV, bias and
//                  Viterbi filters of the whole tile; its survivors (~0.1% of the pairs) then
//                  go through the rest of the pipeline on the worker's host thread pool
//                  (src/workloads/hmmsearch_survivors.hpp).
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "io/database.hpp"
#include "io/hmm_file.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "kernels/hmm_fb_engine.hpp"
#include "kernels/msv_engine.hpp"
#include "mpi/scheduler.hpp"
#include "src/hmm/hmmsearch_pipeline.hpp"
#include "src/workloads/hmmsearch_rows.hpp"
#include "src/workloads/model_profile_cache.hpp"

namespace hpc {

// The inputs every worker reads (filled before the workers start, then read only).
// A model's filter and Forward/Backward profiles (~0.5 KB a node) exist only while a tile
// holds the model (hold/release, ModelsHeld), and a few after (src/workloads/model_profile_cache.hpp).
struct HmmsearchJob {
  std::vector<HmmModel> models;
  Database db;
  hmm::PipelineSettings pipeline;
  bool scan = false;  // hmmscan: tile results also hold each sequence's filter pass counts
  // Nodes of released models whose profiles are kept (the least recently released dropped
  // first), so that the tiles of a batch (one per database partition) build them once; a
  // file of up to this many nodes keeps all its profiles (as before).
  size_t kept_nodes = kKeptProfileNodes;
  // The msv engines' setup (the filter settings; `filters` has an entry per model, built
  // while the model is held), made on the first call (safe from several threads).
  const MsvSetup& msv_setup();
  // Each model's Forward/Backward profile, built while the model is held: the survivors'
  // pipelines copy it instead of building their own per tile.
  const std::vector<hmm::FbProfile>& fb_profiles();
  // The parser engines' profiles too (HPCALIGN_HMM_PARSERS=forward|device): set before the
  // workers start.
  bool parser_lanes = false;
  // Each model's profile for the parser engines, built while the model is held (with its
  // Forward/Backward profile; parser_lanes must be set, else this throws).
  const std::vector<hmm::FbLaneProfile>& lane_profiles();
  // Builds the models' profiles that are not built (on this thread) and keeps them until as
  // many release calls; safe from several threads.
  void hold(const std::vector<uint32_t>& tile_models);
  void release(const std::vector<uint32_t>& tile_models);
  // The most model nodes whose profiles existed at once (tests).
  size_t peak_built_nodes();

 private:
  void make_entries();
  std::once_flag entries_made_;
  std::vector<hmm::FbProfile> profiles_;
  std::vector<hmm::FbLaneProfile> lanes_;
  std::vector<hmm::ModelFilters> filters_;
  MsvSetup setup_;
  std::optional<ModelProfileCache> cache_;  // of filters_, profiles_ and lanes_
};

std::unique_ptr<TileWorker> make_hmmsearch_cpu_worker(HmmsearchJob& job);
// What a parser engine runs of the survivors' pipeline: their Forward parser (the Forward
// filter's score; those that pass it then run the whole rest on the host), or Forward and
// Backward (domain definition on the host, from the parsers' rows).
enum class EngineParsers { kForward, kBoth };

// `engine` runs the filters (built on job.msv_setup()); `parsers`, when given, the survivors'
// parsers `use` names; host_threads: the post-filter pool. `look_ahead`: the worker looks ahead
// (TileWorker::run_next): the next tile's filters run on a thread of their own while the
// current tile's survivors are scored (same results).
std::unique_ptr<TileWorker> make_hmmsearch_engine_worker(HmmsearchJob& job, std::unique_ptr<MsvEngine> engine,
                                                         std::unique_ptr<FbEngine> parsers, EngineParsers use,
                                                         int host_threads, bool look_ahead = true);

// The engine and CPU workers' second half: the tile's result from its filter results
// (`filtered`, run_msv_tile's), its survivors scored on `pool` (`use` of their parsers on
// `parsers` when given).
HmmTileResult hmmsearch_after_filters(HmmsearchJob& job, const Tile& tile, const MsvTileResult& filtered,
                                      ThreadPool& pool, FbEngine* parsers = nullptr,
                                      EngineParsers use = EngineParsers::kBoth);

}  // namespace hpc
