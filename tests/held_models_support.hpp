#pragma once
// Shared by the tests of jobs whose model profiles exist only while tiles hold them
// (src/workloads/model_profile_cache.hpp): the nodes a plan's tiles hold, and every tile run
// once by worker threads sharing one job.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "io/hmm_file.hpp"
#include "src/core/tile.hpp"

namespace hpc::test {

struct HeldNodes {
  size_t all = 0;           // every model's nodes
  size_t largest_tile = 0;  // the most nodes one tile holds
};

inline HeldNodes held_nodes(const std::vector<HmmModel>& models, const std::vector<Tile>& tiles) {
  HeldNodes h;
  for (const HmmModel& m : models) h.all += size_t(m.length);
  for (const Tile& t : tiles) {
    size_t n = 0;
    for (uint32_t m : t.queries) n += size_t(models[m].length);
    h.largest_tile = std::max(h.largest_tile, n);
  }
  return h;
}

// Runs tiles 0..tiles-1 once each on `workers` threads; make_run() is called on each thread and
// returns that worker's callable, tile index -> Result. The results come back in tile order.
template <class Result, class MakeRun>
std::vector<Result> run_tiles_on_threads(size_t tiles, size_t workers, const MakeRun& make_run) {
  std::vector<Result> out(tiles);
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      auto run = make_run();
      for (size_t t; (t = next++) < tiles;) out[t] = run(t);
    });
  for (std::thread& t : threads) t.join();
  return out;
}

}  // namespace hpc::test
