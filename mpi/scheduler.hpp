#pragma once
// Tile scheduling: dynamic self-scheduling, largest tile first (LPT), like hmmsearch --mpi.
// The same master logic runs over MPI (rank 0 master, ranks 1.. workers, one per GPU) or
// over threads in one process (one worker per GPU, or one CPU worker).
//
// A workload provides a Worker per worker (owning its backend) and a handler that the
// master calls for every finished tile, in completion order, on the master's thread only
// (so the HDF5 sink needs no locking).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "src/core/error.hpp"
#include "src/core/tile.hpp"

namespace hpc {

class TileWorker {
 public:
  virtual ~TileWorker() = default;
  virtual DeviceCapacity capacity() const = 0;
  // Executes one tile and returns its result as bytes (src/core/wire.hpp).
  virtual std::string run(const Tile& tile) = 0;
  // A worker that looks ahead (local runs) is handed its next tile before run() of the current
  // one, through run_next(), so it can queue that tile's device work while it finishes the
  // current one (a GPU shared by several workers then always has work queued). The next run()
  // is that tile's.
  virtual bool looks_ahead() const { return false; }
  virtual void run_next(const Tile& /*next*/) {}
};

struct SchedulerHooks {
  // Creates the worker for `worker_index`. `device_slot` is the worker index locally and
  // the node-local rank under MPI; the workload maps it onto its devices (modulo count).
  std::function<std::unique_ptr<TileWorker>(int worker_index, int device_slot)> make_worker;
  // Optional: called once on the master while the workers start (device set-up, database
  // upload), for master-side work that the plan does not need yet, such as creating the
  // result file. The workers' start-up and this run at the same time.
  std::function<void()> prepare;
  // Called once on the master with every worker's capacity, after `prepare`; returns the tiles to run.
  std::function<std::vector<Tile>(const std::vector<DeviceCapacity>&)> plan;
  // Local runs: the plan needs only the number of workers (its capacities are default ones), so
  // it is made right after `prepare` and each worker takes tiles as soon as it is ready, without
  // waiting for the others (a second GPU's context and database copy).
  bool plan_by_worker_count = false;
  // Optional: called once on the master when the first tiles are out and before the first
  // on_result, for master-side work that only on_result needs (the result file's creation
  // runs while the first tiles compute).
  std::function<void()> on_started;
  // Optional: called once, on whichever thread hands it out, when the first tile goes to a
  // worker: the start of the compute phase that the workloads' throughput figures divide by.
  std::function<void()> on_first_tile;
  // Called on the master for each finished tile.
  std::function<void(const Tile&, const std::string& result)> on_result;
  // Optional, local runs: called once on the master when every tile is stored and every worker
  // started, while the workers release their engines (a GPU engine's buffers and streams:
  // 0.02-0.1 s on 2 H100s); they are joined after it returns. The output's completion (the final
  // merge) runs here beside that teardown. Not called when a stop or an error ends the run.
  std::function<void()> on_all_stored;
  // Optional: called on the master when a worker's tile threw hpc::OutOfMemory (too large for
  // its device; `what` says why). Returns the tiles that replace it, handed out next, before
  // the tiles not yet handed out; throws (hpc::Error) when it cannot be cut. The worker goes on
  // with other tiles. Without it such a tile fails the run like any other error.
  std::function<std::vector<Tile>(const Tile&, const std::string& what)> on_too_large;
};

// MPI context: whether this process was started by mpirun/srun, its rank and size.
struct MpiContext {
  bool active = false;
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  bool threads_multiple = false;  // MPI granted MPI_THREAD_MULTIPLE (rank 0 can also work)
  bool is_master() const { return rank == 0; }
};
// Initialises MPI when launched under mpirun/srun (detected from the environment), so a
// plain `hpcalign ...` never needs an MPI runtime. Safe to call once per process.
MpiContext mpi_start(int* argc, char*** argv);
void mpi_stop(const MpiContext& ctx);
// Aborts every rank (used when the master fails mid-run).
[[noreturn]] void mpi_abort(const MpiContext& ctx, int code);

// Runs all tiles. Local: `workers` threads (device slots 0..workers-1).
// MPI (ctx.active && size > 1): rank 0 masters, and every rank works, rank 0 too in a second
// thread where MPI allows it (HPCALIGN_MASTER_IDLE=1 keeps rank 0 from working); the device
// slot is the local rank. Errors on a worker reach the master, which throws hpc::Error naming the tile and
// the worker; the caller then aborts the other ranks.
void run_tiles_local(int workers, const SchedulerHooks& hooks);
void run_tiles_mpi(const MpiContext& ctx, const SchedulerHooks& hooks);

// ---- Graceful stop: SIGTERM, and SIGUSR1 (Slurm's --signal=B:USR1@120) ----
// The handlers only set an async-signal-safe flag. The master loops of run_tiles_local /
// run_tiles_mpi check it: once set, no more tiles are handed out, the tiles in flight are
// delivered to on_result as usual, the workers are stopped, and the master throws
// StopRequested. A workload catches it to leave its file resumable and exit 0; one that
// does not still exits non-zero with an unfinished (never complete-looking) file.
// run_tiles_* install the handlers themselves; a workload calls install_stop_handlers()
// earlier so that a signal during input loading is not fatal either. Idempotent.
void install_stop_handlers();
void request_stop(int signal_number);  // what the handler does; tests call it directly
bool stop_requested();
int stop_signal();  // the signal that asked to stop (0: none)
const char* stop_signal_name();  // "SIGTERM", "SIGUSR1", ... ("" when none)
void clear_stop_request();

class StopRequested : public Error {
 public:
  using Error::Error;
};

}  // namespace hpc
