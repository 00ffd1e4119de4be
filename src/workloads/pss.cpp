#include "src/workloads/pss.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/pssm.hpp"
#include "io/result_lifecycle.hpp"
#include "kernels/fault_injection.hpp"
#include "kernels/pss_engine.hpp"
#include "src/core/error.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/wire.hpp"
#include "src/plan/pss_plan.hpp"
#include "src/pss/pss_output.hpp"
#include "src/workloads/staged_rows_workload.hpp"
#include "src/workloads/tile_runs.hpp"
#include "src/workloads/tiled_run.hpp"

namespace hpc {
namespace {

struct PssJob {
  SequenceSet queries, subjects;
  PssParams params;
  bool have_profile = false;
  Pssm pssm;
};

// Longest query or subject pss accepts (see load_job).
constexpr uint32_t kMaxPssSequenceLength = 100000;

void load_job(const PssOptions& opt, PssJob& job) {
  if (opt.permutations < kMinGumbelSamples)
    throw Error("--permutations must be at least " + std::to_string(kMinGumbelSamples) +
                " (a Gumbel fit needs ~1000 for useful precision)");
  if (opt.query_batch < 1) throw Error("--query-batch must be at least 1");
  job.params.matrix = load_matrix(opt.matrix);
  job.params.gaps = {opt.gap_open, opt.gap_extend};
  job.params.permutations = opt.permutations;
  job.params.seed = opt.seed;
  job.params.censor = CensorSpec::parse(opt.censor);
  job.params.keep_scores = opt.keep_scores;
  job.queries = read_fasta_warned(opt.query_path, opt.run.quiet);
  if (job.queries.empty()) throw InputError(opt.query_path, 0, "no sequences");
  job.subjects = read_fasta_warned(opt.subject_path, opt.run.quiet);
  if (job.subjects.empty()) throw InputError(opt.subject_path, 0, "no sequences");
  for (size_t i = 0; i < job.queries.size(); ++i)
    if (job.queries.length(i) == 0) throw InputError(opt.query_path, 0, "query " + job.queries.ids[i] + " is empty");
  for (size_t i = 0; i < job.subjects.size(); ++i)
    if (job.subjects.length(i) == 0) throw InputError(opt.subject_path, 0, "subject " + job.subjects.ids[i] + " is empty");
  // pss aligns each query to N shuffled copies of each subject (N x m x n cells per pair):
  // a chromosome-sized "protein" would run for days, so it is refused up front.
  const auto check_length = [](const SequenceSet& set, const std::string& path, const char* role) {
    for (size_t i = 0; i < set.size(); ++i)
      if (set.length(i) > kMaxPssSequenceLength)
        throw InputError(path, 0, std::string(role) + " '" + set.ids[i] + "' has " + std::to_string(set.length(i)) +
                                      " residues; pss accepts at most " + std::to_string(kMaxPssSequenceLength) +
                                      " per sequence (the longest known protein, titin, has ~35000)");
  };
  check_length(job.queries, opt.query_path, "query");
  check_length(job.subjects, opt.subject_path, "subject");
  if (!opt.pssm_path.empty()) {
    job.pssm = read_ascii_pssm(opt.pssm_path);
    job.have_profile = true;
    if (job.queries.size() != 1)
      throw InputError(opt.query_path, 0, "--pssm needs exactly one query (the PSSM's), found " +
                                               std::to_string(job.queries.size()));
    const std::string q = decode(job.queries.view(0).data, job.queries.length(0));
    if (q != job.pssm.residues)
      throw InputError(opt.pssm_path, 0, "PSSM query (" + std::to_string(job.pssm.residues.size()) +
                                             " residues) differs from the query " + job.queries.ids[0] + " (" +
                                             std::to_string(q.size()) + " residues)");
  }
}

// What a tile cost its worker, summed by the master into the timing attributes.
struct PssTileTimes {
  double tile_seconds = 0;    // the worker's wall time for the tile
  double kernel_seconds = 0;  // GPU score kernels of the tile (0 on the CPU)
};

// What a tile sends back: its times, its pairs without a Gumbel fit (the summary's warning) and
// its rows (staged by the worker: src/workloads/tile_runs.hpp).
struct TileResult {
  PssTileTimes times;
  uint64_t failed_fits = 0;
  TileRun<RowSchema> rows;
};

TileResult decode_result(const std::string& bytes) {
  WireReader rd(bytes);
  TileResult t;
  t.times.tile_seconds = rd.get<double>();
  t.times.kernel_seconds = rd.get<double>();
  t.failed_fits = rd.get<uint64_t>();
  t.rows = TileRun<RowSchema>::get(rd);
  return t;
}

// A worker's engine (kernels/pss_engine.hpp): one CPU thread's, or one GPU's with its host
// threads fitting the Gumbels.
class PssWorker : public TileWorker {
 public:
  // `opt`: the rows' columns and the output, next to which worker `worker` stages its tiles' rows.
  PssWorker(std::unique_ptr<PssEngine> engine, const PssOptions& opt, int worker)
      : engine_(std::move(engine)),
        fields_(pss_row_fields(opt.permutations, opt.keep_scores)),
        runs_(opt.run.out_path, worker, fields_.schema()) {}
  DeviceCapacity capacity() const override { return engine_->capacity(); }
  // A tile that does not fit the device throws hpc::OutOfMemory: the driver splits it.
  std::string run(const Tile& tile) override {
    const auto t0 = std::chrono::steady_clock::now();
    PssTileTimes times;
    injected_out_of_memory(tile.cells, "tile " + std::to_string(tile.id));
    const double before = engine_->kernel_seconds();
    const std::vector<PssPairResult> rows = engine_->run(tile.queries, tile.part_begin, tile.part_end);
    times.kernel_seconds = engine_->kernel_seconds() - before;
    times.tile_seconds = seconds_since(t0);
    uint64_t failed = 0;
    for (const PssPairResult& r : rows) failed += r.fit.converged() ? 0 : 1;
    WireWriter w;
    w.put(times.tile_seconds);
    w.put(times.kernel_seconds);
    w.put(failed);
    std::string packed = fields_.pack(rows);
    runs_.put(w, tile.id, packed);
    return w.take();
  }

