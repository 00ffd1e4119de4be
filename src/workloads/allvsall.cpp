#include "src/workloads/allvsall.hpp"

#include <algorithm>
#include <memory>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/result_file.hpp"
#include "io/run_levels.hpp"
#include "kernels/allvsall_engine.hpp"
#include "kernels/fault_injection.hpp"
#include "src/core/error.hpp"
#include "src/core/free_heap.hpp"
#include "src/core/progress.hpp"
#include "src/core/stage_clock.hpp"
#include "src/plan/allvsall_plan.hpp"
#include "src/stats/karlin.hpp"
#include "src/workloads/run_attributes.hpp"
#include "src/workloads/staged_rows_workload.hpp"
#include "src/workloads/tile_runs.hpp"
#include "src/workloads/tiled_run.hpp"

namespace hpc {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A tile's engine time, sent ahead of its hits and summed by the master (timing attributes).
struct TileTimes {
  double score_seconds = 0, align_seconds = 0;
  double stage_seconds = 0;  // sorting the rows and writing them to the worker's run file
  TileTimes& operator+=(const TileTimes& o) {
    score_seconds += o.score_seconds, align_seconds += o.align_seconds, stage_seconds += o.stage_seconds;
    return *this;
  }
};

// Everything a rank needs; loaded identically on every rank.
struct AllVsAllJob {
  SequenceSet queries, targets_storage;
  const SequenceSet* targets = nullptr;  // &queries for a square screen
  bool square = true;
  std::vector<uint32_t> target_order;    // length_order(*targets): decodes tiles
  AllVsAllSetup setup;
  std::optional<KarlinParams> karlin;    // local mode only
};

std::optional<KarlinParams> karlin_for(const AllVsAllOptions& opt, const ScoreMatrix& m, AlignMode mode) {
  if (mode != AlignMode::Local) {
    if (opt.max_evalue) throw Error("--evalue needs --mode local (global and semiglobal scores have no E-values)");
    return std::nullopt;
  }
  const GapCosts gaps{opt.gap_open, opt.gap_extend};
  auto p = run_karlin_params(m.name, gaps, opt.lambda, opt.K);
  if (!p && opt.max_evalue) throw Error("--evalue: " + no_published_params(m.name, gaps) + "; give --lambda and --K");
  return p;
}

void load_job(const AllVsAllOptions& opt, AllVsAllJob& job) {
  if (opt.max_evalue && !(*opt.max_evalue > 0)) throw Error("--evalue must be positive");
  job.setup.mode = parse_align_mode(opt.mode);
  job.setup.matrix = load_matrix(opt.matrix);
  job.setup.gaps = {opt.gap_open, opt.gap_extend};
  job.setup.traceback_budget = opt.traceback_budget;
  job.karlin = karlin_for(opt, job.setup.matrix, job.setup.mode);
  job.queries = read_fasta_warned(opt.input_path, opt.run.quiet);
  job.square = opt.second_path.empty();
  if (!job.square) job.targets_storage = read_fasta_warned(opt.second_path, opt.run.quiet);
  job.targets = job.square ? &job.queries : &job.targets_storage;
  job.setup.queries = &job.queries;
  job.setup.targets = job.targets;
  job.target_order = length_order(*job.targets);
}

// A hit's bit score and e^{-lambda S} by its score, computed once a score (a screen's millions
// of hits share a few hundred scores; the values are those bit_score and evalue compute).
class ScoreStats {
 public:
  struct Entry {
    double bits = 0, decay = 0;
    bool known = false;
  };
  explicit ScoreStats(const std::optional<KarlinParams>& karlin) : karlin_(karlin) {}
  const Entry& at(int32_t score) {
    if (score < 0 || score >= kCachedScores) return other_ = compute(score);
    const size_t i = size_t(score);
    if (i >= entries_.size()) entries_.resize(i + 1);
    if (!entries_[i].known) entries_[i] = compute(score);
    return entries_[i];
  }

 private:
  static constexpr int32_t kCachedScores = 1 << 16;
  Entry compute(int32_t score) const { return {bit_score(*karlin_, score), score_decay(*karlin_, score), true}; }
  const std::optional<KarlinParams>& karlin_;
  std::vector<Entry> entries_;
  Entry other_;
};

class AllVsAllWorker : public TileWorker {
 public:
  AllVsAllWorker(const AllVsAllJob& job, const AllVsAllOptions& opt, std::unique_ptr<AllVsAllEngine> engine,
                 const std::string& out_path, int worker)
      : job_(job), opt_(opt), engine_(std::move(engine)), runs_(out_path, worker), stats_(job.karlin) {}
  DeviceCapacity capacity() const override { return engine_->capacity(); }
  bool looks_ahead() const override { return engine_->scores_ahead(); }
  void run_next(const Tile& next) override { next_ = next; }

