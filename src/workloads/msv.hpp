#pragma once
// `hpcalign msv`: HMMER3 profile search filters (MSV, bias, Viterbi), exact to HMMER 3.3.2's
// hmmsearch pipeline. Tiles are (model) x (database length partition), scheduled like the
// other workloads (local threads or MPI); rank 0 writes the HDF5 file:
//   /msv/{model,target,msv_bits,msv_pvalue,bias_pass,vit_bits,vit_pvalue,passed}
//      survivors of every requested stage (or every pair with --all), sorted by (model, target);
//      the workers stage them in run files, merged here when the run completes (empty until then)
//   /models/{name,length}  /targets/{id,length}
//   /pipeline/{model,targets,past_msv,past_bias,past_vit}: hmmsearch's pipeline counts
//   run attributes on '/', status "incomplete" until the run completes.
#include <string>

#include "mpi/scheduler.hpp"
#include "src/workloads/run_settings.hpp"

namespace hpc {

struct MsvOptions {
  std::string model_path, db_path;
  double F1 = 0.02, F2 = 1e-3;
  std::string stages = "msv,bias,vit";
  bool all_pairs = false;
  RunSettings run;  // -o, --backend, --threads, --verbose, --quiet, --resume
  std::string command_line;
};

int run_msv(const MsvOptions& opt, const MpiContext& mpi);

}  // namespace hpc