 private:
  std::unique_ptr<PssEngine> engine_;
  RowFields<PssPairResult> fields_;
  TileRunWriter<RowSchema> runs_;
};

// Everything that changes the results (content fingerprints, not paths). The query batch
// only shapes the tiles, and a resume runs the stored ones.
std::vector<checkpoint::RunParameter> run_parameters(const PssOptions& opt, const PssJob& job) {
  std::string pssm = "none";
  if (job.have_profile)
    pssm = std::to_string(job.pssm.profile.length) + " positions, crc32 " +
           checkpoint::Crc32().add(job.pssm.profile.scores).hex();
  return {
      {"queries", checkpoint::fingerprint(job.queries)},
      {"subjects", checkpoint::fingerprint(job.subjects)},
      {"matrix", checkpoint::fingerprint(job.params.matrix)},
      {"gap_open", std::to_string(opt.gap_open)},
      {"gap_extend", std::to_string(opt.gap_extend)},
      {"permutations", std::to_string(opt.permutations)},
      {"seed", std::to_string(opt.seed)},
      {"censor", job.params.censor.describe()},
      {"pssm", pssm},
      {"keep_scores", std::to_string(int(opt.keep_scores))},
      tile_rows_parameter(),
  };
}

// pss on the tiled-run driver (src/workloads/tiled_run.hpp). The workers stage the rows; the
// journal holds their places; they are merged, sorted, at the end.
class PssRun : public StagedRowsWorkload<RowSchema, TileResult> {
 public:
  explicit PssRun(const PssOptions& opt)
      : StagedRowsWorkload(opt.run.out_path, pss_row_fields(opt.permutations, opt.keep_scores).schema()), opt_(opt) {}
  std::string name() const override { return "pss"; }
  void load() override { load_job(opt_, job_); }
  // Local GPU run: four workers per GPU, the host threads shared among them for the fits.
  // Some keep the GPU busy while others permute their next tile's subjects and fit the
  // Gumbels of their last launch (the tile boundary otherwise idles the GPU). H200, 86 x
  // 2,771 x 1,000: 3.06-3.19 TCUPS with 2 workers, 3.20-3.34 with 3, 3.42-3.55 with 4, where
  // the phase equals the kernels' own time with one worker (the GPU is then kept full).
  int workers_per_gpu() const override { return 4; }
  bool worker_per_cpu_thread() const override { return true; }
  std::unique_ptr<TileWorker> make_worker(const EngineSlot& slot) override {
    const QueryProfile* profile = job_.have_profile ? &job_.pssm.profile : nullptr;
    return std::make_unique<PssWorker>(make_pss_engine(slot.kind(), slot.device_index(), slot.threads, job_.params,
                                                       job_.queries, job_.subjects, profile),
                                       opt_, slot.worker);
  }
  std::vector<checkpoint::RunParameter> parameters() const override { return run_parameters(opt_, job_); }
  void create_output() override {
    out_ = std::make_unique<PssResultFile>(opt_.run.out_path);
    runs_.prepare(opt_.run.resume);
  }
  h5::File& output_file() override { return out_->h5_file(); }

  // The plan depends on the devices' capacity: a resume runs the stored one.
  TiledPlan plan(const std::vector<DeviceCapacity>& caps) override {
    uint64_t smallest = caps.empty() ? 1 : caps.front().concurrent();
    for (const DeviceCapacity& c : caps) smallest = std::min(smallest, c.concurrent());
    PssPlan plan = plan_pss(job_.queries, job_.subjects, opt_.permutations, smallest, opt_.query_batch);
    return {std::move(plan.tiles), {{"tile_subjects", plan.tile_subjects}, {"tile_query_batch", plan.query_batch}}};
  }