  ~AllVsAllWorker() override { clock_.report("allvsall worker (summed)"); }

  std::string run(const Tile& tile) override {
    clock_.mark("worker: between tiles");
    TileTimes times;
    auto t0 = std::chrono::steady_clock::now();
    // The next tile's scores run on the device while this tile is aligned and staged. With
    // alignments, queued before this tile's wait where this one is queued already (the engine
    // holds two), so that the GPU's queue does not empty while the four workers align and
    // stage. Score-only runs' eight workers keep it full: there a second queued tile each
    // measured 3% slower (one H100, 20,000 sequences, --min-score 50).
    const bool queued = queued_id_ == tile.id;
    if (next_ && queued && !opt_.score_only) queue_next();
    std::vector<ScoredPair> scored = score_tile(tile);
    if (next_) queue_next();
    times.score_seconds = seconds_since(t0);
    clock_.mark("worker: score");
    std::vector<Hit> hits;
    size_t kept = 0;  // scored[0, kept): the pairs to align (those of the hits), compacted in place
    hits.reserve(scored.size());
    for (const ScoredPair& sp : scored) {
      Hit& h = hits.emplace_back();
      h.query = sp.pair.query;
      h.target = sp.pair.target;
      h.aln.score = sp.score;
      h.bits = h.evalue = kNaN;
      if (job_.karlin) {
        const ScoreStats::Entry& s = stats_.at(h.aln.score);
        h.bits = s.bits;
        h.evalue = evalue_from_decay(*job_.karlin, job_.queries.length(h.query), job_.targets->length(h.target), s.decay);
      }
      if (opt_.max_evalue && !(h.evalue <= *opt_.max_evalue)) {
        hits.pop_back();
        continue;
      }
      scored[kept++] = sp;
    }
    // A tile's buffers go as soon as they are used: a screen's long-sequence tiles keep
    // hundreds of thousands of hits of ~400 CIGAR characters each, on every worker at once.
    scored.resize(kept);
    if (opt_.score_only) release(scored);
    AlignedPairs aligned;  // the CIGARs stay in the engine's one buffer, staged from there
    if (!opt_.score_only) {
      t0 = std::chrono::steady_clock::now();
      injected_out_of_memory(cells_of(scored), "tile " + std::to_string(tile.id));
      aligned = engine_->align_scored_flat(scored);
      release(scored);
      times.align_seconds = seconds_since(t0);
      for (size_t k = 0; k < hits.size(); ++k) {
        const Alignment& a = aligned.alns[k];
        if (a.score != hits[k].aln.score)
          throw Error("internal: alignment score " + std::to_string(a.score) + " differs from the score pass (" +
                      std::to_string(hits[k].aln.score) + ") for " + job_.queries.ids[hits[k].query] + " and " +
                      job_.targets->ids[hits[k].target]);
        hits[k].aln.qstart = a.qstart, hits[k].aln.qend = a.qend;
        hits[k].aln.tstart = a.tstart, hits[k].aln.tend = a.tend;
      }
      release(aligned.alns);
    }
    clock_.mark("worker: hits and alignments");
    WireWriter w;
    w.put(times.score_seconds);
    w.put(times.align_seconds);
    runs_.put(w, tile.id, hits, opt_.score_only ? nullptr : &aligned.cigars);
    std::string bytes = w.take();
    clock_.mark("worker: sort, stage and encode");
    return bytes;
  }

 private:
  // The tile's pairs at or above --min-score (the cut comes first: a screen's tiles hold
  // millions of pairs, most of them cut). A tile that does not fit the device throws
  // hpc::OutOfMemory (here or in the alignments): the driver splits it.
  std::vector<ScoredPair> score_tile(const Tile& tile) {
    injected_out_of_memory(tile.cells, "tile " + std::to_string(tile.id));
    return engine_->score_tile(tile, job_.target_order, job_.square, opt_.min_score);
  }

  void queue_next() {
    engine_->score_tile_ahead(*next_, job_.target_order, job_.square);
    queued_id_ = next_->id;
    next_.reset();
  }

  template <class T>
  static void release(std::vector<T>& v) {
    std::vector<T>().swap(v);
  }

