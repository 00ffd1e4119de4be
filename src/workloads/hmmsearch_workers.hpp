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
#include <vector>

#include "io/database.hpp"
#include "io/hmm_file.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "kernels/hmm_fb_engine.hpp"
#include "kernels/msv_engine.hpp"
#include "mpi/scheduler.hpp"
#include "src/hmm/hmmsearch_pipeline.hpp"
#include "src/workloads/hmmsearch_rows.hpp"

namespace hpc {

// The inputs every worker reads (filled before the workers start, then read only).
struct HmmsearchJob {
  std::vector<HmmModel> models;
  Database db;
  hmm::PipelineSettings pipeline;
  bool scan = false;  // hmmscan: tile results also hold each sequence's filter pass counts
  // The msv engines' setup (each model's filter profiles, the filter settings), built on the
  // first call (safe from several threads): every worker's filters run on an msv engine.
  const MsvSetup& msv_setup();
  // Each model's Forward/Backward profile (built on the first call, on all cores): the
  // survivors' pipelines copy it instead of building their own per tile.
  const std::vector<hmm::FbProfile>& fb_profiles();
  // The same for the parser engines (built on first call).
  const std::vector<hmm::FbLaneProfile>& lane_profiles();

 private:
  std::once_flag filters_built_, profiles_built_, lanes_built_;
  std::vector<hmm::FbProfile> profiles_;
  std::vector<hmm::FbLaneProfile> lanes_;
  std::vector<hmm::ModelFilters> filters_;
  MsvSetup setup_;
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
