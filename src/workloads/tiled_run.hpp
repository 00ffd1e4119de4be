#pragma once
// The one driver every tiled workload (search, allvsall, pss, msv) runs on. A workload says
// only what is its own (TiledWorkload below); the driver owns the rest. Lifecycle of a run:
//
//   every rank   stop handlers (SIGTERM/SIGUSR1) and the GPUs' warm-up start, then
//                load() reads the inputs while the CUDA driver starts on the side;
//                --backend resolves into GPUs (workers_per_gpu() workers each) or the CPU
//                (one engine on every thread, or one single-threaded worker per thread);
//                make_worker() builds each worker's engine (mpi/scheduler.hpp runs them,
//                over MPI or on local threads)
//   master       while the engines start: --resume checks parameters() against the journal
//                (src/workloads/resume.hpp), then create_output() (fails fast on a bad path)
//                plan: a resumed run reuses its stored plan, else plan(capacities)
//                once the first tiles are out: write_header(), the plan goes into the output
//                and the journal, and a resumed run's finished tiles are replayed into store()
//                each finished tile: journal first (what --resume trusts), then store(), progress
//   stop         SIGTERM/SIGUSR1: no more tiles handed out, the ones in flight delivered,
//                stopped() leaves the output resumable, exit 0
//   finish       every tile done: finish() completes the output, the journal goes, the
//                progress line closes, summary()
//
//   too large    a worker's tile does not fit its device (hpc::OutOfMemory): split() cuts it,
//                the pieces are journalled and run next, and stored like any tile
//                (src/workloads/tile_splits.hpp)
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "mpi/scheduler.hpp"
#include "src/workloads/resume.hpp"
#include "src/workloads/run_settings.hpp"

namespace hpc {

namespace h5 {
class File;
}

// Where the driver put the workers: GPUs or the CPU.
struct Engines {
  bool gpu = false;
  int devices = 0;        // GPUs visible (gpu only)
  int threads = 1;        // CPU threads of this process
  int local_workers = 1;  // workers of a local (non-MPI) run
  bool distributed = false;
};

// One worker's engine: a GPU (device >= 0) or the CPU (device -1); threads: the CPU engine's
// threads, or a GPU worker's host threads.
struct EngineSlot {
  int device = -1;
  int threads = 1;
  int worker = 0;  // the worker's index: its thread in a local run, its rank under MPI
  BackendKind kind() const { return device >= 0 ? BackendKind::Cuda : BackendKind::Cpu; }
  int device_index() const { return device >= 0 ? device : 0; }
};

struct TiledPlan {
  std::vector<Tile> tiles;
  PlanNotes notes;  // how the planner cut the work: output attributes, kept for a resume
};

// Instants of the master's run, for the workloads' timing attributes.
struct RunClock {
  using time_point = std::chrono::steady_clock::time_point;
  time_point start, loaded, planned, phase_start, last_result;
  double store_seconds = 0;  // the master's share: journal and store()
  double load_seconds() const { return std::chrono::duration<double>(loaded - start).count(); }
  // From the first tile handed to a worker (the phase's start) to now.
  double phase_seconds() const;
};

class TiledWorkload {
 public:
  virtual ~TiledWorkload() = default;
  virtual std::string name() const = 0;  // "search": the journal's workload, the progress label
  // Every rank: reads and checks the inputs (hpc::Error / InputError on bad ones).
  virtual void load() = 0;
  // Workers sharing one GPU in a local run (each its own engine and stream), measured per
  // workload (kernels/cuda/NOTES.md); HPCALIGN_WORKERS_PER_GPU overrides it.
  virtual int workers_per_gpu() const { return 1; }
  // CPU: false, one engine on every thread; true, one single-threaded worker per thread.
  virtual bool worker_per_cpu_thread() const { return false; }
  // Every rank: the worker of one slot (called on the worker's own thread).
  virtual std::unique_ptr<TileWorker> make_worker(const EngineSlot& slot) = 0;

  // ---- master only ----
  // Everything that changes the results (content fingerprints, not paths): a resume must match.
  virtual std::vector<checkpoint::RunParameter> parameters() const = 0;
  // Creates (truncates) the output; called after --resume has read the old one.
  virtual void create_output() = 0;
  // The output's HDF5 file: the plan and parameters are stored in it.
  virtual h5::File& output_file() = 0;
  // A new run's tiles (ids 0..n-1, largest first) for these workers.
  virtual TiledPlan plan(const std::vector<DeviceCapacity>& caps) = 0;
  // True where plan() and write_header() use only caps.size(): in a local run the plan is then
  // made before the workers are ready, and each starts its tiles without waiting for the rest.
  virtual bool plans_by_worker_count() const { return false; }
  // The pieces that replace a tile too large for its device (together exactly its
  // work, cells summing to its cells; ids are the driver's), none when it cannot be cut.
  // Default: halves of its queries, else of its partition (src/plan/tile_split.hpp).
  virtual std::vector<Tile> split(const Tile& tile) const;
  // The run's attributes and input tables, once the plan is known (stored or new).
  virtual void write_header(const TiledPlan& plan, const std::vector<DeviceCapacity>& caps) = 0;
  // --resume: a workload whose workers keep their results outside the journal
  // (io/run_files.hpp) says so, and whether a journalled tile's bytes still stand; a tile
  // whose do not runs again.
  virtual bool results_outside_journal() const { return false; }
  virtual bool replayable(uint32_t /*tile_id*/, const std::string& /*bytes*/) const { return true; }
  // A finished tile's worker bytes: just computed, or (replayed) from an earlier run's journal.
  virtual void store(uint32_t tile_id, const std::string& bytes, bool replayed) = 0;
  // A signal stopped the run: leave the output incomplete and resumable.
  virtual void stopped(const std::string& signal_name) = 0;
  // Every tile is stored: complete the output (its status "complete").
  virtual void finish(const RunClock& clock) = 0;
  // After the journal is gone: the summary on stderr/stdout.
  virtual void summary() {}

 protected:
  const Engines& engines() const { return engines_; }

 private:
  friend int run_tiled(TiledWorkload&, const RunSettings&, const MpiContext&);
  Engines engines_;
};

// Runs the workload; returns the exit code (0, also when a signal stopped it resumably).
// Under MPI every rank calls it. Errors are thrown (hpc::Error); the caller aborts the ranks.
int run_tiled(TiledWorkload& workload, const RunSettings& settings, const MpiContext& mpi);

}  // namespace hpc
