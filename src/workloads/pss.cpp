#include "src/workloads/pss.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <thread>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/pssm.hpp"
#include "src/core/error.hpp"
#include "src/core/progress.hpp"
#include "src/core/wire.hpp"
#include "src/pss/pss_engine.hpp"
#include "src/pss/pss_output.hpp"

namespace hpc {
namespace {

struct PssJob {
  SequenceSet queries, subjects;
  PssParams params;
  bool have_profile = false;
  Pssm pssm;
};

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

std::string encode_results(const std::vector<PssPairResult>& rows) {
  WireWriter w;
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

std::vector<PssPairResult> decode_results(const std::string& bytes) {
  WireReader rd(bytes);
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

class PssWorker : public TileWorker {
 public:
  PssWorker(const PssJob& job) : engine_(job.params, job.queries, job.subjects, job.have_profile ? &job.pssm.profile : nullptr) {}
  DeviceCapacity capacity() const override { return engine_.capacity(); }
  std::string run(const Tile& tile) override {
    std::vector<PssPairResult> rows;
    for (uint32_t s = tile.part_begin; s < tile.part_end; ++s) {
      auto part = engine_.run(tile.queries, s);
      rows.insert(rows.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
    return encode_results(rows);
  }

 private:
  PssCpuEngine engine_;
};

struct PssPlan {
  std::vector<Tile> tiles;
  uint32_t tile_subjects = 1;
  uint32_t query_batch = 1;
  uint64_t total_cells = 0;
};

PssPlan plan_pss(const PssJob& job, const std::vector<DeviceCapacity>& caps, uint32_t query_batch) {
  PssPlan plan;
  uint64_t smallest = caps.empty() ? 1 : caps.front().concurrent();
  for (const DeviceCapacity& c : caps) smallest = std::min(smallest, c.concurrent());
  plan.tile_subjects = pss_tile_subjects(smallest, job.params.permutations);
  plan.query_batch = std::min<uint32_t>(query_batch, uint32_t(job.queries.size()));
  const uint64_t copies = uint64_t(job.params.permutations) + 1;  // N permuted + the real one
  for (uint32_t q0 = 0; q0 < job.queries.size(); q0 += plan.query_batch) {
    Tile base;
    uint64_t qres = 0;
    for (uint32_t q = q0; q < std::min<size_t>(job.queries.size(), q0 + plan.query_batch); ++q) {
      base.queries.push_back(q);
      qres += job.queries.length(q);
    }
    for (uint32_t s0 = 0; s0 < job.subjects.size(); s0 += plan.tile_subjects) {
      Tile t = base;
      t.part_begin = s0;
      t.part_end = uint32_t(std::min<size_t>(job.subjects.size(), size_t(s0) + plan.tile_subjects));
      uint64_t sres = 0;
      for (uint32_t s = t.part_begin; s < t.part_end; ++s) sres += job.subjects.length(s);
      t.cells = qres * sres * copies;
      plan.total_cells += t.cells;
      plan.tiles.push_back(std::move(t));
    }
  }
  // Largest first (LPT); ids follow the run order.
  std::stable_sort(plan.tiles.begin(), plan.tiles.end(), [](const Tile& a, const Tile& b) { return a.cells > b.cells; });
  for (size_t i = 0; i < plan.tiles.size(); ++i) plan.tiles[i].id = uint32_t(i);
  return plan;
}

int default_threads(const MpiContext& mpi) {
  const int hc = std::max(1u, std::thread::hardware_concurrency());
  if (!mpi.active) return hc;
  const char* ls = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  return std::max(1, hc / (ls ? std::max(1, std::atoi(ls)) : 1));
}

}  // namespace

uint32_t pss_tile_subjects(uint64_t concurrent, uint32_t permutations) {
  return uint32_t(std::max<uint64_t>(1, concurrent / std::max<uint32_t>(1, permutations)));
}

int run_pss(const PssOptions& opt, const MpiContext& mpi) {
  PssJob job;
  load_job(opt, job);
  const BackendKind kind = parse_backend_kind(opt.backend);
  // The device path of PSS is not part of this build: auto runs on the CPU, cuda is refused.
  if (kind == BackendKind::Cuda) throw Error("pss: --backend cuda is not available for pss in this build; use cpu");
  const int threads = opt.threads > 0 ? opt.threads : default_threads(mpi);
  const bool distributed = mpi.active && mpi.size > 1;

  std::unique_ptr<PssResultFile> out;
  std::vector<PssPairResult> rows;
  PssPlan plan;
  std::unique_ptr<Progress> progress;

  SchedulerHooks hooks;
  hooks.make_worker = [&](int, int) -> std::unique_ptr<TileWorker> { return std::make_unique<PssWorker>(job); };
  hooks.plan = [&](const std::vector<DeviceCapacity>& caps) {
    plan = plan_pss(job, caps, opt.query_batch);
    const std::string backend = caps.empty() ? "" : caps.front().name;
    if (opt.verbose)
      std::cerr << "hpcalign: " << caps.size() << " worker(s), " << backend << "; T = floor(" << caps.front().concurrent()
                << " / " << opt.permutations << ") -> " << plan.tile_subjects << " subject(s) per tile, "
                << plan.query_batch << " queries per tile, " << plan.tiles.size() << " tiles\n";
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
    out->set_attribute("tiles", int64_t(plan.tiles.size()));
    out->set_attribute("tile_subjects", int64_t(plan.tile_subjects));
    out->set_attribute("tile_query_batch", int64_t(plan.query_batch));
    out->write_sequences("queries", job.queries);
    out->write_sequences("targets", job.subjects);
    progress = std::make_unique<Progress>("pss", plan.tiles.size(), plan.total_cells, opt.quiet);
    return plan.tiles;
  };
  hooks.on_result = [&](const Tile& tile, const std::string& bytes) {
    auto part = decode_results(bytes);
    rows.insert(rows.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    progress->tile_done(tile.cells);
  };

  if (mpi.is_master()) out = std::make_unique<PssResultFile>(opt.out_path);
  if (distributed)
    run_tiles_mpi(mpi, hooks);
  else
    run_tiles_local(threads, hooks);
  if (!mpi.is_master()) return 0;

  std::sort(rows.begin(), rows.end(), [](const PssPairResult& a, const PssPairResult& b) {
    return a.query != b.query ? a.query < b.query : a.target < b.target;
  });
  size_t failed = 0;
  for (const PssPairResult& r : rows) failed += r.fit.converged() ? 0 : 1;
  out->finish(rows, opt.keep_scores);
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
