// Local scheduler: one thread per worker (GPU, or the CPU backend), the calling thread
// is the master. Same dynamic largest-first order as over MPI.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include "kernels/fault_injection.hpp"
#include "mpi/scheduler.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

struct Finished {
  size_t tile_index;
  std::string bytes;
  std::string error;  // non-empty when the worker failed
  int worker;
  bool too_large = false;  // the tile threw hpc::OutOfMemory (`error` says why): to be split
  bool start_failed = false;  // the worker could not start (`error` says why)
};

}  // namespace

void run_tiles_local(int workers, const SchedulerHooks& hooks) {
  if (workers < 1) workers = 1;
  install_stop_handlers();
  std::vector<std::unique_ptr<TileWorker>> made(workers);
  std::vector<DeviceCapacity> caps(workers);
  std::vector<std::string> start_errors(workers);
  std::vector<Tile> tiles;

  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  bool planned = false, stop = false, handing_out_stopped = false;
  bool first_out = false;  // a tile has gone to a worker (hooks.on_first_tile called)
  bool master_taking = false;  // on_started has returned: the master takes results from here on
  size_t next = 0, in_flight = 0, settled = 0;
  std::deque<Finished> done;
  // Under mu. Bounded memory: the master has `workers` results still to take, once it takes
  // results (while it writes the output's header, on_started, the workers go on).
  const auto master_full = [&] { return master_taking && done.size() >= size_t(workers); };

  auto body = [&](int w) {
    try {
      made[w] = hooks.make_worker(w, w);
      caps[w] = made[w]->capacity();
    } catch (const std::exception& e) {
      start_errors[w] = e.what();
    }
    {
      std::unique_lock<std::mutex> lk(mu);
      ++started;
      // Planned already: the master is taking results, and hears of a failed start that way.
      if (hooks.plan_by_worker_count && !made[w]) done.push_back({0, {}, start_errors[w], w, false, true});
      cv.notify_all();
      cv.wait(lk, [&] { return planned || stop; });
      if (stop || !made[w]) return;
    }
    // A looking-ahead worker's next tile, taken (and in flight) before its current one runs.
    std::optional<std::pair<size_t, Tile>> ahead;
    for (;;) {
      size_t i;
      Tile tile;  // a copy: the master inserts split tiles into `tiles`
      if (ahead) {
        std::tie(i, tile) = std::move(*ahead);
        ahead.reset();
      } else {
        // Taken under the lock, so that a stop request sees exactly which tiles are in flight.
        std::unique_lock<std::mutex> lk(mu);
        // No new tile while the master is full (master_full: a master slower than the workers,
        // paced by its sink, would otherwise gather their results; while it writes the output's
        // header, 0.16 s for hmmsearch's 590k target ids, the workers go on). And none handed
        // out yet may still come: a tile in flight or waiting in `done` may be split into new
        // ones (`settled` counts the tiles the master is through with).
        while (!stop && !stop_requested() && (master_full() || (next >= tiles.size() && settled < tiles.size())))
          cv.wait_for(lk, std::chrono::milliseconds(100));
        if (stop || handing_out_stopped || stop_requested() || next >= tiles.size()) break;
        i = next++;
        tile = tiles[i];
        ++in_flight;
        if (!first_out) {
          first_out = true;
          if (hooks.on_first_tile) hooks.on_first_tile();
        }
      }
      if (made[w]->looks_ahead()) {
        // Only a tile there for the taking now (waiting here would hold the current one), and
        // not among the last `workers` tiles: those go to whichever worker is free first.
        std::lock_guard<std::mutex> lk(mu);
        if (!stop && !handing_out_stopped && !stop_requested() && tiles.size() - next > size_t(workers) &&
            !master_full()) {
          ahead.emplace(next, tiles[next]);
          ++next;
          ++in_flight;
        }
      }
      Finished f{i, {}, {}, w};
      try {
        injected_tile_delay();  // HPCALIGN_FAULT_SLOW_MS: tests only
        if (ahead) made[w]->run_next(ahead->second);
        f.bytes = made[w]->run(tile);
      } catch (const OutOfMemory& e) {
        f.error = e.what();
        f.too_large = bool(hooks.on_too_large);
      } catch (const std::exception& e) {
        f.error = e.what();
      }
      std::lock_guard<std::mutex> lk(mu);
      const bool failed = !f.error.empty() && !f.too_large;
      --in_flight;
      done.push_back(std::move(f));
      cv.notify_all();
      if (failed || stop) break;
    }
    made[w].reset();  // release the device on the thread that created it
  };

  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) threads.emplace_back(body, w);
  auto shut_down = [&] {
    {
      std::lock_guard<std::mutex> lk(mu);
      stop = true;
    }
    cv.notify_all();
    for (auto& t : threads) t.join();
  };

  try {
    if (hooks.prepare) hooks.prepare();
    if (hooks.plan_by_worker_count) {
      tiles = hooks.plan(std::vector<DeviceCapacity>(workers));
    } else {
      {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return started == workers; });
      }
      for (int w = 0; w < workers; ++w)
        if (!start_errors[w].empty()) throw Error(start_errors[w]);
      tiles = hooks.plan(caps);
    }
    {
      std::lock_guard<std::mutex> lk(mu);
      planned = true;
    }
    cv.notify_all();
    if (hooks.on_started) hooks.on_started();
    {
      std::lock_guard<std::mutex> lk(mu);
      master_taking = true;
    }
    while (settled < tiles.size()) {  // the master is its only writer: read without the lock
      Finished f;
      {
        std::unique_lock<std::mutex> lk(mu);
        // Polls the stop flag: a signal handler cannot notify a condition variable.
        auto notice_stop = [&] {
          if (!stop_requested() || handing_out_stopped) return;
          handing_out_stopped = true;
          std::cerr << "hpcalign: " << stop_signal_name() << ": no more tiles handed out; waiting for the "
                    << in_flight << " tile(s) in flight\n";
        };
        notice_stop();
        while (done.empty()) {
          notice_stop();
          if (handing_out_stopped && in_flight == 0) break;
          cv.wait_for(lk, std::chrono::milliseconds(100));
        }
        if (done.empty()) break;  // stopped: every tile in flight has been delivered
        f = std::move(done.front());
        done.pop_front();
      }
      cv.notify_all();  // a worker may wait for room in `done`
      if (f.start_failed) throw Error(f.error);
      if (f.too_large) {
        const std::vector<Tile> pieces = hooks.on_too_large(tiles[f.tile_index], f.error);
        std::lock_guard<std::mutex> lk(mu);
        tiles.insert(tiles.begin() + std::ptrdiff_t(next), pieces.begin(), pieces.end());
        ++settled;
        cv.notify_all();
        continue;
      }
      if (!f.error.empty())
        throw Error("tile " + std::to_string(tiles[f.tile_index].id) + " failed on worker " +
                    std::to_string(f.worker) + ": " + f.error);
      hooks.on_result(tiles[f.tile_index], f.bytes);
      std::lock_guard<std::mutex> lk(mu);
      ++settled;
      cv.notify_all();
    }
    if (hooks.on_all_stored && settled == tiles.size()) {
      {  // a worker still starting (planned by worker count) may yet fail: the run fails then
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return started == workers; });
      }
      for (int w = 0; w < workers; ++w)
        if (!start_errors[w].empty()) throw Error(start_errors[w]);
      hooks.on_all_stored();  // the workers, past their last tile, release their engines meanwhile
    }
  } catch (...) {
    shut_down();
    throw;
  }
  shut_down();
  for (int w = 0; w < workers; ++w)  // planned early: a worker that failed once the tiles were all done
    if (!start_errors[w].empty()) throw Error(start_errors[w]);
  if (handing_out_stopped && settled < tiles.size())
    throw StopRequested(std::string("stopped by ") + stop_signal_name() + " after delivering the tiles in flight");
}

}  // namespace hpc
