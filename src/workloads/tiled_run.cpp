#include "src/workloads/tiled_run.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>

#include "kernels/backend.hpp"
#include "src/core/process_clock.hpp"
#include "src/core/progress.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/tuning.hpp"
#include "src/plan/tile_split.hpp"
#include "src/workloads/tile_splits.hpp"
#include "src/workloads/worker_threads.hpp"

namespace hpc {
namespace {

using steady = std::chrono::steady_clock;

// --backend into workers: every visible GPU (workers_per_gpu() each in a local run; one per
// rank under MPI), or the CPU. cuda without a GPU (or without CUDA in the build) throws the
// backend's clear error.
Engines place_engines(const RunSettings& s, const MpiContext& mpi, int per_gpu_default, bool worker_per_thread) {
  Engines e;
  const BackendKind kind = parse_backend_kind(s.backend);
  e.distributed = mpi.active && mpi.size > 1;
  e.threads = s.threads > 0 ? s.threads : default_worker_threads(mpi);
  e.gpu = kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available());
  if (e.gpu) e.devices = backend_device_count(BackendKind::Cuda);
  const int per_gpu = e.distributed ? 1 : workers_per_gpu(per_gpu_default);
  e.local_workers = e.gpu ? e.devices * per_gpu : (worker_per_thread ? e.threads : 1);
  return e;
}

EngineSlot slot_for(const Engines& e, bool worker_per_thread, int device_slot) {
  EngineSlot slot;
  if (e.gpu) {
    slot.device = device_slot % e.devices;
    // The process's threads shared among its GPU workers (host stages: fits, filters).
    slot.threads = std::max(1, e.threads / (e.distributed ? 1 : e.local_workers));
  } else {
    slot.threads = worker_per_thread ? 1 : e.threads;
  }
  return slot;
}

// --verbose, GPUs: what each worker did (tile count, time in tiles, first start, last end),
// reported per device, so that a GPU that starts late or idles at the end shows.
struct WorkerLog {
  int device = -1, tiles = 0;
  double busy = 0;
  steady::time_point first_start, last_end;
};

class LoggedWorker : public TileWorker {
 public:
  LoggedWorker(std::unique_ptr<TileWorker> inner, WorkerLog& log) : inner_(std::move(inner)), log_(log) {}
  DeviceCapacity capacity() const override { return inner_->capacity(); }
  // Forwarded, or --verbose would turn a looking-ahead worker's look-ahead off.
  bool looks_ahead() const override { return inner_->looks_ahead(); }
  void run_next(const Tile& next) override { inner_->run_next(next); }
  std::string run(const Tile& tile) override {
    const auto t0 = steady::now();
    std::string bytes = inner_->run(tile);
    if (log_.tiles++ == 0) log_.first_start = t0;
    log_.last_end = steady::now();
    log_.busy += std::chrono::duration<double>(log_.last_end - t0).count();
    return bytes;
  }

 private:
  std::unique_ptr<TileWorker> inner_;
  WorkerLog& log_;
};

// Per device, after `since`: workers, tiles, seconds in tiles, first tile start, last tile end.
void report_devices(const std::string& name, const std::vector<WorkerLog>& logs, steady::time_point since) {
  const auto after = [&](steady::time_point t) { return std::chrono::duration<double>(t - since).count(); };
  int devices = 0;
  for (const WorkerLog& l : logs) devices = std::max(devices, l.device + 1);
  for (int d = 0; d < devices; ++d) {
    int workers = 0, tiles = 0;
    double busy = 0, first = 1e30, last = 0;
    for (const WorkerLog& l : logs) {
      if (l.device != d || !l.tiles) continue;
      ++workers, tiles += l.tiles, busy += l.busy;
      first = std::min(first, after(l.first_start)), last = std::max(last, after(l.last_end));
    }
    if (workers)
      std::fprintf(stderr,
                   "hpcalign: %s: GPU %d: %d worker(s), %d tiles, %.3f s in tiles; first tile started %.3f s, last "
                   "ended %.3f s after the load\n",
                   name.c_str(), d, workers, tiles, busy, first, last);
  }
}

}  // namespace

double RunClock::phase_seconds() const { return seconds_since(phase_start); }

std::vector<Tile> TiledWorkload::split(const Tile& tile) const { return split_tile(tile); }

