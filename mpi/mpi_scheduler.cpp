// MPI master/worker scheduler. Rank 0 plans, schedules and sinks; every rank, rank 0
// included (in a second thread, when MPI grants MPI_THREAD_MULTIPLE), runs one worker,
// so `mpirun -np 4` on a 4-GPU node drives all 4 GPUs.
// Each worker holds up to two tiles (one running, one queued in its inbox) so the next
// tile is already there when one finishes.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "kernels/fault_injection.hpp"
#include "mpi/large_message.hpp"
#include "mpi/scheduler.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"
#include "src/core/wire.hpp"

namespace hpc {
namespace {

// Two tags keep the master's mail apart from its own worker's (both live on rank 0).
constexpr int kToWorker = 10, kToMaster = 11;
// kTooLarge: the tile threw hpc::OutOfMemory; the worker goes on, the master splits the tile.
enum Kind : uint8_t { kTile = 'T', kStop = 'S', kCapacity = 'C', kResult = 'R', kError = 'E', kTooLarge = 'O' };
constexpr int kInFlight = 2;

void send(int dest, int tag, Kind kind, const std::string& payload) {
  WireWriter w;
  w.put<uint8_t>(kind);
  w.put(payload);
  send_message(w.take(), dest, tag);  // past INT_MAX bytes too (mpi/large_message.hpp)
}

struct Message {
  int from;
  Kind kind;
  std::string payload;
};

Message receive(int source, int tag) {
  Message m;
  const std::string bytes = receive_message(source, tag, &m.from);
  WireReader r(bytes);
  m.kind = static_cast<Kind>(r.get<uint8_t>());
  m.payload = r.get_string();
  return m;
}

std::string encode_capacity(const DeviceCapacity& c) {
  WireWriter w;
  w.put(c.name);
  w.put(c.compute_units);
  w.put(c.resident_per_unit);
  w.put(c.memory_bytes);
  return w.take();
}

DeviceCapacity decode_capacity(const std::string& bytes) {
  WireReader r(bytes);
  DeviceCapacity c;
  c.name = r.get_string();
  c.compute_units = r.get<int>();
  c.resident_per_unit = r.get<int>();
  c.memory_bytes = r.get<uint64_t>();
  return c;
}

std::string tile_error(uint32_t id, const std::string& what) {
  WireWriter w;
  w.put(id);
  w.put(what);
  return w.take();
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

void worker_loop(const MpiContext& ctx, const SchedulerHooks& hooks) {
  std::unique_ptr<TileWorker> worker;
  try {
    worker = hooks.make_worker(ctx.rank, ctx.local_rank);
    send(0, kToMaster, kCapacity, encode_capacity(worker->capacity()));
  } catch (const std::exception& e) {
    send(0, kToMaster, kError, tile_error(UINT32_MAX, e.what()));
  }
  for (;;) {
    Message m = receive(0, kToWorker);
    if (m.kind == kStop) break;
    if (!worker) continue;  // failed at start or on a tile: the master stops us
    const Tile tile = decode_tile(m.payload);
    try {
      injected_tile_delay();  // HPCALIGN_FAULT_SLOW_MS: tests only
      WireWriter w;
      w.put(tile.id);
      w.put(worker->run(tile));
      send(0, kToMaster, kResult, w.take());
    } catch (const OutOfMemory& e) {
      send(0, kToMaster, hooks.on_too_large ? kTooLarge : kError, tile_error(tile.id, e.what()));
      if (!hooks.on_too_large) worker.reset();
    } catch (const std::exception& e) {
      send(0, kToMaster, kError, tile_error(tile.id, e.what()));
      worker.reset();
    }
  }
}

// Returns false when a stop request (signal) ended the run before every tile was done.
bool master_loop(const MpiContext& ctx, bool master_works, const SchedulerHooks& hooks) {
  std::vector<int> ranks;  // ranks that run a worker
  for (int r = master_works ? 0 : 1; r < ctx.size; ++r) ranks.push_back(r);
  auto stop_all = [&] {
    for (int r : ranks) send(r, kToWorker, kStop, {});
  };
  auto fail = [&](const Message& m) {
    WireReader r(m.payload);
    const auto id = r.get<uint32_t>();
    const std::string what = r.get_string();
    const std::string where = id == UINT32_MAX ? "starting on rank " : "tile " + std::to_string(id) + " failed on rank ";
    return Error(where + std::to_string(m.from) + ": " + what);
  };

  if (hooks.prepare) hooks.prepare();  // while the workers start
  std::vector<DeviceCapacity> caps(ranks.size());
  std::string start_error;
  for (size_t i = 0; i < ranks.size(); ++i) {
    Message m = receive(MPI_ANY_SOURCE, kToMaster);
    if (m.kind == kError)
      start_error = fail(m).what();
    else
      caps[m.from - ranks.front()] = decode_capacity(m.payload);
  }
  if (!start_error.empty()) {
    stop_all();
    throw Error(start_error);
  }
  std::vector<Tile> tiles = hooks.plan(caps);
  size_t next = 0, outstanding = 0, settled = 0;  // settled: delivered, or replaced by their pieces
  bool stop_announced = false;
  auto send_next = [&](int rank) {
    if (stop_requested() && !stop_announced) {
      stop_announced = true;
      std::cerr << "hpcalign: " << stop_signal_name() << ": no more tiles handed out; waiting for the "
                << outstanding << " tile(s) in flight\n";
    }
    if (next >= tiles.size() || stop_requested()) return;
    send(rank, kToWorker, kTile, encode_tile(tiles[next++]));
    ++outstanding;
  };
  if (!tiles.empty() && hooks.on_first_tile) hooks.on_first_tile();
  for (int k = 0; k < kInFlight; ++k)
    for (int r : ranks) send_next(r);
  if (hooks.on_started) hooks.on_started();
  auto find_tile = [&](uint32_t id) -> const Tile& {
    for (const Tile& t : tiles)
      if (t.id == id) return t;
    throw Error("internal: result for unknown tile " + std::to_string(id));
  };
  while (outstanding > 0) {
    Message m = receive(MPI_ANY_SOURCE, kToMaster);
    if (m.kind == kError) throw fail(m);
    WireReader r(m.payload);
    const auto id = r.get<uint32_t>();
    --outstanding;
    if (m.kind == kTooLarge) {
      const std::vector<Tile> pieces = hooks.on_too_large(find_tile(id), r.get_string());
      tiles.insert(tiles.begin() + std::ptrdiff_t(next), pieces.begin(), pieces.end());
    } else {
      hooks.on_result(find_tile(id), r.get_string());
    }
    ++settled;
    send_next(m.from);
  }
  stop_all();
  return settled == tiles.size();
}

}  // namespace

MpiContext mpi_start(int* argc, char*** argv) {
  MpiContext ctx;
  // Launched by a process manager? Otherwise stay a plain process (no MPI runtime needed).
  const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
                        std::getenv("PMI_SIZE") || tuning_flag(Tunable::kForceMpi);
  if (!launched) return ctx;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  ctx.active = true;
  ctx.threads_multiple = provided >= MPI_THREAD_MULTIPLE;
  MPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ctx.size);
  ctx.local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK", env_int("SLURM_LOCALID", env_int("MPI_LOCALRANKID", 0)));
  return ctx;
}

void mpi_stop(const MpiContext& ctx) {
  if (ctx.active) MPI_Finalize();
}

void mpi_abort(const MpiContext& ctx, int code) {
  if (ctx.active && ctx.size > 1) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

void run_tiles_mpi(const MpiContext& ctx, const SchedulerHooks& hooks) {
  install_stop_handlers();  // every rank: a signal forwarded by srun/mpirun must not kill a worker
  if (!ctx.is_master()) return worker_loop(ctx, hooks);
  // Rank 0's own worker needs a second thread that talks MPI: only with THREAD_MULTIPLE.
  const bool master_works = ctx.threads_multiple && !tuning_flag(Tunable::kMasterIdle);
  std::atomic<bool> own_done{false};
  std::thread own;
  if (master_works) own = std::thread([&] {
      struct Done {
        std::atomic<bool>& flag;
        ~Done() { flag = true; }
      } done{own_done};
      worker_loop(ctx, hooks);
    });
  bool all_done = true;
  try {
    all_done = master_loop(ctx, master_works, hooks);
  } catch (...) {
    // The caller unwinds (freeing the job, closing the result file), then aborts every rank.
    // Rank 0's own worker uses that job: it is stopped first, after its tile in hand, and
    // what it still sends is taken, so it never runs on freed memory (a detached worker here
    // crashed the abort now and then).
    if (own.joinable()) {
      send(0, kToWorker, kStop, {});
      while (!own_done) {
        int waiting = 0;
        MPI_Iprobe(0, kToMaster, MPI_COMM_WORLD, &waiting, MPI_STATUS_IGNORE);
        if (waiting)
          receive(0, kToMaster);
        else
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      own.join();
    }
    throw;
  }
  if (own.joinable()) own.join();
  if (!all_done)
    throw StopRequested(std::string("stopped by ") + stop_signal_name() + " after delivering the tiles in flight");
}

}  // namespace hpc