  void write_header(const TiledPlan& plan, const std::vector<DeviceCapacity>& caps) override {
    for (const Tile& t : plan.tiles)  // N of the N + 1 copies
      score_cells_ += t.cells / (uint64_t(opt_.permutations) + 1) * opt_.permutations;
    const std::string backend = caps.empty() ? "" : caps.front().name;
    if (opt_.run.verbose && !caps.empty())
      std::cerr << "hpcalign: " << caps.size() << " worker(s), " << backend << "; T = floor("
                << caps.front().compute_units << " x " << caps.front().resident_per_unit << " / " << opt_.permutations
                << ") -> " << plan_note(plan.notes, "tile_subjects") << " subject(s) per tile, "
                << plan_note(plan.notes, "tile_query_batch") << " queries per tile, " << plan.tiles.size()
                << " tiles\n";
    out_->set_attribute("command_line", opt_.command_line);
    out_->set_attribute("backend", backend);
    out_->set_attribute("workers", int64_t(caps.size()));
    out_->set_attribute("matrix", job_.params.matrix.name);
    out_->set_attribute("gap_open", int64_t(opt_.gap_open));
    out_->set_attribute("gap_extend", int64_t(opt_.gap_extend));
    out_->set_attribute("permutations", int64_t(opt_.permutations));
    out_->set_attribute("seed", std::to_string(opt_.seed));  // uint64: a string keeps every bit
    out_->set_attribute("censor", job_.params.censor.describe());
    out_->set_attribute("rng", std::string("Philox4x32-10, key = seed, counter = (block, k, subject, 0x50535331)"));
    out_->set_attribute("pssm", opt_.pssm_path);
    out_->set_attribute("query_file", opt_.query_path);
    out_->set_attribute("subject_file", opt_.subject_path);
    out_->set_attribute("tiles", int64_t(plan.tiles.size()));
    for (const auto& [name, value] : plan.notes) out_->set_attribute(name, value);
    out_->write_sequences("queries", job_.queries);
    out_->write_sequences("targets", job_.subjects);
  }

  TileResult decode(const std::string& bytes) const override { return decode_result(bytes); }
  void stored(const TileResult& t, bool replayed) override {
    failed_fits_ += t.failed_fits;
    if (!replayed) {
      summed_.tile_seconds += t.times.tile_seconds;
      summed_.kernel_seconds += t.times.kernel_seconds;
    }
  }

  // /pss is written at the end: the journal holds every finished tile.
  void stopped(const std::string& signal_name) override {
    result_lifecycle::mark_stopped(out_->h5_file(), signal_name);
    out_.reset();  // closes (flushes) the file
  }

  void finish(const RunClock& clock) override {
    const double phase_seconds = clock.phase_seconds();
    // Score phase: from the plan (every worker ready) to the last tile's result, fits included.
    const double cells = double(score_cells_);
    auto gcups = [&](double s) { return s > 0 ? cells / s / 1e9 : 0.0; };
    out_->set_attribute("load_seconds", clock.load_seconds());
    out_->set_attribute("score_phase_seconds", phase_seconds);
    out_->set_attribute("score_cells", std::to_string(score_cells_));  // sum |q| x |s| x N
    out_->set_attribute("score_phase_gcups", gcups(phase_seconds));
    out_->set_attribute("tile_seconds_summed", summed_.tile_seconds);
    out_->set_attribute("gpu_kernel_seconds_summed", summed_.kernel_seconds);
    if (opt_.run.verbose) {
      std::fprintf(stderr, "hpcalign: timing: load %.3f s, score phase %.3f s, %.4g cells (|q| x |s| x N): %.1f GCUPS",
                   clock.load_seconds(), phase_seconds, cells, gcups(phase_seconds));
      if (summed_.kernel_seconds > 0)
        std::fprintf(stderr, "; GPU score kernels %.3f s summed over workers (%.1f GCUPS per worker)",
                     summed_.kernel_seconds, gcups(summed_.kernel_seconds));
      std::fprintf(stderr, "\n");
    }
    merge_tile_runs(runs_, out_->h5_file());  // sorted by (query, target)
    out_->finish(opt_.keep_scores);
    runs_.remove();
  }

  void summary() override {
    if (opt_.run.quiet) return;
    if (failed_fits_)
      std::cerr << "hpcalign: warning: " << failed_fits_ << " pair(s) without a Gumbel fit (converged = 0, pvalue NaN; "
                << "see /pss/fit_status)\n";
    std::cerr << "hpcalign: " << runs_.rows() << " pairs (" << opt_.permutations << " permutations each) written to "
              << opt_.run.out_path << "\n";
  }

 private:
  const PssOptions& opt_;
  PssJob job_;
  std::unique_ptr<PssResultFile> out_;
  uint64_t failed_fits_ = 0;
  uint64_t score_cells_ = 0;
  PssTileTimes summed_;  // over this run's tiles
};

}  // namespace

int run_pss(const PssOptions& opt, const MpiContext& mpi) {
  PssRun run(opt);
  return run_tiled(run, opt.run, mpi);
}

}  // namespace hpc
