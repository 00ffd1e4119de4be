#pragma once
// The run options every tiled workload takes, declared once (src/cli/options.hpp: RunGroup,
// and OutputGroup's -o) and read by the driver (src/workloads/tiled_run.hpp).
#include <string>

namespace hpc {

struct RunSettings {
  std::string out_path;
  std::string backend = "auto";  // auto | cpu | cuda
  int threads = 0;               // 0: the job's CPUs (src/workloads/worker_threads.hpp)
  bool verbose = false, quiet = false;
  bool resume = false;  // --resume: continue the unfinished run in out_path
};

}  // namespace hpc
