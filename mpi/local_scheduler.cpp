// Local scheduler: one thread per worker (GPU, or the CPU backend), the calling thread
// is the master. Same dynamic largest-first order as over MPI.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "mpi/scheduler.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

struct Finished {
  size_t tile_index;
  std::string bytes;
  std::string error;  // non-empty when the worker failed
  int worker;
};

}  // namespace

void run_tiles_local(int workers, const SchedulerHooks& hooks) {
  if (workers < 1) workers = 1;
  std::vector<std::unique_ptr<TileWorker>> made(workers);
  std::vector<DeviceCapacity> caps(workers);
  std::vector<std::string> start_errors(workers);
  std::vector<Tile> tiles;

  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  bool planned = false, stop = false;
  std::atomic<size_t> next{0};
  std::deque<Finished> done;

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
      cv.notify_all();
      cv.wait(lk, [&] { return planned || stop; });
      if (stop || !made[w]) return;
    }
    for (;;) {
      const size_t i = next.fetch_add(1);
      if (i >= tiles.size()) break;
      Finished f{i, {}, {}, w};
      try {
        f.bytes = made[w]->run(tiles[i]);
      } catch (const std::exception& e) {
        f.error = e.what();
      }
      std::lock_guard<std::mutex> lk(mu);
      const bool failed = !f.error.empty();
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
      next = SIZE_MAX / 2;
    }
    cv.notify_all();
    for (auto& t : threads) t.join();
  };

  try {
    {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return started == workers; });
    }
    for (int w = 0; w < workers; ++w)
      if (!start_errors[w].empty()) throw Error(start_errors[w]);
    tiles = hooks.plan(caps);
    {
      std::lock_guard<std::mutex> lk(mu);
      planned = true;
    }
    cv.notify_all();
    for (size_t received = 0; received < tiles.size(); ++received) {
      Finished f;
      {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return !done.empty(); });
        f = std::move(done.front());
        done.pop_front();
      }
      if (!f.error.empty())
        throw Error("tile " + std::to_string(tiles[f.tile_index].id) + " failed on worker " +
                    std::to_string(f.worker) + ": " + f.error);
      hooks.on_result(tiles[f.tile_index], f.bytes);
    }
  } catch (...) {
    shut_down();
    throw;
  }
  shut_down();
}

}  // namespace hpc
