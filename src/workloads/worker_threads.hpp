#pragma once
// CPU threads one process should use: the CPUs the job gives it (src/core/cpu_budget.hpp),
// shared evenly among the MPI ranks of this node (OMPI_COMM_WORLD_LOCAL_SIZE) unless
// OMP_NUM_THREADS set a per-process count, at least 1.
#include "mpi/scheduler.hpp"

namespace hpc {

int default_worker_threads(const MpiContext& mpi);

// Workers sharing one GPU in a local (non-MPI) run, each with its own engine and stream, so
// that one worker's host-side work overlaps the other's kernels. HPCALIGN_WORKERS_PER_GPU
// overrides `measured_best`, the workload's default (kernels/cuda/NOTES.md has the A/B runs).
int workers_per_gpu(int measured_best);

}  // namespace hpc
