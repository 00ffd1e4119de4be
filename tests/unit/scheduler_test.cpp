#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <thread>

#include "mpi/scheduler.hpp"
#include "src/core/error.hpp"
#include "src/core/wire.hpp"

using namespace hpc;

namespace {

class EchoWorker : public TileWorker {
 public:
  EchoWorker(int slot, std::atomic<int>* runs, uint32_t fail_tile) : slot_(slot), runs_(runs), fail_tile_(fail_tile) {}
  DeviceCapacity capacity() const override {
    DeviceCapacity c;
    c.name = "echo" + std::to_string(slot_);
    return c;
  }
  std::string run(const Tile& t) override {
    ++*runs_;
    if (t.id == fail_tile_) throw Error("planted failure");
    std::this_thread::sleep_for(std::chrono::microseconds(100 * (t.id % 3)));
    WireWriter w;
    w.put(t.id * 10);
    w.put(slot_);
    return w.take();
  }

 private:
  int slot_;
  std::atomic<int>* runs_;
  uint32_t fail_tile_;
};

SchedulerHooks hooks_for(int ntiles, std::atomic<int>* runs, std::map<uint32_t, uint32_t>* results,
                         std::vector<DeviceCapacity>* seen_caps, uint32_t fail_tile = UINT32_MAX) {
  SchedulerHooks h;
  h.make_worker = [=](int, int slot) { return std::make_unique<EchoWorker>(slot, runs, fail_tile); };
  h.plan = [=](const std::vector<DeviceCapacity>& caps) {
    *seen_caps = caps;
    std::vector<Tile> tiles(ntiles);
    for (int i = 0; i < ntiles; ++i) tiles[i].id = static_cast<uint32_t>(i);
    return tiles;
  };
  h.on_result = [=](const Tile& t, const std::string& bytes) {
    WireReader r(bytes);
    (*results)[t.id] = r.get<uint32_t>();
  };
  return h;
}

}  // namespace

TEST(LocalScheduler, RunsEveryTileExactlyOnceOnEveryWorkerCount) {
  for (int workers : {1, 2, 5}) {
    std::atomic<int> runs{0};
    std::map<uint32_t, uint32_t> results;
    std::vector<DeviceCapacity> caps;
    run_tiles_local(workers, hooks_for(50, &runs, &results, &caps));
    EXPECT_EQ(runs.load(), 50);
    ASSERT_EQ(results.size(), 50u);
    for (auto& [id, v] : results) EXPECT_EQ(v, id * 10);
    ASSERT_EQ(caps.size(), size_t(workers));
    for (int w = 0; w < workers; ++w) EXPECT_EQ(caps[w].name, "echo" + std::to_string(w));
  }
}

TEST(LocalScheduler, WorkerFailureNamesTheTile) {
  std::atomic<int> runs{0};
  std::map<uint32_t, uint32_t> results;
  std::vector<DeviceCapacity> caps;
  try {
    run_tiles_local(2, hooks_for(20, &runs, &results, &caps, /*fail_tile=*/7));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tile 7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("planted failure"), std::string::npos) << e.what();
  }
}

// A tile too large for its worker (hpc::OutOfMemory) goes to on_too_large, and the pieces it
// returns run instead, on any worker, also when they come after every other tile is out (the
// idle workers must wait for them, not quit).
TEST(LocalScheduler, TooLargeTilesAreReplacedByTheirPieces) {
  class Bounded : public TileWorker {
   public:
    DeviceCapacity capacity() const override { return {}; }
    std::string run(const Tile& t) override {
      if (t.cells > 4) throw OutOfMemory("tile " + std::to_string(t.id) + " too large");
      WireWriter w;
      w.put(t.cells);
      return w.take();
    }
  };
  for (int workers : {1, 3}) {
    SchedulerHooks h;
    uint32_t next_id = 2;
    uint64_t cells = 0;
    std::vector<uint32_t> split, delivered;
    h.make_worker = [](int, int) { return std::make_unique<Bounded>(); };
    h.plan = [](const std::vector<DeviceCapacity>&) {
      std::vector<Tile> tiles(2);
      tiles[0].id = 0, tiles[0].cells = 16;  // split twice over
      tiles[1].id = 1, tiles[1].cells = 3;
      return tiles;
    };
    h.on_too_large = [&](const Tile& t, const std::string& what) {
      EXPECT_NE(what.find("too large"), std::string::npos);
      split.push_back(t.id);
      std::vector<Tile> halves(2, t);
      halves[0].id = next_id++, halves[1].id = next_id++;
      halves[0].cells = halves[1].cells = t.cells / 2;
      return halves;
    };
    h.on_result = [&](const Tile& t, const std::string& bytes) {
      WireReader r(bytes);
      cells += r.get<uint64_t>();
      delivered.push_back(t.id);
    };
    run_tiles_local(workers, h);
    EXPECT_EQ(split.size(), 3u) << workers << " workers";  // 16 -> 8 + 8 -> 4 + 4 + 4 + 4
    EXPECT_EQ(delivered.size(), 5u);
    EXPECT_EQ(cells, 19u);
  }
}

