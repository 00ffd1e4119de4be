#include "src/workloads/tile_runs.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "io/result_file.hpp"
#include "src/core/error.hpp"
#include "src/core/stage_clock.hpp"
#include "src/workloads/hit_wire.hpp"

namespace hpc {
namespace {

enum TileRows : uint8_t { kInRunFile = 'R', kInline = 'H' };

// CPU seconds (user + system) of this process: --verbose shows what the final merge cost on
// shared cores, where walls are loose.
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

checkpoint::RunParameter tile_rows_parameter() { return {"tile_rows", "worker run files"}; }

TileRunWriter::TileRunWriter(const std::string& out_path, int worker)
    : run_dir_(run_directory_for(out_path)), file_(run_dir_, "w" + std::to_string(worker)) {}

void TileRunWriter::put(WireWriter& w, uint32_t tile, std::vector<Hit>& rows, const CigarBuffer* cigars) {
  // The master creates the directory before it hands out the first tile.
  if (!sees_run_dir_) sees_run_dir_ = std::filesystem::is_directory(run_dir_);
  if (*sees_run_dir_) {
    const auto t0 = std::chrono::steady_clock::now();
    const StagedRun run = file_.write(tile, rows, cigars);
    w.put(seconds_since(t0));
    w.put<uint8_t>(kInRunFile);
    run.put(w);
  } else {
    w.put(0.0);
    w.put<uint8_t>(kInline);
    if (cigars)
      for (size_t k = 0; k < rows.size(); ++k) rows[k].aln.cigar.assign(cigars->at(k));
    put_hits(w, rows);
  }
}

TileRun TileRun::get(WireReader& r) {
  TileRun t;
  t.stage_seconds = r.get<double>();
  const uint8_t kind = r.get<uint8_t>();
  if (kind == kInRunFile)
    t.run = StagedRun::get(r);
  else if (kind == kInline)
    t.inline_rows = true, t.rows = get_hits(r);
  else
    throw Error("internal: a tile result of unknown kind " + std::to_string(int(kind)));
  return t;
}

void TileRuns::store(uint32_t tile_id, TileRun& t) {
  if (t.inline_rows) {
    if (!master_file_) master_file_ = std::make_unique<RunFileWriter>(run_dir_, "master");
    t.run = master_file_->write(tile_id, t.rows);
  }
  runs_.push_back(std::move(t.run));
}

uint64_t TileRuns::finish(ResultFile& out, const MergeRules& rules, bool verbose) {
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu_before = process_cpu_seconds();
  MergeTimes stages;
  MergeRules timed = rules;
  if (!timed.times) timed.times = &stages;
  master_file_.reset();
  const uint64_t rows = out.finish_merged(RunFiles(run_dir_, runs_), timed);
  remove_run_directory(run_dir_);
  if (verbose) {
    const MergeTimes& t = *timed.times;
    std::fprintf(stderr,
                 "hpcalign: timing: final merge of %zu sorted runs and write %.3f s (%.3f s of CPU); stages, "
                 "overlapping: counting rows %.3f s, reading %.3f s, merging %.3f s, deflating %.3f s, storing "
                 "%.3f s, the merging thread waited %.3f s\n",
                 runs_.size(), seconds_since(t0), process_cpu_seconds() - cpu_before, t.count, t.read, t.merge,
                 t.deflate, t.store, t.waited);
  }
  return rows;
}

}  // namespace hpc
