#include "src/workloads/search.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <utility>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/result_file.hpp"
#include "io/run_merge.hpp"
#include "kernels/backend.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/wire.hpp"
#include "src/plan/search_plan.hpp"
#include "src/stats/karlin.hpp"
#include "src/stats/query_calibration.hpp"
#include "src/stats/search_statistics.hpp"
#include "src/workloads/run_attributes.hpp"
#include "src/workloads/staged_rows_workload.hpp"
#include "src/workloads/tile_runs.hpp"
#include "src/workloads/tiled_run.hpp"

namespace hpc {
namespace {

double steady_ms(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(t.time_since_epoch()).count();
}

// Seconds a worker spent on one tile (summed on the master).
struct TileTimes {
  double search = 0;  // search_tile: scores and top-k
  double align = 0;   // align: coordinates and CIGARs of the kept hits
  double rescore = 0; // --rescore: shuffles, their scores and fits
  double stage = 0;   // sorting the rows into the worker's run file
  TileTimes& operator+=(const TileTimes& o) {
    search += o.search, align += o.align, rescore += o.rescore, stage += o.stage;
    return *this;
  }
};

// A tile's worker bytes: its times, then its rows' run place or the rows (tile_runs.hpp).
struct TileResult {
  TileTimes times;
  TileRun<HitRecords> rows;
};
TileResult decode_result(const std::string& bytes) {
  WireReader r(bytes);
  TileResult t;
  t.times.search = r.get<double>();
  t.times.align = r.get<double>();
  t.times.rescore = r.get<double>();
  t.rows = TileRun<HitRecords>::get(r);
  t.times.stage = t.rows.stage_seconds;
  return t;
}

// Everything a rank needs to run search tiles; loaded identically on every rank.
struct SearchJob {
  SequenceSet queries;
  Database db;
  SearchSetup setup;
  KarlinParams karlin;
  SearchStatistics stats;          // --stats: bits and E-value of each hit
  std::vector<int32_t> min_score;  // per query: lowest score within --evalue (regress: its fallback's)
  double max_evalue = 0;
  uint32_t max_hits = 0;  // --max-hits (setup.max_hits may keep more: regress on a small database)
};

void load_job(const SearchOptions& opt, SearchJob& job) {
  if (opt.max_hits < 1) throw Error("--max-hits must be at least 1");
  if (!(opt.max_evalue > 0)) throw Error("--evalue must be positive");
  if (opt.rescore.top > 0 && opt.rescore.shuffles < kMinGumbelSamples)
    throw Error("--permutations must be at least " + std::to_string(kMinGumbelSamples) + " (~1000 for a useful fit)");
  job.setup.matrix = load_matrix(opt.matrix);
  const GapCosts gaps{opt.gap_open, opt.gap_extend};
  const auto karlin = run_karlin_params(job.setup.matrix.name, gaps, opt.lambda, opt.K);
  if (!karlin) throw Error(no_published_params(job.setup.matrix.name, gaps) + ". Give --lambda and --K to use it anyway.");
  job.karlin = *karlin;
  job.queries = read_fasta_warned(opt.query_path, opt.run.quiet);
  FastaReport db_rep;
  job.db = load_database(opt.db_path, ResidueRules::kBlast, &db_rep);
  if (!opt.run.quiet) warn_fasta_report(opt.db_path, db_rep);
  if (job.db.seqs.empty()) throw InputError(opt.db_path, 0, "no sequences in the database");
  job.setup.queries = &job.queries;
  job.setup.db = &job.db;
  job.setup.gaps = {opt.gap_open, opt.gap_extend};
  job.setup.max_hits = opt.max_hits;
  job.max_hits = opt.max_hits;
  // regress on a database no larger than its sample: the tiles keep every score and fit on them.
  if (fits_regression(parse_stats_mode(opt.stats)) && job.db.seqs.size() <= kCalibrationSubjects)
    job.setup.max_hits = std::max<uint32_t>(opt.max_hits, uint32_t(job.db.seqs.size()));
  job.stats = SearchStatistics(parse_stats_mode(opt.stats), job.setup.matrix, job.setup.gaps, job.karlin, job.db);
  job.max_evalue = opt.max_evalue;
  for (size_t q = 0; q < job.queries.size(); ++q)
    job.min_score.push_back(job.stats.min_score(job.queries.length(q), opt.max_evalue));
}

class SearchWorker : public TileWorker {
 public:
  // `calibration`: regress's per-tile fits (null for the other modes).
  // `rescorer`: --rescore's permutation E-values (null without it).
  // `out_path`, `worker`: where the worker stages its tiles' rows (tile_runs.hpp).
  // `threads`: the worker's share of the host cores (its per-hit statistics).
  SearchWorker(const SearchJob& job, std::unique_ptr<SearchBackend> backend, std::unique_ptr<QueryCalibration> calibration,
               std::unique_ptr<HitRescorer> rescorer, const std::string& out_path, int worker, int threads)
      : job_(job), backend_(std::move(backend)), calibration_(std::move(calibration)), rescorer_(std::move(rescorer)),
        runs_(out_path, worker), threads_(size_t(std::max(1, threads))) {
    backend_->prepare(job_.setup);
  }
  DeviceCapacity capacity() const override { return backend_->capacity(); }
  bool looks_ahead() const override { return backend_->scores_ahead(); }
  void run_next(const Tile& next) override { next_ = next; }