// While the master writes the output's header (on_started) the workers go on past the bound
// of `workers` results waiting for the master: every tile runs meanwhile.
TEST(LocalScheduler, WorkersGoOnWhileTheMasterWritesTheHeader) {
  constexpr int kTiles = 12;
  std::atomic<int> ran{0};
  class Counting : public TileWorker {
   public:
    explicit Counting(std::atomic<int>& n) : n_(n) {}
    DeviceCapacity capacity() const override { return {}; }
    std::string run(const Tile&) override {
      ++n_;
      return {};
    }

   private:
    std::atomic<int>& n_;
  };
  SchedulerHooks h;
  int ran_during_header = 0, delivered = 0;
  h.make_worker = [&](int, int) { return std::make_unique<Counting>(ran); };
  h.plan = [](const std::vector<DeviceCapacity>&) { return std::vector<Tile>(kTiles); };
  h.on_started = [&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (ran < kTiles && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ran_during_header = ran;
  };
  h.on_result = [&](const Tile&, const std::string&) { ++delivered; };
  run_tiles_local(2, h);
  EXPECT_EQ(ran_during_header, kTiles);
  EXPECT_EQ(delivered, kTiles);
}

// A worker that looks ahead is told its next tile before each run() that has one, and its next
// run() is that tile; every tile runs once, also where a tile is split (hpc::OutOfMemory) while
// its worker holds the next.
TEST(LocalScheduler, LookingAheadWorkersRunTheTileTheyWereToldNext) {
  class Ahead : public TileWorker {
   public:
    Ahead(std::atomic<int>& mismatches, std::atomic<int>& told) : mismatches_(mismatches), told_count_(told) {}
    DeviceCapacity capacity() const override { return {}; }
    bool looks_ahead() const override { return true; }
    void run_next(const Tile& next) override {
      told_ = next.id;
      ++told_count_;
    }
    std::string run(const Tile& t) override {
      if (expected_ && *expected_ != t.id) ++mismatches_;
      expected_ = told_;
      told_.reset();
      if (t.cells > 4) throw OutOfMemory("tile " + std::to_string(t.id) + " too large");
      WireWriter w;
      w.put(t.id);
      return w.take();
    }

   private:
    std::atomic<int>&mismatches_, &told_count_;
    std::optional<uint32_t> told_, expected_;
  };
  int told_in_all = 0;  // (none while the master has `workers` results to take: timing decides how many)
  for (int workers : {1, 3}) {
    std::atomic<int> mismatches{0}, told{0};
    std::map<uint32_t, int> delivered;
    SchedulerHooks h;
    h.make_worker = [&](int, int) { return std::make_unique<Ahead>(mismatches, told); };
    h.plan = [](const std::vector<DeviceCapacity>&) {
      std::vector<Tile> tiles(30);
      for (uint32_t i = 0; i < tiles.size(); ++i) tiles[i].id = i, tiles[i].cells = i == 5 ? 8 : 1;
      return tiles;
    };
    h.on_too_large = [](const Tile& t, const std::string&) {
      std::vector<Tile> halves(2, t);
      halves[0].id = 100, halves[1].id = 101;
      halves[0].cells = halves[1].cells = t.cells / 2;
      return halves;
    };
    h.on_result = [&](const Tile& t, const std::string& bytes) {
      WireReader r(bytes);
      EXPECT_EQ(r.get<uint32_t>(), t.id);
      ++delivered[t.id];
    };
    run_tiles_local(workers, h);
    EXPECT_EQ(mismatches.load(), 0) << workers << " workers";
    told_in_all += told.load();
    ASSERT_EQ(delivered.size(), 31u) << workers << " workers";  // 29 tiles and the two halves of tile 5
    for (const auto& [id, n] : delivered) EXPECT_TRUE(id != 5 && n == 1) << "tile " << id << " delivered " << n << " times";
  }
  EXPECT_GT(told_in_all, 0);
}

TEST(LocalScheduler, StartFailureIsReported) {
  SchedulerHooks h;
  h.make_worker = [](int, int) -> std::unique_ptr<TileWorker> { throw Error("no such device"); };
  h.plan = [](const std::vector<DeviceCapacity>&) { return std::vector<Tile>(3); };
  h.on_result = [](const Tile&, const std::string&) {};
  EXPECT_THROW(run_tiles_local(2, h), Error);
}

TEST(TileWire, RoundTrip) {
  Tile t;
  t.id = 42;
  t.queries = {3, 1, 4, 1, 5};
  t.part_begin = 100;
  t.part_end = 2000;
  t.cells = 123456789012345ull;
  Tile u = decode_tile(encode_tile(t));
  EXPECT_EQ(u.id, t.id);
  EXPECT_EQ(u.queries, t.queries);
  EXPECT_EQ(u.part_begin, t.part_begin);
  EXPECT_EQ(u.part_end, t.part_end);
  EXPECT_EQ(u.cells, t.cells);
  EXPECT_THROW(decode_tile(encode_tile(t).substr(0, 10)), Error);
}

// plan_by_worker_count: the ready worker runs tiles while the other is still starting (a
// second GPU's context), and the late one still runs, or takes nothing if the tiles are gone.
TEST(LocalScheduler, PlannedByCountReadyWorkersDoNotWaitForTheRest) {
  constexpr int kTiles = 8;
  std::atomic<int> runs{0}, done_before_late_start{-1};
  std::map<uint32_t, uint32_t> results;
  std::vector<DeviceCapacity> caps;
  SchedulerHooks h = hooks_for(kTiles, &runs, &results, &caps);
  h.plan_by_worker_count = true;
  const auto make = h.make_worker;
  h.make_worker = [&, make](int index, int slot) {
    if (index == 1) {  // starts only once worker 0 has run every tile (or after 20 s: fails below)
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (runs < kTiles && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      done_before_late_start = runs.load();
    }
    return make(index, slot);
  };
  run_tiles_local(2, h);
  EXPECT_EQ(done_before_late_start, kTiles);
  EXPECT_EQ(caps.size(), 2u);
  ASSERT_EQ(results.size(), size_t(kTiles));
  for (const auto& [id, value] : results) EXPECT_EQ(value, id * 10);
}

TEST(LocalScheduler, PlannedByCountStartFailureIsReported) {
  for (int failing : {0, 1}) {  // the only worker with tiles left, or one the tiles never needed
    std::atomic<int> runs{0};
    std::map<uint32_t, uint32_t> results;
    std::vector<DeviceCapacity> caps;
    SchedulerHooks h = hooks_for(4, &runs, &results, &caps);
    h.plan_by_worker_count = true;
    const auto make = h.make_worker;
    h.make_worker = [&, make, failing](int index, int slot) -> std::unique_ptr<TileWorker> {
      if (index == failing) {
        if (failing == 1)  // late: after the other worker has run every tile
          while (runs < 4) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        throw Error("no such device");
      }
      return make(index, slot);
    };
    bool completed = false;  // the output is not completed over a worker that failed to start
    h.on_all_stored = [&] { completed = true; };
    try {
      run_tiles_local(2, h);
      ADD_FAILURE() << "no error for worker " << failing;
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "no such device");
    }
    EXPECT_FALSE(completed);
  }
}

// on_all_stored: called once, after every result, while the workers still release their engines
// (each worker's destructor here waits for the hook: joined first, it would wait in vain).
TEST(LocalScheduler, AllStoredRunsWhileTheWorkersTearDown) {
  struct SlowToEnd : EchoWorker {
    SlowToEnd(int slot, std::atomic<int>* runs, std::atomic<bool>* stored, std::atomic<int>* saw)
        : EchoWorker(slot, runs, UINT32_MAX), stored_(stored), saw_(saw) {}
    ~SlowToEnd() override {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!*stored_ && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (*stored_) ++*saw_;
    }
    std::atomic<bool>* stored_;
    std::atomic<int>* saw_;
  };
  constexpr int kTiles = 20, kWorkers = 3;
  std::atomic<int> runs{0}, saw{0}, calls{0};
  std::atomic<bool> stored{false};
  std::map<uint32_t, uint32_t> results;
  std::vector<DeviceCapacity> caps;
  SchedulerHooks h = hooks_for(kTiles, &runs, &results, &caps);
  h.make_worker = [&](int, int slot) { return std::make_unique<SlowToEnd>(slot, &runs, &stored, &saw); };
  size_t results_at_call = 0;
  h.on_all_stored = [&] {
    ++calls;
    results_at_call = results.size();
    stored = true;
  };
  run_tiles_local(kWorkers, h);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(results_at_call, size_t(kTiles));
  EXPECT_EQ(saw.load(), kWorkers);  // every worker was still ending when the hook ran
}

TEST(LocalScheduler, AllStoredIsNotCalledWhenATileFails) {
  std::atomic<int> runs{0};
  std::map<uint32_t, uint32_t> results;
  std::vector<DeviceCapacity> caps;
  SchedulerHooks h = hooks_for(10, &runs, &results, &caps, 7);
  bool called = false;
  h.on_all_stored = [&] { called = true; };
  EXPECT_THROW(run_tiles_local(2, h), Error);
  EXPECT_FALSE(called);
}
