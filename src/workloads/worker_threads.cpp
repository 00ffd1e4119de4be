#include "src/workloads/worker_threads.hpp"

#include <algorithm>
#include <cstdlib>

#include "src/core/cpu_budget.hpp"
#include "src/core/tuning.hpp"

namespace hpc {

int default_worker_threads(const MpiContext& mpi) {
  const CpuBudget budget = usable_cpus();
  // OMP_NUM_THREADS is a per-process count already; an affinity mask or quota may be the
  // node's share of all local ranks (mpirun without binding), so it is divided among them.
  if (!mpi.active || budget.source == "OMP_NUM_THREADS") return budget.cpus;
  const char* ls = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int local = ls ? std::max(1, std::atoi(ls)) : 1;
  return std::max(1, budget.cpus / local);
}

int workers_per_gpu(int measured_best) {
  return int(tuning_number(Tunable::kWorkersPerGpu).value_or(measured_best));
}

}  // namespace hpc
