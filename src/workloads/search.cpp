#include "src/workloads/search.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <thread>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/result_file.hpp"
#include "kernels/backend.hpp"
#include "src/core/error.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/progress.hpp"
#include "src/core/wire.hpp"
#include "src/plan/search_plan.hpp"
#include "src/stats/karlin.hpp"
#include "src/stats/query_calibration.hpp"
#include "src/stats/search_statistics.hpp"
#include "src/workloads/hit_wire.hpp"
#include "src/workloads/run_attributes.hpp"
#include "src/workloads/search_oom.hpp"
#include "src/workloads/resume.hpp"
#include "src/workloads/worker_threads.hpp"

namespace hpc {
namespace {

// Seconds a worker spent on one tile, inside the backend (summed on the master).
struct TileTimes {
  double search = 0;  // search_tile: scores and top-k
  double align = 0;   // align: coordinates and CIGARs of the kept hits
};

std::string encode_hits(const std::vector<Hit>& hits, const TileTimes& times) {
  WireWriter w;
  w.put(times.search);
  w.put(times.align);
  put_hits(w, hits);
  return w.take();
}

std::vector<Hit> decode_hits(const std::string& bytes, TileTimes* times) {
  WireReader r(bytes);
  times->search = r.get<double>();
  times->align = r.get<double>();
  return get_hits(r);
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

KarlinParams karlin_for(const SearchOptions& opt, const ScoreMatrix& m) {
  if (opt.lambda.has_value() != opt.K.has_value()) throw Error("--lambda and --K must be given together");
  if (opt.lambda) {
    if (!(*opt.lambda > 0) || !(*opt.K > 0)) throw Error("--lambda and --K must be positive");
    return {*opt.lambda, *opt.K, 0};
  }
  GapCosts g{opt.gap_open, opt.gap_extend};
  if (auto p = published_gapped_params(m.name, g)) return *p;
  std::string known;
  for (GapCosts c : supported_gap_costs(m.name)) known += " " + std::to_string(c.open) + "/" + std::to_string(c.extend);
  throw Error("no published Karlin-Altschul parameters for " + m.name + " with gap costs " + std::to_string(g.open) + "/" +
              std::to_string(g.extend) + (known.empty() ? std::string(" (matrix not in the tables)") : "; known:" + known) +
              ". Give --lambda and --K to use it anyway.");
}

void load_job(const SearchOptions& opt, SearchJob& job) {
  if (opt.gap_open < 0 || opt.gap_extend < 1) throw Error("gap costs must satisfy --gapopen >= 0 and --gapextend >= 1");
  if (opt.max_hits < 1) throw Error("--max-hits must be at least 1");
  if (!(opt.max_evalue > 0)) throw Error("--evalue must be positive");
  job.setup.matrix = load_matrix(opt.matrix);
  job.karlin = karlin_for(opt, job.setup.matrix);
  FastaReport rep;
  job.queries = read_fasta(opt.query_path, &rep);
  if (rep.rare_letters && !opt.quiet)
    std::cerr << "hpcalign: warning: " << opt.query_path << ": " << rep.rare_letters << " U/O/J residues scored as X\n";
  job.db = load_database(opt.db_path);
  if (job.db.seqs.empty()) throw InputError(opt.db_path, 0, "no sequences in the database");
  job.setup.queries = &job.queries;
  job.setup.db = &job.db;
  job.setup.gaps = {opt.gap_open, opt.gap_extend};
  job.setup.max_hits = opt.max_hits;
  job.max_hits = opt.max_hits;
  // regress on a database no larger than its sample: the tiles keep every score and fit on them.
  if (opt.stats == "regress" && job.db.seqs.size() <= kCalibrationSubjects)
    job.setup.max_hits = std::max<uint32_t>(opt.max_hits, uint32_t(job.db.seqs.size()));
  job.stats = SearchStatistics(parse_stats_mode(opt.stats), job.setup.matrix, job.setup.gaps, job.karlin, job.db);
  job.max_evalue = opt.max_evalue;
  for (size_t q = 0; q < job.queries.size(); ++q)
    job.min_score.push_back(job.stats.min_score(job.queries.length(q), opt.max_evalue));
}

class SearchWorker : public TileWorker {
 public:
  // `calibration`: regress's per-tile fits (null for the other modes).
  SearchWorker(const SearchJob& job, std::unique_ptr<SearchBackend> backend, std::unique_ptr<QueryCalibration> calibration)
      : job_(job), backend_(std::move(backend)), calibration_(std::move(calibration)) {
    backend_->prepare(job_.setup);
  }
  DeviceCapacity capacity() const override { return backend_->capacity(); }

  std::string run(const Tile& tile) override {
    TileTimes times;
    auto t0 = std::chrono::steady_clock::now();
    // regress: the tile's queries' fits, in tile.queries order (a function of the inputs alone),
    // from the tile's own scores when they hold the whole sample.
    const bool own_scores = calibration_ && calibration_->whole_database() && tile.part_begin == 0 &&
                            tile.part_end == job_.db.seqs.size() && job_.setup.max_hits >= job_.db.seqs.size();
    std::vector<LengthRegression> fits;
    if (calibration_ && !own_scores) fits = calibration_->fit(tile.queries);
    const auto top = search_tile_splitting_on_oom(*backend_, tile, job_.setup.max_hits);
    if (own_scores) fits = calibration_->fit_from(top);
    times.search = seconds_since(t0);
    std::vector<AlignRequest> reqs;
    std::vector<int32_t> scores;
    std::vector<const LengthRegression*> fit_of;  // per request
    for (size_t k = 0; k < tile.queries.size(); ++k) {
      const uint32_t q = tile.queries[k];
      const LengthRegression* fit = fits.empty() || !fits[k].ok ? nullptr : &fits[k];
      const int32_t min_score = fit ? job_.stats.min_score(*fit, job_.max_evalue) : job_.min_score[q];
      for (size_t j = 0; j < top[k].size() && j < job_.max_hits; ++j) {
        const ScoredTarget& st = top[k][j];
        if (st.score < min_score) break;  // sorted by score: the rest is worse
        reqs.push_back({q, st.target});
        scores.push_back(st.score);
        fit_of.push_back(fit);
      }
    }
    t0 = std::chrono::steady_clock::now();
    const auto alns = backend_->align(reqs);
    times.align = seconds_since(t0);
    std::vector<Hit> hits(reqs.size());
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (alns[i].score != scores[i])
        throw Error("internal: alignment score " + std::to_string(alns[i].score) + " differs from search score " +
                    std::to_string(scores[i]) + " for query " + job_.queries.ids[reqs[i].query] + " and target " +
                    job_.db.seqs.ids[reqs[i].target]);
      Hit& h = hits[i];
      h.query = reqs[i].query;
      h.target = reqs[i].target;
      h.aln = alns[i];
      job_.stats.annotate(h, job_.queries.view(h.query), job_.db.seqs.view(h.target), fit_of[i]);
    }
    return encode_hits(hits, times);
  }

 private:
  const SearchJob& job_;
  std::unique_ptr<SearchBackend> backend_;
  std::unique_ptr<QueryCalibration> calibration_;
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
  };
}

}  // namespace