  uint64_t cells_of(const std::vector<ScoredPair>& pairs) const {
    uint64_t cells = 0;
    for (const ScoredPair& sp : pairs)
      cells += uint64_t(job_.queries.length(sp.pair.query)) * job_.targets->length(sp.pair.target);
    return cells;
  }

  const AllVsAllJob& job_;
  const AllVsAllOptions& opt_;
  std::unique_ptr<AllVsAllEngine> engine_;
  TileRunWriter<HitRecords> runs_;  // the tile's rows, sorted into this worker's run file
  ScoreStats stats_;    // local mode's bits and E-value factor per score
  std::optional<Tile> next_;  // the tile the scheduler hands this worker next (run_next)
  std::optional<uint32_t> queued_id_;  // the tile whose scores the engine was last told to queue
  StageClock clock_;  // HPCALIGN_CUDA_TIMING
};

// A tile's worker bytes: its engine times, then its run's place or its rows (tile_runs.hpp).
struct TileResult {
  TileTimes times;
  TileRun<HitRecords> rows;
};
TileResult decode_result(const std::string& bytes) {
  WireReader rd(bytes);
  TileResult t;
  t.times.score_seconds = rd.get<double>();
  t.times.align_seconds = rd.get<double>();
  t.rows = TileRun<HitRecords>::get(rd);
  t.times.stage_seconds = t.rows.stage_seconds;
  return t;
}

// When every pair is kept, a tile's rows are its pairs: a window of w sequences makes tiles
// of up to w^2 rows, each held by its worker and then by the writer while it is staged
// (~160 bytes a row, score-only). The cap bounds the memory of a run whatever the screen's
// size: 512 keeps two CPU workers and the writer under ~150 MB; a GPU's tiles need to be
// larger to keep it busy (2048: 4M rows). A cut (--min-score, --max-evalue) keeps few pairs:
// the planner's own windows then.
AllVsAllPlanOptions plan_options(const AllVsAllOptions& opt, bool gpu) {
  AllVsAllPlanOptions p;
  if (!opt.min_score && !opt.max_evalue) p.max_window = gpu ? 2048 : 512;
  return p;
}

// GPU runs: the smallest tiles holding this share of the cells are spread among the large ones
// (spread_light_tiles). One H100, 20,000 sequences, --min-score 50 with alignments: the last
// ~150 ms of the phase held 158 of the 561 tiles (~5% of the cells), each 7-14 ms of a worker's
// host work for <1 ms of kernels, and the GPU idled 54-64 ms of them. Spread: phase
// 1.402-1.422 s against 1.426-1.501 s (main, same call); 15% of the cells: 1.401-1.446 s.
constexpr double kGpuLightTileShare = 0.05;

// How the planner cut the screen: attributes, and recorded for a resume.
PlanNotes plan_notes(const AllVsAllPlan& plan) {
  return {{"pairs", int64_t(plan.total_pairs)},
          {"window_sequences", plan.window_sequences},
          {"window_residues", int64_t(plan.window_residues)},
          {"query_windows", int64_t(plan.query_windows.empty() ? 0 : plan.query_windows.size() - 1)},
          {"target_windows", int64_t(plan.target_windows.empty() ? 0 : plan.target_windows.size() - 1)}};
}

// Everything that changes the results (content fingerprints, not paths).
std::vector<checkpoint::RunParameter> run_parameters(const AllVsAllOptions& opt, const AllVsAllJob& job) {
  const auto optional = [](const auto& v) { return v ? checkpoint::exact(double(*v)) : std::string("none"); };
  return {
      {"queries", checkpoint::fingerprint(job.queries)},
      {"targets", job.square ? std::string("the queries (square screen)") : checkpoint::fingerprint(*job.targets)},
      {"mode", to_string(job.setup.mode)},
      {"matrix", checkpoint::fingerprint(job.setup.matrix)},
      {"gap_open", std::to_string(opt.gap_open)},
      {"gap_extend", std::to_string(opt.gap_extend)},
      {"score_only", std::to_string(int(opt.score_only))},
      {"min_score", optional(opt.min_score)},
      {"max_evalue", optional(opt.max_evalue)},
      {"lambda", job.karlin ? checkpoint::exact(job.karlin->lambda) : std::string("none")},
      {"K", job.karlin ? checkpoint::exact(job.karlin->K) : std::string("none")},
      {"traceback_budget", std::to_string(opt.traceback_budget)},
      tile_rows_parameter(),
  };
}

void write_attributes(ResultFile& out, const AllVsAllOptions& opt, const AllVsAllJob& job,
                      const std::vector<Tile>& tiles, uint64_t cells, const PlanNotes& notes,
                      const std::vector<DeviceCapacity>& caps) {
  write_run_attributes(out, "allvsall", opt.command_line, caps.empty() ? "" : caps.front().name, caps.size());
  out.set_attribute("mode", std::string(to_string(job.setup.mode)));
  out.set_attribute("matrix", job.setup.matrix.name);
  out.set_attribute("gap_open", int64_t(opt.gap_open));
  out.set_attribute("gap_extend", int64_t(opt.gap_extend));
  out.set_attribute("screen", std::string(job.square ? "square (upper triangle, no self pairs)" : "rectangle"));
  out.set_attribute("query_file", opt.input_path);
  out.set_attribute("target_file", job.square ? opt.input_path : opt.second_path);
  out.set_attribute("score_only", int64_t(opt.score_only));
  if (opt.min_score) out.set_attribute("min_score", int64_t(*opt.min_score));
  if (opt.max_evalue) out.set_attribute("max_evalue", *opt.max_evalue);
  if (job.karlin) {
    out.set_attribute("lambda", job.karlin->lambda);
    out.set_attribute("K", job.karlin->K);
    out.set_attribute("evalue_search_space", std::string("per pair: query length x target length"));
  }
  out.set_attribute("cells", int64_t(cells));
  out.set_attribute("tiles", int64_t(tiles.size()));
  for (const auto& [name, value] : notes) out.set_attribute(name, value);
  out.set_attribute("traceback_budget", int64_t(opt.traceback_budget));
}

// The screen on the tiled-run driver (src/workloads/tiled_run.hpp).
class AllVsAllRun : public StagedRowsWorkload<HitRecords, TileResult> {
 public:
  explicit AllVsAllRun(const AllVsAllOptions& opt) : StagedRowsWorkload(opt.run.out_path), opt_(opt) {}
  std::string name() const override { return "allvsall"; }
  void load() override { load_job(opt_, job_); }
  // GPU engines: four workers per GPU in a local run, so the host work of some (pair lists,
  // CIGARs, the packed scorer's setup) overlaps the kernels of the others (H200, 20,000
  // sequences, --min-score 50, with alignments: compute phase 2.27-2.35 s with 3 workers,
  // 2.10-2.20 s with 4, 2.15-2.17 s with 5 or 6; score-only 1.52-1.55 s with 3, 1.48-1.52
  // with 4). Score-only screens keep many pairs (host work a row: bits, E-value, sorting and
  // staging it) and take eight: balifam1000's 57,592 sequences at --min-score 35, one H100,
  // compute phase 11.5 s with 4 workers, 10.0 s with 8 (same binary and call). Eight gain
  // nothing with alignments (one H100, 20,000 sequences, --min-score 50: phase 1.53-1.56 s
  // with 8, 1.53-1.58 s with 4): the GPU, not the workers' host work, paces those.
  int workers_per_gpu() const override { return opt_.score_only ? 8 : 4; }
  std::unique_ptr<TileWorker> make_worker(const EngineSlot& slot) override {
    AllVsAllSetup setup = job_.setup;
    setup.engines_on_device = uint32_t(workers_per_gpu());
    return std::make_unique<AllVsAllWorker>(
        job_, opt_, make_allvsall_engine(slot.kind(), slot.device_index(), slot.threads, setup),
        opt_.run.out_path, slot.worker);
  }
  std::vector<Tile> split(const Tile& tile) const override {
    return split_allvsall_tile(tile, job_.queries, *job_.targets, job_.target_order, job_.square);
  }
  std::vector<checkpoint::RunParameter> parameters() const override { return run_parameters(opt_, job_); }
  void create_output() override {
    out_ = std::make_unique<ResultFile>(opt_.run.out_path);
    runs_.prepare(opt_.run.resume);
    // Runs merged in groups while the tiles compute, where they are this process's files.
    if (!engines().distributed) background_ = std::make_unique<BackgroundMerges>(runs_.directory(), kBackgroundGroup);
  }
  h5::File& output_file() override { return out_->h5_file(); }

