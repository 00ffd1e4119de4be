#include "src/workloads/tile_runs.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "io/result_file.hpp"
#include "io/run_levels.hpp"
#include "src/core/error.hpp"
#include "src/core/stage_clock.hpp"
#include "src/workloads/hit_wire.hpp"

namespace hpc {
namespace {

enum TileRowsKind : uint8_t { kInRunFile = 'R', kInline = 'I' };

// A record kind's rows into its run file (`cigars`: hits' CIGARs in an engine's buffer).
StagedRun write_rows(const HitRecords& k, RecordFile& f, uint32_t tile, std::vector<Hit>& hits, const CigarBuffer* cigars) {
  return k.write(f, tile, hits, cigars);
}
StagedRun write_rows(const RowSchema& k, RecordFile& f, uint32_t tile, const std::string& packed, const CigarBuffer*) {
  return k.write(f, tile, packed);
}

// Rows that came inline, as the wire carries them (hits with their CIGARs as strings).
void put_rows(WireWriter& w, std::vector<Hit>& hits, const CigarBuffer* cigars) {
  if (cigars)
    for (size_t k = 0; k < hits.size(); ++k) hits[k].aln.cigar.assign(cigars->at(k));
  put_hits(w, hits);
}
void put_rows(WireWriter& w, const std::string& packed, const CigarBuffer*) { w.put(packed); }
void get_rows(WireReader& r, std::vector<Hit>& hits) { hits = get_hits(r); }
void get_rows(WireReader& r, std::string& packed) { packed = r.get_string(); }

// CPU seconds (user + system) of this process: --verbose shows what the final merge cost on
// shared cores, where walls are loose.
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

checkpoint::RunParameter tile_rows_parameter() { return {"tile_rows", "worker run files, places v2"}; }

template <class Records>
TileRunWriter<Records>::TileRunWriter(const std::string& out_path, int worker, Records records)
    : records_(std::move(records)), run_dir_(run_directory_for(out_path)), file_(run_dir_, "w" + std::to_string(worker)) {}

template <class Records>
void TileRunWriter<Records>::put(WireWriter& w, uint32_t tile, typename Records::Rows& rows, const CigarBuffer* cigars) {
  // The master creates the directory before it hands out the first tile.
  if (!sees_run_dir_) sees_run_dir_ = std::filesystem::is_directory(run_dir_);
  if (*sees_run_dir_) {
    const auto t0 = std::chrono::steady_clock::now();
    const StagedRun run = write_rows(records_, file_, tile, rows, cigars);
    w.put(seconds_since(t0));
    w.put<uint8_t>(kInRunFile);
    run.put(w);
  } else {
    w.put(0.0);
    w.put<uint8_t>(kInline);
    put_rows(w, rows, cigars);
  }
}

template <class Records>
TileRun<Records> TileRun<Records>::get(WireReader& r) {
  TileRun t;
  t.stage_seconds = r.get<double>();
  const uint8_t kind = r.get<uint8_t>();
  if (kind == kInRunFile)
    t.run = StagedRun::get(r);
  else if (kind == kInline)
    t.inline_rows = true, get_rows(r, t.rows);
  else
    throw Error("internal: a tile result of unknown kind " + std::to_string(int(kind)));
  return t;
}

template <class Records>
TileRuns<Records>::TileRuns(const std::string& out_path, Records records)
    : records_(std::move(records)), run_dir_(run_directory_for(out_path)), master_file_(run_dir_, "master") {}

template <class Records>
void TileRuns<Records>::store(uint32_t tile_id, TileRun<Records>& t) {
  if (t.inline_rows) t.run = write_rows(records_, master_file_, tile_id, t.rows, nullptr);
  runs_.push_back(std::move(t.run));
  rows_ += runs_.back().rows;
}

template class TileRunWriter<HitRecords>;
template struct TileRun<HitRecords>;
template class TileRuns<HitRecords>;
template class TileRunWriter<RowSchema>;
template struct TileRun<RowSchema>;
template class TileRuns<RowSchema>;

uint64_t merge_tile_runs(const TileRuns<HitRecords>& runs, ResultFile& out, const MergeRules& rules, bool verbose,
                         BackgroundMerges* background) {
  const auto t0 = std::chrono::steady_clock::now();
  MergeLevels before;  // merged while the tiles computed
  const std::vector<StagedRun> all = background ? background->finish(&before) : runs.runs();
  const double waited = seconds_since(t0);  // for the background merge in flight
  const double cpu_before = process_cpu_seconds();
  MergeTimes stages;
  MergeRules timed = rules;
  if (!timed.times) timed.times = &stages;
  MergeLevels levels;
  const std::vector<StagedRun> final_runs = merge_to_fan_in(runs.directory(), all, merge_fan_in(), &levels);
  uint64_t rows = 0;
  double opened = 0;
  {  // the runs' files closed before their removal (a file still open keeps its pages until then)
    const auto opening = std::chrono::steady_clock::now();
    // Merged runs' space freed as the merge consumes it (io/run_files.hpp): a killed merge is
    // resumed from the workers' files, which stay whole.
    const RunFiles final_files(runs.directory(), final_runs, true);
    opened = seconds_since(opening);
    rows = out.finish_merged(final_files, timed);
  }
  const auto removing = std::chrono::steady_clock::now();
  runs.remove();
  const double removed = seconds_since(removing);  // gigabytes of run files: their pages freed
  if (verbose) {
    const MergeTimes& t = *timed.times;
    if (background)
      std::fprintf(stderr,
                   "hpcalign: timing: merged while computing: %zu groups of runs into runs of %llu rows in %.3f s "
                   "(summed over the merges side by side); the merges in flight at the end given up in %.3f s\n",
                   before.merges, (unsigned long long)before.rows, before.seconds, waited);
    std::fprintf(stderr,
                 "hpcalign: timing: final merge of %zu sorted runs and write %.3f s (%.3f s of CPU): first %zu "
                 "intermediate runs of %llu rows in %.3f s, then the last merge of %zu runs; its %zu segments' stages, overlapping: "
                 "counting rows %.3f s, reading %.3f s, merging %.3f s, deflating %.3f s, storing %.3f s, the merging "
                 "thread waited %.3f s, between its stores %.3f s; at most %llu rows read at once by one segment or "
                 "range; around it: runs opened %.3f s, the file's other groups copied %.3f s, /hits completed, closed "
                 "and renamed %.3f s; "
                 "the run files removed in %.3f s\n",
                 all.size(), seconds_since(t0), process_cpu_seconds() - cpu_before, levels.merges,
                 (unsigned long long)levels.rows, levels.seconds, final_runs.size(), t.segments, t.count, t.read, t.merge,
                 t.deflate, t.store, t.waited, t.store_loop, (unsigned long long)t.most_rows_read, opened, t.opening,
                 t.closing, removed);
  }
  return rows;
}

uint64_t merge_tile_runs(const TileRuns<RowSchema>& runs, h5::File& out) {
  return merge_row_runs(runs.directory(), runs.runs(), runs.records(), out);
}

}  // namespace hpc
