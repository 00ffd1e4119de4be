// MPI master/worker scheduler. Rank 0 plans and sinks; ranks 1.. execute tiles.
// Each worker holds up to two tiles (one running, one queued in its MPI inbox) so the
// next tile is already there when one finishes.
#include <mpi.h>

#include <cstdlib>
#include <iostream>

#include "mpi/scheduler.hpp"
#include "src/core/error.hpp"
#include "src/core/wire.hpp"

namespace hpc {
namespace {

enum Tag : int { kCapacity = 1, kTile = 2, kResult = 3, kStop = 4, kError = 5 };
constexpr int kInFlight = 2;

void send_bytes(const std::string& bytes, int dest, int tag) {
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

std::string recv_bytes(int source, int* from, int* tag) {
  MPI_Status st;
  MPI_Probe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
  std::string bytes(static_cast<size_t>(n), '\0');
  MPI_Recv(bytes.data(), n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (from) *from = st.MPI_SOURCE;
  if (tag) *tag = st.MPI_TAG;
  return bytes;
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

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

void worker_loop(const MpiContext& ctx, const SchedulerHooks& hooks) {
  std::unique_ptr<TileWorker> worker;
  try {
    worker = hooks.make_worker(ctx.rank - 1, ctx.local_rank);
    send_bytes(encode_capacity(worker->capacity()), 0, kCapacity);
  } catch (const std::exception& e) {
    send_bytes(e.what(), 0, kError);
  }
  for (;;) {
    int tag = 0;
    std::string msg = recv_bytes(0, nullptr, &tag);
    if (tag == kStop) break;
    if (!worker) continue;  // failed at start: the master will stop us
    const Tile tile = decode_tile(msg);
    try {
      WireWriter w;
      w.put(tile.id);
      w.put(worker->run(tile));
      send_bytes(w.take(), 0, kResult);
    } catch (const std::exception& e) {
      WireWriter w;
      w.put(tile.id);
      w.put(std::string(e.what()));
      send_bytes(w.take(), 0, kError);
      worker.reset();
    }
  }
}

void master_loop(const MpiContext& ctx, const SchedulerHooks& hooks) {
  const int workers = ctx.size - 1;
  std::vector<DeviceCapacity> caps(workers);
  std::string start_error;
  for (int i = 0; i < workers; ++i) {
    int from = 0, tag = 0;
    std::string msg = recv_bytes(MPI_ANY_SOURCE, &from, &tag);
    if (tag == kError)
      start_error = "rank " + std::to_string(from) + ": " + msg;
    else
      caps[from - 1] = decode_capacity(msg);
  }
  auto stop_all = [&] {
    for (int r = 1; r < ctx.size; ++r) send_bytes({}, r, kStop);
  };
  if (!start_error.empty()) {
    stop_all();
    throw Error(start_error);
  }
  const std::vector<Tile> tiles = hooks.plan(caps);
  size_t next = 0, outstanding = 0;
  auto send_next = [&](int rank) {
    if (next >= tiles.size()) return;
    send_bytes(encode_tile(tiles[next++]), rank, kTile);
    ++outstanding;
  };
  for (int k = 0; k < kInFlight; ++k)
    for (int r = 1; r < ctx.size; ++r) send_next(r);
  auto find_tile = [&](uint32_t id) -> const Tile& {
    for (const Tile& t : tiles)
      if (t.id == id) return t;
    throw Error("internal: result for unknown tile " + std::to_string(id));
  };
  while (outstanding > 0) {
    int from = 0, tag = 0;
    std::string msg = recv_bytes(MPI_ANY_SOURCE, &from, &tag);
    WireReader r(msg);
    const auto id = r.get<uint32_t>();
    std::string payload = r.get_string();
    if (tag == kError) {
      std::cerr << "hpcalign: tile " << id << " failed on rank " << from << ": " << payload << "\n";
      throw Error("tile " + std::to_string(id) + " failed on rank " + std::to_string(from) + ": " + payload);
    }
    --outstanding;
    hooks.on_result(find_tile(id), payload);
    send_next(from);
  }
  stop_all();
}

}  // namespace

MpiContext mpi_start(int* argc, char*** argv) {
  MpiContext ctx;
  // Launched by a process manager? Otherwise stay a plain process (no MPI runtime needed).
  const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
                        std::getenv("PMI_SIZE") || std::getenv("HPCALIGN_FORCE_MPI");
  if (!launched) return ctx;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  ctx.active = true;
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
  if (ctx.is_master())
    master_loop(ctx, hooks);
  else
    worker_loop(ctx, hooks);
}

}  // namespace hpc