  TiledPlan plan(const std::vector<DeviceCapacity>& caps) override {
    AllVsAllPlan plan = plan_allvsall(job_.queries, job_.square ? nullptr : job_.targets, caps,
                                      plan_options(opt_, engines().gpu));
    if (engines().gpu) spread_light_tiles(plan.tiles, kGpuLightTileShare);
    PlanNotes notes = plan_notes(plan);
    return {std::move(plan.tiles), std::move(notes)};
  }

  void write_header(const TiledPlan& plan, const std::vector<DeviceCapacity>& caps) override {
    for (const Tile& t : plan.tiles) total_cells_ += t.cells;
    total_pairs_ = uint64_t(plan_note(plan.notes, "pairs"));
    if (opt_.run.verbose)
      std::cerr << "hpcalign: " << caps.size() << " worker(s), " << (caps.empty() ? "" : caps.front().name)
                << "; plan: " << total_pairs_ << " pairs in " << plan.tiles.size() << " tiles, windows of <= "
                << plan_note(plan.notes, "window_sequences") << " sequences / "
                << plan_note(plan.notes, "window_residues") << " residues\n";
    write_attributes(*out_, opt_, job_, plan.tiles, total_cells_, plan.notes, caps);
    out_->write_sequences("queries", job_.queries);
    out_->write_sequences("targets", *job_.targets);
  }

