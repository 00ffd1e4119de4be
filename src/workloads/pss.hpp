#pragma once
// `hpcalign pss`: pairwise statistical significance of every query x subject pair
// (src/pss/pss_engine.hpp). job -> tiles -> driver (src/workloads/tiled_run.hpp: MPI or local
// threads) -> engine (kernels/pss_engine.hpp: CPU, or CUDA) -> HDF5 (src/pss/pss_output.hpp).
//
// Tile = (query batch) x (T subjects, each permuted N times), T = floor(SM_count x T_max / N)
// from the worker's DeviceCapacity (compute_units x resident_per_unit), at least 1. The
// DESIGN tile has one query; a batch of queries lets each subject's N permutations be made
// once per tile and shared by all its queries (data reuse); scores do not depend on tiling.
#include <cstdint>
#include <string>

#include "mpi/scheduler.hpp"
#include "src/workloads/run_settings.hpp"

namespace hpc {

struct PssOptions {
  std::string query_path, subject_path, pssm_path;
  std::string matrix = "BLOSUM62";
  int gap_open = 11, gap_extend = 1;
  uint32_t permutations = 1000;
  uint64_t seed = 42;
  std::string censor = "median";
  uint32_t query_batch = 16;  // queries per tile
  bool keep_scores = false;
  RunSettings run;  // -o, --backend, --threads, --verbose, --quiet, --resume
  std::string command_line;
};

// Subjects per tile for one worker: floor(concurrent / N), at least 1.
uint32_t pss_tile_subjects(uint64_t concurrent, uint32_t permutations);

int run_pss(const PssOptions& opt, const MpiContext& mpi);

}  // namespace hpc