  ~SearchWorker() override { clock_.report("search worker (summed)"); }

  std::string run(const Tile& tile) override {
    TileTimes times;
    clock_.restart();
    const auto started = std::chrono::steady_clock::now();
    const std::optional<Tile> next = std::exchange(next_, std::nullopt);
    auto t0 = std::chrono::steady_clock::now();
    // regress: the tile's queries' fits, in tile.queries order (a function of the inputs alone),
    // from the tile's own scores when they hold the whole sample.
    const bool own_scores = calibration_ && calibration_->whole_database() && calibration_->in_tile(tile) &&
                            job_.setup.max_hits >= job_.db.seqs.size();
    // Else from the tile's scores of the sample when its partition holds the sample (no second
    // search), else from the calibration's own search of the sample.
    const bool sampled = calibration_ && !own_scores && calibration_->in_tile(tile);
    std::vector<QueryFit> fits;
    if (calibration_ && !own_scores && !sampled) fits = calibration_->fit(tile.queries);
    SearchBackend::SampledTile scored;  // too large a tile: the driver splits it
    if (sampled)
      scored = backend_->search_tile_sampled(tile, calibration_->positions());
    else
      scored.top = backend_->search_tile(tile);
    // The next tile's scores run on the device while this one is fitted, aligned and staged.
    if (next) backend_->search_tile_ahead(*next);
    std::vector<std::vector<ScoredTarget>> top = std::move(scored.top);
    if (sampled) fits = calibration_->fit_sampled(tile.queries, scored.sample, *backend_);
    if (own_scores) fits = calibration_->fit_from(tile.queries, top, *backend_);
    times.search = seconds_since(t0);
    clock_.mark("search_tile");
    std::vector<AlignRequest> reqs;
    std::vector<const QueryFit*> fit_of;  // per request
    // Queries in index order: the rows are then in hit_order already (the run file's sort).
    std::vector<size_t> by_query(tile.queries.size());
    for (size_t k = 0; k < by_query.size(); ++k) by_query[k] = k;
    std::sort(by_query.begin(), by_query.end(), [&](size_t a, size_t b) { return tile.queries[a] < tile.queries[b]; });
    for (const size_t k : by_query) {
      const uint32_t q = tile.queries[k];
      const QueryFit* fit = fits.empty() || !fits[k].regression.ok ? nullptr : &fits[k];
      const int32_t min_score = fit ? job_.stats.min_score(*fit, job_.max_evalue) : job_.min_score[q];
      for (size_t j = 0; j < top[k].size() && j < job_.max_hits; ++j) {
        const ScoredTarget& st = top[k][j];
        if (st.score < min_score) break;  // sorted by score: the rest is worse
        reqs.push_back({q, st.target, st.score});
        fit_of.push_back(fit);
      }
    }
    clock_.mark("requests");
    t0 = std::chrono::steady_clock::now();
    // The CIGARs stay in one buffer, to the run file, unless the statistics read them.
    const bool flat = !job_.stats.reads_alignments();
    CigarBuffer cigars;
    auto alns = flat ? backend_->align_flat(reqs, cigars) : backend_->align(reqs);
    times.align = seconds_since(t0);
    clock_.mark("align");
    std::vector<Hit> hits(reqs.size());
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (alns[i].score != reqs[i].score)
        throw Error("internal: alignment score " + std::to_string(alns[i].score) + " differs from search score " +
                    std::to_string(reqs[i].score) + " for query " + job_.queries.ids[reqs[i].query] + " and target " +
                    job_.db.seqs.ids[reqs[i].target]);
      hits[i].query = reqs[i].query;
      hits[i].target = reqs[i].target;
      hits[i].aln = std::move(alns[i]);
    }
    clock_.mark("hits");
    // Bits and E-values on the worker's cores (a self-search keeps hundreds of hits a query).
    run_ranges(hits.size(), hits.size() < (1u << 14) ? 1 : threads_, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        Hit& h = hits[i];
        job_.stats.annotate(h, job_.queries.view(h.query), job_.db.seqs.view(h.target), fit_of[i]);
      }
    });
    clock_.mark("statistics");
    if (rescorer_) {  // the tile holds the whole database: each query's top hits are global
      t0 = std::chrono::steady_clock::now();
      rescorer_->rescore(hits);
      times.rescore = seconds_since(t0);
    }
    WireWriter w;
    w.put(times.search);
    w.put(times.align);
    w.put(times.rescore);
    // Each query's best --max-hits of this tile at most: the merge takes its best over all tiles.
    runs_.put(w, tile.id, hits, flat ? &cigars : nullptr);
    clock_.mark("rescore, staging");
    if (clock_.on())  // a timeline across the workers: start and end on the steady clock
      std::fprintf(stderr, "search tile %u: %zu queries, %zu hits, %.1f to %.1f ms: search_tile %.1f, align %.1f ms\n",
                   tile.id, tile.queries.size(), hits.size(), steady_ms(started),
                   steady_ms(std::chrono::steady_clock::now()), 1e3 * times.search, 1e3 * times.align);
    return w.take();
  }

 private:
  const SearchJob& job_;
  std::unique_ptr<SearchBackend> backend_;
  std::unique_ptr<QueryCalibration> calibration_;
  std::unique_ptr<HitRescorer> rescorer_;
  TileRunWriter<HitRecords> runs_;
  size_t threads_;
  std::optional<Tile> next_;  // the tile the scheduler hands this worker next (run_next)
  StageClock clock_;  // HPCALIGN_CUDA_TIMING: the worker's stages, summed over its tiles
};

