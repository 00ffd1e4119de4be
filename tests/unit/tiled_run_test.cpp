// src/workloads/tiled_run.cpp: the resume protocol, tested once for every workload on a toy
// workload that runs on the driver. A run stopped by SIGTERM, and a run whose process dies
// abruptly (_exit, no destructor runs: what kill -9 leaves), are resumed; the finished file
// equals an uninterrupted run's, and the resumed run computes only the tiles not journalled.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <map>

#include "io/hdf5_columns.hpp"
#include "io/result_file.hpp"
#include "io/tile_journal.hpp"
#include "src/core/wire.hpp"
#include "src/workloads/tiled_run.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::error_of;
using test::temp_path;

constexpr uint32_t kTiles = 12;

// What a toy tile computes: a value that depends on the tile alone.
uint64_t tile_value(uint32_t id) { return uint64_t(id) * id * 1000003 + 7; }

// The toy's knobs: when to stop or die, and what it saw.
struct Toy {
  std::string parameter = "v1";  // a resume must match it
  int stop_at_run = -1;          // the worker running its n-th tile asks to stop (SIGTERM)
  int die_at_store = -1;         // the n-th store() ends the process at once
  std::atomic<int> runs{0}, stores{0};
  std::vector<uint32_t> replayed;
};

class ToyWorker : public TileWorker {
 public:
  explicit ToyWorker(Toy& toy) : toy_(toy) {}
  DeviceCapacity capacity() const override { return {"toy", 1, 1, 0}; }
  std::string run(const Tile& tile) override {
    if (++toy_.runs == toy_.stop_at_run) request_stop(SIGTERM);
    WireWriter w;
    w.put(tile.id);
    w.put(tile_value(tile.id));
    return w.take();
  }

 private:
  Toy& toy_;
};

// Tiles 0..11 with falling cells (largest first); the output holds one value per tile,
// written in tile order when the run finishes.
class ToyWorkload : public TiledWorkload {
 public:
  ToyWorkload(Toy& toy, std::string out) : toy_(toy), out_path_(std::move(out)) {}
  std::string name() const override { return "toy"; }
  void load() override {}
  bool worker_per_cpu_thread() const override { return true; }
  std::unique_ptr<TileWorker> make_worker(const EngineSlot&) override { return std::make_unique<ToyWorker>(toy_); }
  std::vector<checkpoint::RunParameter> parameters() const override { return {{"toy_setting", toy_.parameter}}; }
  void create_output() override {
    out_ = std::make_unique<h5::File>(out_path_, h5::Mode::kCreate);
    h5::set_attribute(*out_, "", "program", std::string("hpcalign"));
    h5::set_attribute(*out_, "", "status", std::string("incomplete"));
    out_->flush();
  }
  h5::File& output_file() override { return *out_; }
  TiledPlan plan(const std::vector<DeviceCapacity>&) override {
    TiledPlan p;
    for (uint32_t i = 0; i < kTiles; ++i) {
      Tile t;
      t.id = i;
      t.queries = {i};
      t.cells = 100 * (kTiles - i);
      p.tiles.push_back(t);
    }
    p.notes = {{"toy_tiles", kTiles}};
    return p;
  }
  void write_header(const TiledPlan& plan, const std::vector<DeviceCapacity>&) override {
    h5::set_attribute(*out_, "", "tiles", int64_t(plan.tiles.size()));
  }
  void store(uint32_t tile_id, const std::string& bytes, bool replayed) override {
    if (++toy_.stores == toy_.die_at_store) _exit(9);  // dies after the tile was journalled
    WireReader r(bytes);
    EXPECT_EQ(r.get<uint32_t>(), tile_id);
    EXPECT_TRUE(values_.emplace(tile_id, r.get<uint64_t>()).second) << "tile " << tile_id << " stored twice";
    if (replayed) toy_.replayed.push_back(tile_id);
  }
  void stopped(const std::string& signal_name) override {
    h5::set_attribute(*out_, "", "stopped_by_signal", signal_name);
    out_->close();
  }
  void finish(const RunClock&) override {
    std::vector<uint64_t> column;
    for (const auto& [id, value] : values_) column.push_back(value);
    h5::write_column(*out_, "values", column);
    h5::set_attribute(*out_, "", "status", std::string("complete"));
    out_->close();
  }

 private:
  Toy& toy_;
  std::string out_path_;
  std::unique_ptr<h5::File> out_;
  std::map<uint32_t, uint64_t> values_;
};

