#include "src/workloads/worker_threads.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace hpc {

int default_worker_threads(const MpiContext& mpi) {
  const int hc = int(std::max(1u, std::thread::hardware_concurrency()));
  if (!mpi.active) return hc;
  const char* ls = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int local = ls ? std::max(1, std::atoi(ls)) : 1;
  return std::max(1, hc / local);
}

int workers_per_gpu(int measured_best) {
  const char* env = std::getenv("HPCALIGN_WORKERS_PER_GPU");
  return std::max(1, env ? std::atoi(env) : measured_best);
}

}  // namespace hpc