int run_tiled(TiledWorkload& w, const RunSettings& s, const MpiContext& mpi) {
  install_stop_handlers();  // a signal while loading must not lose a resumable file either
  RunClock clock;
  clock.start = steady::now();
  // The CUDA driver starts on the side while the inputs load.
  const DeviceWarmup warmup(parse_backend_kind(s.backend), mpi.active && mpi.size > 1);
  w.load();
  clock.loaded = steady::now();
  if (tuning_flag(Tunable::kCudaTiming)) std::fprintf(stderr, "load done %.3f s after the process\n", process_seconds_fine());
  const bool per_thread = w.worker_per_cpu_thread();
  w.engines_ = place_engines(s, mpi, w.workers_per_gpu(), per_thread);
  const Engines& engines = w.engines_;

  ResumableRun resume;  // master only: the journal
  TiledPlan plan;
  std::vector<DeviceCapacity> capacities;
  std::unique_ptr<Progress> progress;
  TileSplits splits;  // out-of-memory splitting
  bool have_output = false;

  const bool log_workers = s.verbose && engines.gpu && !engines.distributed;
  std::vector<WorkerLog> worker_logs(log_workers ? size_t(engines.local_workers) : 0);
  SchedulerHooks hooks;
  hooks.plan_by_worker_count = w.plans_by_worker_count();
  hooks.make_worker = [&](int index, int device_slot) -> std::unique_ptr<TileWorker> {
    const auto t0 = steady::now();
    EngineSlot slot = slot_for(engines, per_thread, device_slot);
    slot.worker = index;
    std::unique_ptr<TileWorker> worker = w.make_worker(slot);
    if (s.verbose && engines.gpu)
      std::fprintf(stderr, "hpcalign: %s: worker %d ready in %.3f s\n", w.name().c_str(), index, seconds_since(t0));
    if (!log_workers) return worker;
    worker_logs.at(size_t(index)).device = slot.device;
    return std::make_unique<LoggedWorker>(std::move(worker), worker_logs[size_t(index)]);
  };
  // While the workers start: --resume reads the old output, then the new one is created.
  hooks.prepare = [&] {
    resume = ResumableRun(w.name(), s.out_path, s.resume, s.quiet, w.parameters());
    if (w.results_outside_journal())
      resume.rerun_unless([&](uint32_t id, const std::string& bytes) { return w.replayable(id, bytes); });
    w.create_output();
    have_output = true;
  };
  hooks.plan = [&](const std::vector<DeviceCapacity>& caps) {
    capacities = caps;
    if (resume.resuming())  // the stored plan: this run may have other workers
      plan = {resume.stored_plan(), resume.stored_notes()};
    else
      plan = w.plan(caps);
    uint64_t cells = 0;
    for (const Tile& t : plan.tiles) cells += t.cells;
    progress = std::make_unique<Progress>(w.name(), plan.tiles.size(), cells, s.quiet);
    progress->resumed(resume.finished_count(), resume.finished_cells());
    splits = TileSplits([&w](const Tile& t) { return w.split(t); }, plan.tiles);
    clock.planned = steady::now();
    return resume.to_run(plan.tiles);
  };
  // The first tiles compute meanwhile.
  hooks.on_started = [&] {
    w.write_header(plan, capacities);
    resume.begin(w.output_file(), plan.tiles, plan.notes);
    resume.replay([&](uint32_t id, const std::string& bytes) { w.store(id, bytes, true); });
    clock.phase_start = clock.last_result = steady::now();
  };
  // The phase starts with the first tile out, not with on_started: the workers compute while
  // the master writes the header (0.1-0.3 s), so a phase timed from there would flatter them.
  std::atomic<RunClock::time_point::rep> first_tile{0};
  hooks.on_first_tile = [&] { first_tile = steady::now().time_since_epoch().count(); };
  hooks.on_too_large = [&](const Tile& tile, const std::string& why) {
    std::vector<Tile> pieces = splits.split(tile, why);
    resume.record_split(tile.id, pieces);  // before any piece runs
    progress->add_tiles(pieces.size() - 1);
    return pieces;
  };
  hooks.on_result = [&](const Tile& tile, const std::string& bytes) {
    const auto t0 = steady::now();
    resume.record(tile, bytes);  // first: the journal is what --resume trusts
    w.store(tile.id, bytes, false);
    progress->tile_done(tile.cells);
    clock.last_result = steady::now();
    clock.store_seconds += std::chrono::duration<double>(clock.last_result - t0).count();
  };

  // Every tile stored (master): the output completed. A local run does it while its workers
  // release their engines (on_all_stored), an MPI run once the ranks are through.
  bool finished = false;
  const auto finish = [&] {
    if (first_tile != 0)  // none where a resume replayed every tile
      clock.phase_start = RunClock::time_point(RunClock::time_point::duration(first_tile.load()));
    if (s.verbose) {
      const auto after = [&](RunClock::time_point t) { return std::chrono::duration<double>(t - clock.loaded).count(); };
      std::fprintf(stderr,
                   "hpcalign: %s: after the load: tiles planned %.3f s, first tile out %.3f s, last tile stored "
                   "%.3f s (master storing results %.3f s), output's completion from %.3f s\n",
                   w.name().c_str(), after(clock.planned), after(clock.phase_start), after(clock.last_result),
                   clock.store_seconds, after(steady::now()));
      report_devices(w.name(), worker_logs, clock.loaded);
    }
    w.finish(clock);
    finished = true;
  };
  hooks.on_all_stored = finish;

  try {
    if (engines.distributed)
      run_tiles_mpi(mpi, hooks);
    else
      run_tiles_local(engines.local_workers, hooks);
  } catch (const StopRequested& stop) {
    if (mpi.is_master()) {
      if (have_output) w.stopped(stop_signal_name());
      if (progress) progress->finish();
    }
    std::cerr << "hpcalign: " << stop.what() << "; " << s.out_path << " is resumable with --resume\n";
    return 0;
  }
  if (!mpi.is_master()) return 0;
  if (!finished) finish();
  if (s.verbose)
    std::fprintf(stderr, "hpcalign: %s: workers ended, output complete %.3f s after the load\n", w.name().c_str(),
                 std::chrono::duration<double>(steady::now() - clock.loaded).count());
  resume.complete();
  progress->finish();
  w.summary();
  if (s.verbose) report_peak_memory();
  return 0;
}

}  // namespace hpc