int run_search(const SearchOptions& opt, const MpiContext& mpi) {
  install_stop_handlers();  // SIGTERM/SIGUSR1 while loading must not lose a resumable file either
  const auto t_start = std::chrono::steady_clock::now();
  const DeviceWarmup warmup(parse_backend_kind(opt.backend), mpi.active && mpi.size > 1);
  SearchJob job;
  load_job(opt, job);
  const double load_seconds = seconds_since(t_start);
  const BackendKind kind = parse_backend_kind(opt.backend);
  const int threads = opt.threads > 0 ? opt.threads : default_worker_threads(mpi);
  const bool distributed = mpi.active && mpi.size > 1;

  std::unique_ptr<ResultFile> out;
  SearchPlan plan;
  std::unique_ptr<Progress> progress;
  std::string backend_name;
  // Search phase: from the plan (every worker prepared) to the last tile's result.
  std::chrono::steady_clock::time_point t_phase;
  double prepare_seconds = 0;
  TileTimes summed;

  ResumableRun resume;
  SchedulerHooks hooks;
  hooks.make_worker = [&](int, int slot) -> std::unique_ptr<TileWorker> {
    const int devices = backend_device_count(kind);
    auto calibration = job.stats.mode() == StatsMode::Regress
                           ? std::make_unique<QueryCalibration>(job.setup, kind, slot % devices, threads)
                           : nullptr;
    return std::make_unique<SearchWorker>(job, make_search_backend(kind, slot % devices, threads),
                                          std::move(calibration));
  };
  hooks.plan = [&](const std::vector<DeviceCapacity>& caps) {
    if (resume.resuming()) {  // the stored plan (this run may have other workers); finished tiles replayed below
      plan.tiles = resume.stored_plan();
      for (const Tile& t : plan.tiles) plan.total_cells += t.cells;
      plan.query_batches = uint32_t(plan_note(resume.stored_notes(), "tile_query_batches"));
      plan.partitions = uint32_t(plan_note(resume.stored_notes(), "tile_db_partitions"));
      plan.min_tile_pairs = uint64_t(plan_note(resume.stored_notes(), "tile_min_pairs"));
    } else {
      PlanOptions po;
      po.whole_database = job.setup.max_hits >= job.db.seqs.size() && job.stats.mode() == StatsMode::Regress;
      plan = plan_search(job.queries, job.db, caps, po);
    }
    const PlanNotes notes = {{"tile_query_batches", plan.query_batches},
                             {"tile_db_partitions", plan.partitions},
                             {"tile_min_pairs", int64_t(plan.min_tile_pairs)}};
    backend_name = caps.empty() ? "" : caps.front().name;
    if (opt.verbose)
      std::cerr << "hpcalign: " << caps.size() << " worker(s), " << backend_name << "; plan: " << plan.query_batches
                << " query batch(es) x " << plan.partitions << " partition(s) = " << plan.tiles.size()
                << " tiles, >= " << plan.min_tile_pairs << " pairs per tile to fill the device\n";
    write_run_attributes(*out, "search", opt.command_line, backend_name, caps.size());
    out->set_attribute("matrix", job.setup.matrix.name);
    out->set_attribute("gap_open", int64_t(opt.gap_open));
    out->set_attribute("gap_extend", int64_t(opt.gap_extend));
    out->set_attribute("max_hits", int64_t(opt.max_hits));
    out->set_attribute("max_evalue", opt.max_evalue);
    out->set_attribute("lambda", job.karlin.lambda);
    out->set_attribute("K", job.karlin.K);
    out->set_attribute("stats", std::string(to_string(job.stats.mode())));
    out->set_attribute("query_file", opt.query_path);
    out->set_attribute("database", opt.db_path);
    out->set_attribute("db_sequences", int64_t(job.db.seqs.size()));
    out->set_attribute("db_residues", int64_t(job.db.seqs.total_residues()));
    out->set_attribute("tiles", int64_t(plan.tiles.size()));
    for (const auto& [name, value] : notes) out->set_attribute(name, value);
    out->write_sequences("queries", job.queries);
    out->write_sequences("targets", job.db.seqs);
    std::vector<Tile> to_run = resume.begin(out->h5_file(), plan.tiles, notes);
    resume.replay([&](uint32_t id, const std::string& bytes) {  // --resume: finished tiles, from the journal
      TileTimes earlier;  // spent by the earlier run: not this run's timing
      out->append_tile(id, decode_hits(bytes, &earlier));
    });
    progress = std::make_unique<Progress>("search", plan.tiles.size(), plan.total_cells, opt.quiet);
    progress->set_batch_interval(opt.progress_interval);
    progress->resumed(resume.finished_count(), resume.finished_cells());
    t_phase = std::chrono::steady_clock::now();
    prepare_seconds = std::chrono::duration<double>(t_phase - t_start).count() - load_seconds;
    return to_run;
  };
  hooks.on_result = [&](const Tile& tile, const std::string& bytes) {
    resume.record(tile, bytes);  // first: the journal is what --resume trusts
    TileTimes times;
    std::vector<Hit> hits = decode_hits(bytes, &times);
    summed.search += times.search;
    summed.align += times.align;
    out->append_tile(tile.id, hits);
    progress->tile_done(tile.cells);
  };

  // Created before any work, so an unwritable output fails fast (after --resume read the old one).
  if (mpi.is_master()) {
    resume = ResumableRun("search", opt.out_path, opt.resume, opt.quiet, run_parameters(opt, job));
    out = std::make_unique<ResultFile>(opt.out_path);
  }
  const bool gpu = kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available());
  const int local_workers = backend_device_count(kind) * workers_per_gpu(gpu ? search_workers_per_gpu(job.queries) : 1);
  if (!run_tiles_resumably(mpi, distributed, local_workers, hooks, opt.out_path, [&] {
        if (out) out->mark_stopped(stop_signal_name());
        if (progress) progress->finish();
      }))
    return 0;

  if (!mpi.is_master()) return 0;
  const double phase_seconds = seconds_since(t_phase);
  // Cell updates per second of the search phase: sum |q| x database residues / phase time.
  const double cells = double(job.queries.total_residues()) * double(job.db.seqs.total_residues());
  out->set_attribute("load_seconds", load_seconds);
  out->set_attribute("prepare_seconds", prepare_seconds);
  out->set_attribute("search_phase_seconds", phase_seconds);
  out->set_attribute("search_tile_seconds", summed.search);
  out->set_attribute("align_seconds", summed.align);
  out->set_attribute("search_phase_gcups", phase_seconds > 0 ? cells / phase_seconds / 1e9 : 0.0);
  if (opt.verbose)
    std::fprintf(stderr,
                 "hpcalign: timing: load %.3f s, prepare %.3f s, search phase %.3f s (%.1f GCUPS); summed over "
                 "workers: search_tile %.3f s, align %.3f s\n",
                 load_seconds, prepare_seconds, phase_seconds, phase_seconds > 0 ? cells / phase_seconds / 1e9 : 0.0,
                 summed.search, summed.align);
  // Each query's best max_hits over all tiles, then those within max_evalue, merged from the
  // staged tiles (bounded memory). E-values with a per-subject term are not monotone in the
  // score, so cutting them before the top-k would make the result depend on the tiling.
  const uint64_t rows = out->finish_merged(opt.max_hits, opt.max_evalue);
  resume.complete();
  progress->finish();
  if (opt.verbose) report_peak_memory();
  if (!opt.quiet)
    std::cerr << "hpcalign: " << rows << " hits for " << job.queries.size() << " queries written to "
              << opt.out_path << "\n";
  return 0;
}

}  // namespace hpc