// Everything that changes the results: content fingerprints (not paths: a file may move
// between nodes) and the scoring and reporting options.
std::vector<checkpoint::RunParameter> run_parameters(const SearchOptions& opt, const SearchJob& job) {
  return {
      {"queries", checkpoint::fingerprint(job.queries)},
      {"database", checkpoint::fingerprint(job.db.seqs)},
      {"matrix", checkpoint::fingerprint(job.setup.matrix)},
      {"gap_open", std::to_string(opt.gap_open)},
      {"gap_extend", std::to_string(opt.gap_extend)},
      {"max_hits", std::to_string(opt.max_hits)},
      {"evalue", checkpoint::exact(opt.max_evalue)},
      {"lambda", checkpoint::exact(job.karlin.lambda)},
      {"K", checkpoint::exact(job.karlin.K)},
      {"stats", to_string(job.stats.mode())},
      {"rescore", std::to_string(opt.rescore.top)},
      {"permutations", std::to_string(opt.rescore.shuffles)},
      {"seed", std::to_string(opt.rescore.seed)},
      tile_rows_parameter(),
  };
}

// The search on the tiled-run driver (src/workloads/tiled_run.hpp).
class SearchRun : public StagedRowsWorkload<HitRecords, TileResult> {
 public:
  explicit SearchRun(const SearchOptions& opt) : StagedRowsWorkload(opt.run.out_path), opt_(opt) {}
  std::string name() const override { return "search"; }
  void load() override { load_job(opt_, job_); }
  // 4, 8 or 12 workers per GPU for many queries (the host stages of some overlap the others' kernels).
  int workers_per_gpu() const override { return search_workers_per_gpu(job_.queries, job_.db.seqs.size()); }
  std::unique_ptr<TileWorker> make_worker(const EngineSlot& slot) override {
    auto calibration = fits_regression(job_.stats.mode())
                           ? std::make_unique<QueryCalibration>(job_.setup, slot.kind(), slot.device_index(), slot.threads,
                                                                &job_.stats)
                           : nullptr;
    auto rescorer = opt_.rescore.top > 0 ? std::make_unique<HitRescorer>(opt_.rescore, job_.setup, slot.kind(),
                                                                         slot.device_index(), slot.threads)
                                         : nullptr;
    return std::make_unique<SearchWorker>(job_, make_search_backend(slot.kind(), slot.device_index(), slot.threads),
                                          std::move(calibration), std::move(rescorer), opt_.run.out_path, slot.worker,
                                          slot.threads);
  }
  std::vector<checkpoint::RunParameter> parameters() const override { return run_parameters(opt_, job_); }
  void create_output() override {
    out_ = std::make_unique<ResultFile>(opt_.run.out_path);
    runs_.prepare(opt_.run.resume);
  }
  h5::File& output_file() override { return out_->h5_file(); }