  TileResult decode(const std::string& bytes) const override { return decode_result(bytes); }
  void stored(const TileResult& t, bool replayed) override {
    if (!replayed) summed_ += t.times;
    if (background_) background_->add(runs_.runs().back());
  }

  void stopped(const std::string& signal_name) override { out_->mark_stopped(signal_name); }

  void finish(const RunClock& clock) override {
    // Compute phase: from the plan (every engine ready) to the last tile's result.
    const double phase_seconds = clock.phase_seconds();
    const double gcups = phase_seconds > 0 ? double(total_cells_) / phase_seconds / 1e9 : 0.0;
    out_->set_attribute("load_seconds", clock.load_seconds());
    out_->set_attribute("compute_phase_seconds", phase_seconds);
    out_->set_attribute("compute_phase_gcups", gcups);
    out_->set_attribute("score_seconds_summed", summed_.score_seconds);
    out_->set_attribute("align_seconds_summed", summed_.align_seconds);
    out_->set_attribute("stage_seconds_summed", summed_.stage_seconds);
    if (opt_.run.verbose)
      std::fprintf(stderr,
                   "hpcalign: timing: load %.3f s, engines and plan %.3f s, compute phase %.3f s, %llu pairs, %llu "
                   "cells: %.1f GCUPS; summed over workers: score %.3f s, traceback %.3f s, staging their rows %.3f s; "
                   "master: storing results %.3f s\n",
                   clock.load_seconds(), std::chrono::duration<double>(clock.phase_start - clock.loaded).count(),
                   phase_seconds, (unsigned long long)total_pairs_, (unsigned long long)total_cells_, gcups,
                   summed_.score_seconds, summed_.align_seconds, summed_.stage_seconds, clock.store_seconds);
    release_free_heap();  // the workers' freed tile buffers
    if (opt_.run.verbose)
      std::fprintf(stderr, "hpcalign: peak resident memory before the final merge %ld MiB\n", peak_resident_mib());
    MergeRules final_merge;  // every row kept, in the final merge's own budget (io/run_merge.hpp)
    final_merge.memory = final_merge_memory();
    rows_ = merge_tile_runs(runs_, *out_, final_merge, opt_.run.verbose, background_.get());  // the staged runs, merged into /hits
  }

  void summary() override {
    if (!opt_.run.quiet)
      std::cerr << "hpcalign: " << rows_ << " of " << total_pairs_ << " pairs written to " << opt_.run.out_path << "\n";
  }

 private:
  const AllVsAllOptions& opt_;
  AllVsAllJob job_;
  std::unique_ptr<ResultFile> out_;
  // Runs a background merge takes at once: a screen's 4,371 runs become ~70 of ~2 M rows each,
  // and the merges in flight when the last tile comes leave few runs to the final merge.
  static constexpr size_t kBackgroundGroup = 64;
  std::unique_ptr<BackgroundMerges> background_;  // local runs
  uint64_t total_cells_ = 0, total_pairs_ = 0, rows_ = 0;
  TileTimes summed_;  // over this run's tiles
};

}  // namespace

AlignMode parse_align_mode(const std::string& s) {
  if (s == "local") return AlignMode::Local;
  if (s == "global") return AlignMode::Global;
  if (s == "semiglobal") return AlignMode::SemiGlobal;
  throw Error("--mode must be local, global or semiglobal (got '" + s + "')");
}

int run_allvsall(const AllVsAllOptions& opt, const MpiContext& mpi) {
  AllVsAllRun run(opt);
  return run_tiled(run, opt.run, mpi);
}

}  // namespace hpc
