#pragma once
// What msv and hmmsearch share about their inputs: their tiles (src/plan/msv_plan.hpp), the
// models' content fingerprint (a resume must match it) and the HDF5 tables of models and
// targets with the host attribute.
#include <string>
#include <vector>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/sequence.hpp"
#include "src/plan/msv_plan.hpp"
#include "src/workloads/tiled_run.hpp"

namespace hpc {

// (model batch) x (database partition) tiles for `workers` workers, with the planner's notes.
TiledPlan plan_model_tiles(const std::vector<HmmModel>& models, const Database& db, size_t workers,
                           size_t tiles_per_worker = kMsvTilesPerWorker, size_t min_partitions = 1);
// The numbers the pipeline reads (parsed, so a re-gzipped file is the same).
std::string models_fingerprint(const std::vector<HmmModel>& models);
// /models/{name,length}, /targets/{id,length} and the 'host' attribute of '/'.
void write_models_and_targets(h5::File& f, const std::vector<HmmModel>& models, const SequenceSet& targets);

}  // namespace hpc