  TiledPlan plan(const std::vector<DeviceCapacity>& caps) override {
    // Every tile holds the whole database for regress on a small database (the tile's scores
    // are the sample) and for --rescore (a query's top hits are all in its tile).
    PlanOptions po;
    if (many_queries_small_database(job_.queries, job_.db.seqs.size())) {
      po.tiles_per_worker = kSmallDatabaseTilesPerWorker;
      po.query_weight = kSmallDatabaseQueryWeight;
    }
    po.whole_database = (job_.setup.max_hits >= job_.db.seqs.size() && fits_regression(job_.stats.mode())) ||
                        opt_.rescore.top > 0;
    SearchPlan plan = plan_search(job_.queries, job_.db, caps, po);
    return {std::move(plan.tiles),
            {{"tile_query_batches", plan.query_batches},
             {"tile_db_partitions", plan.partitions},
             {"tile_min_pairs", int64_t(plan.min_tile_pairs)}}};
  }

  void write_header(const TiledPlan& plan, const std::vector<DeviceCapacity>& caps) override {
    const std::string backend = caps.empty() ? "" : caps.front().name;
    if (opt_.run.verbose)
      std::cerr << "hpcalign: " << caps.size() << " worker(s), " << backend << "; plan: "
                << plan_note(plan.notes, "tile_query_batches") << " query batch(es) x "
                << plan_note(plan.notes, "tile_db_partitions") << " partition(s) = " << plan.tiles.size()
                << " tiles, >= " << plan_note(plan.notes, "tile_min_pairs") << " pairs per tile to fill the device\n";
    write_run_attributes(*out_, "search", opt_.command_line, backend, caps.size());
    out_->set_attribute("matrix", job_.setup.matrix.name);
    out_->set_attribute("gap_open", int64_t(opt_.gap_open));
    out_->set_attribute("gap_extend", int64_t(opt_.gap_extend));
    out_->set_attribute("max_hits", int64_t(opt_.max_hits));
    out_->set_attribute("max_evalue", opt_.max_evalue);
    out_->set_attribute("lambda", job_.karlin.lambda);
    out_->set_attribute("K", job_.karlin.K);
    out_->set_attribute("stats", std::string(to_string(job_.stats.mode())));
    out_->set_attribute("rescore", int64_t(opt_.rescore.top));
    out_->set_attribute("rescore_permutations", int64_t(opt_.rescore.shuffles));
    out_->set_attribute("rescore_seed", int64_t(opt_.rescore.seed));
    out_->set_attribute("query_file", opt_.query_path);
    out_->set_attribute("database", opt_.db_path);
    out_->set_attribute("db_sequences", int64_t(job_.db.seqs.size()));
    out_->set_attribute("db_residues", int64_t(job_.db.seqs.total_residues()));
    out_->set_attribute("tiles", int64_t(plan.tiles.size()));
    for (const auto& [name, value] : plan.notes) out_->set_attribute(name, value);
    out_->write_sequences("queries", job_.queries);
    out_->write_sequences("targets", job_.db.seqs);
  }

