#include "src/workloads/pss.hpp"

#include <algorithm>
#include <numeric>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <thread>

#include "io/fasta.hpp"
#include "kernels/backend.hpp"
#include "io/matrix.hpp"
#include "io/pssm.hpp"
#include "kernels/fault_injection.hpp"
#include "src/core/error.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/progress.hpp"
#include "src/core/wire.hpp"
#include "src/plan/tile_split.hpp"
#include "src/pss/pss_engine.hpp"
#include "src/pss/pss_gpu_engine.hpp"
#include "src/pss/pss_output.hpp"
#include "src/workloads/resume.hpp"
#include "src/workloads/worker_threads.hpp"

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
  if (opt.gap_open < 0 || opt.gap_extend < 1) throw Error("gap costs must satisfy --gapopen >= 0 and --gapextend >= 1");
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
  FastaReport rep;
  job.queries = read_fasta(opt.query_path, &rep);
  if (job.queries.empty()) throw InputError(opt.query_path, 0, "no sequences");
  job.subjects = read_fasta(opt.subject_path);
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

std::string encode_results(const std::vector<PssPairResult>& rows, const PssTileTimes& times) {
  WireWriter w;
  w.put(times.tile_seconds);
  w.put(times.kernel_seconds);
  w.put<uint64_t>(rows.size());
  for (const PssPairResult& r : rows) {
    w.put(r.query);
    w.put(r.target);
    w.put(r.score);
    w.put(r.fit.mu);
    w.put(r.fit.lambda);
    w.put(uint8_t(r.fit.status));
    w.put(uint64_t(r.fit.observed));
    w.put(uint64_t(r.fit.censored));
    w.put(r.fit.censor_point);
    w.put(r.K);
    w.put(r.pvalue);
    w.put(r.log10_pvalue);
    w.put(r.n_perm);
    w.put_vector(r.permuted_scores);
  }
  return w.take();
}

std::vector<PssPairResult> decode_results(const std::string& bytes, PssTileTimes& times) {
  WireReader rd(bytes);
  times.tile_seconds = rd.get<double>();
  times.kernel_seconds = rd.get<double>();
  std::vector<PssPairResult> rows(rd.get<uint64_t>());
  for (PssPairResult& r : rows) {
    r.query = rd.get<uint32_t>();
    r.target = rd.get<uint32_t>();
    r.score = rd.get<int32_t>();
    r.fit.mu = rd.get<double>();
    r.fit.lambda = rd.get<double>();
    r.fit.status = GumbelStatus(rd.get<uint8_t>());
    r.fit.observed = rd.get<uint64_t>();
    r.fit.censored = rd.get<uint64_t>();
    r.fit.censor_point = rd.get<double>();
    r.K = rd.get<double>();
    r.pvalue = rd.get<double>();
    r.log10_pvalue = rd.get<double>();
    r.n_perm = rd.get<uint32_t>();
    r.permuted_scores = rd.get_vector<int32_t>();
  }
  return rows;
}

// One CPU thread's engine, or one GPU's (device >= 0; host_threads fit its Gumbels).
class PssWorker : public TileWorker {
 public:
  PssWorker(const PssJob& job, int device, int host_threads) {
    const QueryProfile* profile = job.have_profile ? &job.pssm.profile : nullptr;
    if (device >= 0)
      gpu_ = std::make_unique<PssGpuEngine>(device, job.params, job.queries, job.subjects, profile, host_threads);
    else
      cpu_ = std::make_unique<PssCpuEngine>(job.params, job.queries, job.subjects, profile);
  }
  DeviceCapacity capacity() const override { return gpu_ ? gpu_->capacity() : cpu_->capacity(); }
  // A tile that does not fit the device is cut in halves (queries, then subjects) and
  // retried (src/plan/tile_split.hpp); the rows of the halves are joined (sorted at the end).
  std::string run(const Tile& tile) override {
    const auto t0 = std::chrono::steady_clock::now();
    PssTileTimes times;
    using Rows = std::vector<PssPairResult>;
    const std::function<Rows(const Tile&)> part = [&](const Tile& t) { return run_part(t, times); };
    const std::function<Rows(const Tile&, const Tile&, Rows&&, const Tile&, Rows&&)> join =
        [](const Tile&, const Tile&, Rows&& a, const Tile&, Rows&& b) {
          a.insert(a.end(), std::make_move_iterator(b.begin()), std::make_move_iterator(b.end()));
          return std::move(a);
        };
    const std::function<void(const Tile&)> log = [](const Tile& t) {
      std::cerr << "hpcalign: out of memory on tile " << t.id << " (" << t.queries.size() << " queries, "
                << t.part_end - t.part_begin << " subjects): splitting it in halves\n";
    };
    const Rows rows = run_splitting_on_oom<Rows>(tile, part, join, log);
    times.tile_seconds = seconds_since(t0);
    return encode_results(rows, times);
  }

