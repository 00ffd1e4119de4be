#pragma once
// CPU threads one process should use: all cores, shared evenly among the MPI ranks of
// this node (OMPI_COMM_WORLD_LOCAL_SIZE), at least 1.
#include "mpi/scheduler.hpp"

namespace hpc {

int default_worker_threads(const MpiContext& mpi);

}  // namespace hpc