  TileResult decode(const std::string& bytes) const override { return decode_result(bytes); }
  void stored(const TileResult& t, bool replayed) override {
    if (!replayed) summed_ += t.times;
  }

  void stopped(const std::string& signal_name) override { out_->mark_stopped(signal_name); }

  void finish(const RunClock& clock) override {
    const double load_seconds = clock.load_seconds();
    const double prepare_seconds = std::chrono::duration<double>(clock.phase_start - clock.loaded).count();
    const double phase_seconds = clock.phase_seconds();
    // Cell updates per second of the search phase: sum |q| x database residues / phase time.
    const double cells = double(job_.queries.total_residues()) * double(job_.db.seqs.total_residues());
    const double gcups = phase_seconds > 0 ? cells / phase_seconds / 1e9 : 0.0;
    out_->set_attribute("load_seconds", load_seconds);
    out_->set_attribute("prepare_seconds", prepare_seconds);
    out_->set_attribute("search_phase_seconds", phase_seconds);
    out_->set_attribute("search_tile_seconds", summed_.search);
    out_->set_attribute("align_seconds", summed_.align);
    out_->set_attribute("rescore_seconds", summed_.rescore);
    out_->set_attribute("stage_seconds", summed_.stage);
    out_->set_attribute("search_phase_gcups", gcups);
    if (opt_.run.verbose)
      std::fprintf(stderr,
                   "hpcalign: timing: load %.3f s, prepare %.3f s, search phase %.3f s (%.1f GCUPS); summed over "
                   "workers: search_tile %.3f s, align %.3f s, rescore %.3f s, staging their rows %.3f s; master: storing "
                   "results %.3f s\n",
                   load_seconds, prepare_seconds, phase_seconds, gcups, summed_.search, summed_.align, summed_.rescore,
                   summed_.stage, clock.store_seconds);
    // Each query's best max_hits over all tiles (hit_order: score descending, then target),
    // then those within max_evalue, merged from the workers' runs on all cores (bounded
    // memory). E-values with a per-subject term are not monotone in the score, so cutting
    // them before the top-k would make the result depend on the tiling.
    MergeRules rules;
    rules.max_per_query = opt_.max_hits;
    rules.max_evalue = opt_.max_evalue;
    rows_ = merge_tile_runs(runs_, *out_, rules, opt_.run.verbose);
  }

  void summary() override {
    if (!opt_.run.quiet)
      std::cerr << "hpcalign: " << rows_ << " hits for " << job_.queries.size() << " queries written to "
                << opt_.run.out_path << "\n";
  }

 private:
  const SearchOptions& opt_;
  SearchJob job_;
  std::unique_ptr<ResultFile> out_;
  TileTimes summed_;  // over this run's tiles
  uint64_t rows_ = 0;
};

}  // namespace

int run_search(const SearchOptions& opt, const MpiContext& mpi) {
  SearchRun run(opt);
  return run_tiled(run, opt.run, mpi);
}

}  // namespace hpc