 private:
  std::vector<PssPairResult> run_part(const Tile& tile, PssTileTimes& times) {
    injected_out_of_memory(tile.cells, "tile " + std::to_string(tile.id));
    std::vector<PssPairResult> rows;
    if (gpu_) {
      const double before = gpu_->kernel_seconds();
      rows = gpu_->run(tile.queries, tile.part_begin, tile.part_end);
      times.kernel_seconds += gpu_->kernel_seconds() - before;
    } else {
      for (uint32_t s = tile.part_begin; s < tile.part_end; ++s) {
        auto part = cpu_->run(tile.queries, s);
        rows.insert(rows.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
      }
    }
    return rows;
  }

  std::unique_ptr<PssCpuEngine> cpu_;
  std::unique_ptr<PssGpuEngine> gpu_;
};

struct PssPlan {
  std::vector<Tile> tiles;
  uint32_t tile_subjects = 1;
  uint32_t query_batch = 1;
};

PssPlan plan_pss(const PssJob& job, const std::vector<DeviceCapacity>& caps, uint32_t query_batch) {
  PssPlan plan;
  uint64_t smallest = caps.empty() ? 1 : caps.front().concurrent();
  for (const DeviceCapacity& c : caps) smallest = std::min(smallest, c.concurrent());
  plan.tile_subjects = pss_tile_subjects(smallest, job.params.permutations);
  plan.query_batch = std::min<uint32_t>(query_batch, uint32_t(job.queries.size()));
  const uint64_t copies = uint64_t(job.params.permutations) + 1;  // N permuted + the real one
  // Batches of queries of similar length (longest first): a launch then pairs queries that
  // pad little, so the packed scorer can take its conflict-free query-pair kernel.
  std::vector<uint32_t> by_length(job.queries.size());
  std::iota(by_length.begin(), by_length.end(), 0u);
  std::stable_sort(by_length.begin(), by_length.end(),
                   [&](uint32_t a, uint32_t b) { return job.queries.length(a) > job.queries.length(b); });
  for (uint32_t q0 = 0; q0 < by_length.size(); q0 += plan.query_batch) {
    Tile base;
    uint64_t qres = 0;
    for (uint32_t k = q0; k < std::min<size_t>(by_length.size(), q0 + plan.query_batch); ++k) {
      base.queries.push_back(by_length[k]);
      qres += job.queries.length(by_length[k]);
    }
    for (uint32_t s0 = 0; s0 < job.subjects.size(); s0 += plan.tile_subjects) {
      Tile t = base;
      t.part_begin = s0;
      t.part_end = uint32_t(std::min<size_t>(job.subjects.size(), size_t(s0) + plan.tile_subjects));
      uint64_t sres = 0;
      for (uint32_t s = t.part_begin; s < t.part_end; ++s) sres += job.subjects.length(s);
      t.cells = qres * sres * copies;  // scheduling weight: |q| x |s| x (N + 1)
      plan.tiles.push_back(std::move(t));
    }
  }
  // Largest first (LPT); ids follow the run order.
  std::stable_sort(plan.tiles.begin(), plan.tiles.end(), [](const Tile& a, const Tile& b) { return a.cells > b.cells; });
  for (size_t i = 0; i < plan.tiles.size(); ++i) plan.tiles[i].id = uint32_t(i);
  return plan;
}

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
  };
}

}  // namespace

uint32_t pss_tile_subjects(uint64_t concurrent, uint32_t permutations) {
  return uint32_t(std::max<uint64_t>(1, concurrent / std::max<uint32_t>(1, permutations)));
}