RunSettings settings(const std::string& out, bool resume) {
  RunSettings s;
  s.out_path = out;
  s.backend = "cpu";
  s.threads = 2;  // two workers: tiles finish out of order
  s.quiet = true;
  s.resume = resume;
  return s;
}

int run_toy(Toy& toy, const std::string& out, bool resume) {
  ToyWorkload w(toy, out);
  return run_tiled(w, settings(out, resume), MpiContext{});
}

std::vector<uint64_t> values_of(const std::string& out) {
  EXPECT_EQ(read_string_attribute(out, "status"), "complete");
  h5::File f(out, h5::Mode::kReadOnly);
  return h5::read_all<uint64_t>(f, "values");
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<uint64_t> uninterrupted() {
  Toy toy;
  const std::string out = temp_path("toy_whole.h5");
  EXPECT_EQ(run_toy(toy, out, false), 0);
  EXPECT_EQ(toy.runs, int(kTiles));
  EXPECT_FALSE(exists(TileJournal::path_for(out)));
  std::vector<uint64_t> v = values_of(out);
  EXPECT_EQ(v.size(), kTiles);
  for (uint32_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], tile_value(i));
  return v;
}

TEST(TiledRun, StoppedBySignalThenResumedEqualsAnUninterruptedRun) {
  const std::vector<uint64_t> whole = uninterrupted();
  const std::string out = temp_path("toy_stopped.h5");
  Toy first;
  first.stop_at_run = 4;
  EXPECT_EQ(run_toy(first, out, false), 0);  // a stop is a clean exit
  clear_stop_request();
  EXPECT_EQ(read_string_attribute(out, "status"), "incomplete");
  EXPECT_EQ(read_string_attribute(out, "stopped_by_signal"), "SIGTERM");
  const size_t journalled = TileJournal::read(TileJournal::path_for(out)).tiles.size();
  EXPECT_GE(journalled, 4u);  // the tiles in flight were delivered
  EXPECT_LT(journalled, size_t(kTiles));

  Toy second;
  EXPECT_EQ(run_toy(second, out, true), 0);
  EXPECT_EQ(values_of(out), whole);
  EXPECT_EQ(second.replayed.size(), journalled);
  EXPECT_EQ(size_t(second.runs), kTiles - journalled);  // only the others ran
  EXPECT_FALSE(exists(TileJournal::path_for(out)));
}

TEST(TiledRun, KilledAbruptlyThenResumedEqualsAnUninterruptedRun) {
  const std::vector<uint64_t> whole = uninterrupted();
  const std::string out = temp_path("toy_killed.h5");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Toy toy;
    toy.die_at_store = 6;
    run_toy(toy, out, false);
    _exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 9);
  // The dying store came after its tile was journalled: six tiles.
  ASSERT_EQ(TileJournal::read(TileJournal::path_for(out)).tiles.size(), 6u);

  Toy again;
  EXPECT_EQ(run_toy(again, out, true), 0);
  EXPECT_EQ(values_of(out), whole);
  EXPECT_EQ(again.replayed.size(), 6u);
  EXPECT_EQ(again.runs, int(kTiles) - 6);
}

TEST(TiledRun, ResumeWithOtherParametersIsRefusedNamingThem) {
  const std::string out = temp_path("toy_params.h5");
  Toy first;
  first.stop_at_run = 2;
  EXPECT_EQ(run_toy(first, out, false), 0);
  clear_stop_request();
  Toy other;
  other.parameter = "v2";
  const std::string e = error_of([&] { run_toy(other, out, true); });
  EXPECT_NE(e.find("toy_setting"), std::string::npos) << e;
  EXPECT_EQ(other.runs, 0);
  Toy same;  // the refusal changed nothing: the right parameters still resume
  EXPECT_EQ(run_toy(same, out, true), 0);
  EXPECT_EQ(values_of(out).size(), kTiles);
}

TEST(TiledRun, ACompleteOutputIsNotResumed) {
  Toy toy;
  const std::string out = temp_path("toy_complete.h5");
  EXPECT_EQ(run_toy(toy, out, false), 0);
  Toy again;
  EXPECT_NE(error_of([&] { run_toy(again, out, true); }).find("complete"), std::string::npos);
  EXPECT_EQ(again.runs, 0);
}

}  // namespace
}  // namespace hpc
