#pragma once
// `hpcalign pss`: pairwise statistical significance of every query x subject pair
// (src/pss/pss_engine.hpp). job -> tiles -> driver (src/workloads/tiled_run.hpp: MPI or local
// threads) -> engine (kernels/pss_engine.hpp: CPU, or CUDA) -> HDF5 (src/pss/pss_output.hpp).
// Tiles: src/plan/pss_plan.hpp.
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

int run_pss(const PssOptions& opt, const MpiContext& mpi);

}  // namespace hpc