int run_pss(const PssOptions& opt, const MpiContext& mpi) {
  install_stop_handlers();  // SIGTERM/SIGUSR1 while loading stops cleanly too
  const auto t_start = std::chrono::steady_clock::now();
  const DeviceWarmup warmup(parse_backend_kind(opt.backend), mpi.active && mpi.size > 1);
  PssJob job;
  load_job(opt, job);
  const BackendKind kind = parse_backend_kind(opt.backend);
  // cuda: every visible GPU (backend_device_count throws a clear error without one);
  // auto: the GPUs when this build has CUDA and one is visible, else the CPU.
  const bool gpu = kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available());
  const int devices = gpu ? backend_device_count(BackendKind::Cuda) : 0;
  const int threads = opt.threads > 0 ? opt.threads : default_worker_threads(mpi);
  const bool distributed = mpi.active && mpi.size > 1;
  // Local GPU run: four workers per GPU, the host threads shared among them for the fits.
  // Some keep the GPU busy while others permute their next tile's subjects and fit the
  // Gumbels of their last launch (the tile boundary otherwise idles the GPU). H200, 86 x
  // 2,771 x 1,000: 3.06-3.19 TCUPS with 2 workers, 3.20-3.34 with 3, 3.42-3.55 with 4, where
  // the phase equals the kernels' own time with one worker (the GPU is then kept full).
  const int per_gpu = distributed ? 1 : workers_per_gpu(4);
  const int local_workers = gpu ? devices * per_gpu : threads;
  const int fit_threads = gpu ? std::max(1, threads / (distributed ? 1 : devices * per_gpu)) : 1;
  const double load_seconds = seconds_since(t_start);
  std::chrono::steady_clock::time_point t_phase;
  PssTileTimes summed;

  std::unique_ptr<PssResultFile> out;
  std::vector<PssPairResult> rows;
  std::vector<Tile> tiles;
  uint64_t total_cells = 0, score_cells = 0;
  std::unique_ptr<Progress> progress;
  ResumableRun resume;
  // A finished tile's worker bytes, from a worker or (--resume) from the journal.
  const auto store_tile = [&](const std::string& bytes) {
    PssTileTimes times;
    auto part = decode_results(bytes, times);
    rows.insert(rows.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    return times;
  };

  SchedulerHooks hooks;
  hooks.make_worker = [&](int, int slot) -> std::unique_ptr<TileWorker> {
    return std::make_unique<PssWorker>(job, gpu ? slot % devices : -1, fit_threads);
  };
  hooks.plan = [&](const std::vector<DeviceCapacity>& caps) {
    // The plan depends on the devices' capacity: a resume runs the stored one.
    PlanNotes notes;
    if (resume.resuming()) {
      tiles = resume.stored_plan();
      notes = resume.stored_notes();
    } else {
      PssPlan plan = plan_pss(job, caps, opt.query_batch);
      tiles = std::move(plan.tiles);
      notes = {{"tile_subjects", plan.tile_subjects}, {"tile_query_batch", plan.query_batch}};
    }
    for (const Tile& t : tiles) {
      total_cells += t.cells;
      score_cells += t.cells / (uint64_t(opt.permutations) + 1) * opt.permutations;  // N of the N + 1 copies
    }
    const std::string backend = caps.empty() ? "" : caps.front().name;
    if (opt.verbose)
      std::cerr << "hpcalign: " << caps.size() << " worker(s), " << backend << "; T = floor(" << caps.front().compute_units
                << " x " << caps.front().resident_per_unit << " / " << opt.permutations << ") -> "
                << plan_note(notes, "tile_subjects") << " subject(s) per tile"
                << (resume.resuming() ? " (stored plan), " : ", ") << plan_note(notes, "tile_query_batch")
                << " queries per tile, " << tiles.size() << " tiles\n";
    out->set_attribute("command_line", opt.command_line);
    out->set_attribute("backend", backend);
    out->set_attribute("workers", int64_t(caps.size()));
    out->set_attribute("matrix", job.params.matrix.name);
    out->set_attribute("gap_open", int64_t(opt.gap_open));
    out->set_attribute("gap_extend", int64_t(opt.gap_extend));
    out->set_attribute("permutations", int64_t(opt.permutations));
    out->set_attribute("seed", std::to_string(opt.seed));  // uint64: a string keeps every bit
    out->set_attribute("censor", job.params.censor.describe());
    out->set_attribute("rng", std::string("Philox4x32-10, key = seed, counter = (block, k, subject, 0x50535331)"));
    out->set_attribute("pssm", opt.pssm_path);
    out->set_attribute("query_file", opt.query_path);
    out->set_attribute("subject_file", opt.subject_path);
    out->set_attribute("tiles", int64_t(tiles.size()));
    for (const auto& [name, value] : notes) out->set_attribute(name, value);
    out->write_sequences("queries", job.queries);
    out->write_sequences("targets", job.subjects);
    std::vector<Tile> to_run = resume.begin(out->h5_file(), tiles, notes);
    resume.replay([&](uint32_t, const std::string& bytes) { store_tile(bytes); });  // timings: the earlier run's
    progress = std::make_unique<Progress>("pss", tiles.size(), total_cells, opt.quiet);
    progress->resumed(resume.finished_count(), resume.finished_cells());
    t_phase = std::chrono::steady_clock::now();
    return to_run;
  };
  hooks.on_result = [&](const Tile& tile, const std::string& bytes) {
    resume.record(tile, bytes);  // first: the journal is what --resume trusts (rows reach the file at the end)
    const PssTileTimes times = store_tile(bytes);
    summed.tile_seconds += times.tile_seconds;
    summed.kernel_seconds += times.kernel_seconds;
    progress->tile_done(tile.cells);
  };

  if (mpi.is_master()) {  // --resume reads the old output first; then fail fast on an unwritable path
    resume = ResumableRun("pss", opt.out_path, opt.resume, opt.quiet, run_parameters(opt, job));
    out = std::make_unique<PssResultFile>(opt.out_path);
  }
  // On a signal /pss is not written (it is written at the end); the journal has every finished tile.
  if (!run_tiles_resumably(mpi, distributed, local_workers, hooks, opt.out_path, [&] {
        if (out) out->set_attribute("stopped_by_signal", std::string(stop_signal_name()));
        out.reset();  // closes (flushes) the file
        if (progress) progress->finish();
      }))
    return 0;
  if (!mpi.is_master()) return 0;
  const double phase_seconds = seconds_since(t_phase);

  std::sort(rows.begin(), rows.end(), [](const PssPairResult& a, const PssPairResult& b) {
    return a.query != b.query ? a.query < b.query : a.target < b.target;
  });
  size_t failed = 0;
  for (const PssPairResult& r : rows) failed += r.fit.converged() ? 0 : 1;
  // Score phase: from the plan (every worker ready) to the last tile's result, fits included.
  const double cells = double(score_cells);
  auto gcups = [&](double s) { return s > 0 ? cells / s / 1e9 : 0.0; };
  out->set_attribute("load_seconds", load_seconds);
  out->set_attribute("score_phase_seconds", phase_seconds);
  out->set_attribute("score_cells", std::to_string(score_cells));  // sum |q| x |s| x N
  out->set_attribute("score_phase_gcups", gcups(phase_seconds));
  out->set_attribute("tile_seconds_summed", summed.tile_seconds);
  out->set_attribute("gpu_kernel_seconds_summed", summed.kernel_seconds);
  if (opt.verbose) {
    std::fprintf(stderr, "hpcalign: timing: load %.3f s, score phase %.3f s, %.4g cells (|q| x |s| x N): %.1f GCUPS",
                 load_seconds, phase_seconds, cells, gcups(phase_seconds));
    if (summed.kernel_seconds > 0)
      std::fprintf(stderr, "; GPU score kernels %.3f s summed over workers (%.1f GCUPS per worker)",
                   summed.kernel_seconds, gcups(summed.kernel_seconds));
    std::fprintf(stderr, "\n");
  }
  out->finish(rows, opt.keep_scores);
  resume.complete();
  progress->finish();
  if (failed && !opt.quiet)
    std::cerr << "hpcalign: warning: " << failed << " pair(s) without a Gumbel fit (converged = 0, pvalue NaN; "
              << "see /pss/fit_status)\n";
  if (!opt.quiet)
    std::cerr << "hpcalign: " << rows.size() << " pairs (" << opt.permutations << " permutations each) written to "
              << opt.out_path << "\n";
  return 0;
}

}  // namespace hpc
