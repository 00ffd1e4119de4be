#include "src/workloads/msv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <future>
#include <ctime>
#include <functional>
#include <iostream>
#include <limits>
#include <thread>

#include "io/database.hpp"
#include "kernels/backend.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "kernels/fault_injection.hpp"
#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/cpu_budget.hpp"
#include "src/core/error.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/progress.hpp"
#include "src/core/wire.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/plan/tile_split.hpp"
#include "src/workloads/msv_output.hpp"
#include "src/workloads/resume.hpp"
#include "src/workloads/worker_threads.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/msv_cuda.hpp"
#include "kernels/cuda/vit_cuda.hpp"
#endif

namespace hpc {
namespace {

// hmmsearch's pipeline counters of one model over a set of targets.
struct ModelCounts {
  uint32_t model = 0;
  uint64_t targets = 0, past_msv = 0, past_bias = 0, past_vit = 0;
  void add(const ModelCounts& o) {
    targets += o.targets, past_msv += o.past_msv, past_bias += o.past_bias, past_vit += o.past_vit;
  }
};

// What a tile sends back: the counters of each of its models, and its rows.
struct TileResult {
  std::vector<ModelCounts> counts;
  std::vector<MsvRow> rows;
};

std::string encode(const TileResult& r) {
  WireWriter w;
  w.put_vector(r.counts);
  w.put_vector(r.rows);
  return w.take();
}

TileResult decode(const std::string& bytes) {
  WireReader rd(bytes);
  TileResult r;
  r.counts = rd.get_vector<ModelCounts>();
  r.rows = rd.get_vector<MsvRow>();
  return r;
}

struct MsvJob {
  std::vector<HmmModel> models;
  std::vector<hmm::ModelFilters> filters;
  Database db;
  hmm::FilterSettings settings;
  bool all_pairs = false;
};

// Counts one (model, target) pair into its tile's result (the same for every backend).
void add_pair(const MsvJob& job, TileResult& r, ModelCounts& c, uint32_t t, const hmm::PairResult& p) {
  ++c.targets;
  c.past_msv += p.msv_pass;
  c.past_bias += p.bias_pass;
  c.past_vit += p.passed && (job.settings.stages & hmm::kStageVit);
  if (p.passed || job.all_pairs)
    r.rows.push_back({c.model, t, p.msv_bits, p.msv_pvalue, uint8_t(p.bias_pass), p.vit_bits, p.vit_pvalue,
                      uint8_t(p.passed)});
}

// One model of a tile entirely on this thread with the CPU twins.
void run_model_cpu(const MsvJob& job, const Tile& tile, uint32_t model, TileResult& r, hmm::FilterWorkspace& ws) {
  ModelCounts c;
  c.model = model;
  const hmm::ModelFilters& f = job.filters.at(model);
  for (uint32_t pos = tile.part_begin; pos < tile.part_end; ++pos) {
    const uint32_t t = job.db.by_length[pos];
    const SeqView v = job.db.seqs.view(t);
    add_pair(job, r, c, t, hmm::run_filters(f, v.data, int(v.length), job.settings, ws));
  }
  r.counts.push_back(c);
}

TileResult run_tile_cpu(const MsvJob& job, const Tile& tile, hmm::FilterWorkspace& ws) {
  TileResult r;
  for (uint32_t model : tile.queries) run_model_cpu(job, tile, model, r, ws);
  return r;
}

// Runs `run` on the tile (after the test hook for injected out-of-memory); a tile that does
// not fit the device is cut in halves (models, then targets) and retried
// (src/plan/tile_split.hpp), the halves' counters and rows joined (the totals add them up).
std::string run_tile_splitting(const Tile& tile, const std::function<TileResult(const Tile&)>& run) {
  const std::function<TileResult(const Tile&)> part = [&](const Tile& t) {
    injected_out_of_memory(t.cells, "tile " + std::to_string(t.id));
    return run(t);
  };
  const std::function<TileResult(const Tile&, const Tile&, TileResult&&, const Tile&, TileResult&&)> join =
      [](const Tile&, const Tile&, TileResult&& a, const Tile&, TileResult&& b) {
        a.counts.insert(a.counts.end(), b.counts.begin(), b.counts.end());
        a.rows.insert(a.rows.end(), b.rows.begin(), b.rows.end());
        return std::move(a);
      };
  const std::function<void(const Tile&)> log = [](const Tile& t) {
    std::cerr << "hpcalign: out of memory on tile " << t.id << " (" << t.queries.size() << " models, "
              << t.part_end - t.part_begin << " targets): splitting it in halves\n";
  };
  return encode(hpc::run_splitting_on_oom<TileResult>(tile, part, join, log));
}

class MsvWorker : public TileWorker {
 public:
  explicit MsvWorker(const MsvJob& job) : job_(job) {}
  DeviceCapacity capacity() const override {
    DeviceCapacity c;
    c.name = "cpu (scalar-vectorised HMMER filters)";
    return c;
  }
  std::string run(const Tile& tile) override {
    return run_tile_splitting(tile, [&](const Tile& t) { return run_tile_cpu(job_, t, ws_); });
  }

 private:
  const MsvJob& job_;
  hmm::FilterWorkspace ws_;
};

#ifdef HPCALIGN_HAVE_CUDA
// Scores below cut(L) fail the MSV filter at target length L: the lowest kernel code that
// passes (bisection over the 256 codes with the pipeline's own test) less one code, so float
// rounding at the threshold can never drop a passing pair (the ones above the cut are decided
// by the full test). Remembers the last length: a batch's targets come length-sorted.
class MsvCut {
 public:
  MsvCut(const hmm::ModelFilters& f, const hmm::FilterSettings& s) : f_(f), s_(s) {}
  bool fails(int L, float msv_nats) {
    if (L != length_) length_ = L, cut_ = cut(L);
    return msv_nats < cut_;
  }

 private:
  float cut(int L) const {
    int lo = 0, hi = 256;  // the lowest passing code is in [lo, hi]; 256: none passes
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (hmm::msv_filter_passes(f_, L, hmm::MsvCuda::nats(f_.msv, mid, L), s_))
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo == 0 ? -std::numeric_limits<float>::infinity() : hmm::MsvCuda::nats(f_.msv, lo - 1, L);
  }
  const hmm::ModelFilters& f_;
  const hmm::FilterSettings& s_;
  int length_ = -1;
  float cut_ = 0;
};

// A tile's models on the GPU: the MSV filter of every (model, target) in one launch, the
// P-values and the bias filter on a host thread pool (the shared pipeline code), then the
// Viterbi filter of the bias survivors of all the tile's models in one GPU call.
class MsvCudaWorker : public TileWorker {
 public:
  MsvCudaWorker(const MsvJob& job, int device, int host_threads)
      : job_(job), device_(device), gpu_(device, job.db), vit_(device), pool_(host_threads) {}
  DeviceCapacity capacity() const override {
    DeviceCapacity c;
    c.name = "cuda device " + std::to_string(device_) + " (MSV and Viterbi filters on the GPU, bias on the host)";
    return c;
  }
  std::string run(const Tile& tile) override {
    return run_tile_splitting(tile, [&](const Tile& t) { return run_gpu(t); });
  }

 private:
  TileResult run_gpu(const Tile& tile) {
    // The tile's models in one GPU launch (models too long for the kernel: the CPU twin).
    TileResult r;
    std::vector<uint32_t> models;
    std::vector<const hmm::MsvProfile*> profiles;
    for (uint32_t m : tile.queries) {
      if (job_.filters.at(m).msv.M > hmm::MsvCuda::max_model_length()) {
        run_model_cpu(job_, tile, m, r, ws_);
      } else {
        models.push_back(m);
        profiles.push_back(&job_.filters[m].msv);
      }
    }
    StageClock clock;
    const std::vector<std::vector<float>> usc = gpu_.scores(profiles, tile.part_begin, tile.part_end);
    clock.mark("msv");
    const size_t n = tile.part_end - tile.part_begin;
    auto view = [&](size_t i) { return job_.db.seqs.view(job_.db.by_length[tile.part_begin + i]); };
    // Pass 1 (host pool): MSV P-values and the bias filter, up to the Viterbi filter. Without
    // --all, a pair below its length's MSV cut fails for sure and is only counted: ~98% of
    // the pairs then cost a comparison instead of a log, an exp and a result. Each batch
    // keeps its own list, joined in batch order (the same result for any thread count).
    const size_t batches = batch_count(n);
    std::vector<std::vector<Scored>> lists(models.size() * batches);
    for_batches(models.size(), n, [&](size_t k, size_t first, size_t last) {
      MsvCut cut(job_.filters[models[k]], job_.settings);
      std::vector<Scored>& list = lists[k * batches + first / kBatch];
      for (size_t i = first; i < last; ++i) {
        const SeqView v = view(i);
        if (!job_.all_pairs && cut.fails(int(v.length), usc[k][i])) continue;
        list.push_back({uint32_t(i), hmm::run_filters_until_viterbi(job_.filters[models[k]], v.data, int(v.length),
                                                                    usc[k][i], job_.settings)});
      }
    });
    std::vector<std::vector<Scored>> scored(models.size());  // per model, in target order
    for (size_t k = 0; k < models.size(); ++k)
      for (size_t b = 0; b < batches; ++b)
        scored[k].insert(scored[k].end(), lists[k * batches + b].begin(), lists[k * batches + b].end());
    clock.mark("pvalues+bias");
    // Pass 2: the Viterbi filter scores of the pairs it decides, every model of the tile in
    // one GPU call (models longer than the Viterbi kernel: the CPU twin), then their verdict.
    std::vector<hmm::VitGroup> groups;
    std::vector<int> group_of(models.size(), -1);  // -1: too long for the kernel, CPU twin
    std::vector<std::vector<uint32_t>> cand(models.size());  // indices into scored[k]
    for (size_t k = 0; k < models.size(); ++k) {
      for (uint32_t j = 0; j < scored[k].size(); ++j)
        if (scored[k][j].r.needs_viterbi) cand[k].push_back(j);
      const hmm::VitProfile& vp = job_.filters[models[k]].vit;
      if (cand[k].empty() || vp.M > hmm::VitCuda::max_model_length()) continue;
      group_of[k] = int(groups.size());
      groups.push_back({&vp, {}});
      for (uint32_t j : cand[k]) groups.back().targets.push_back(view(scored[k][j].i));
    }
    clock.mark("select");
    const std::vector<std::vector<float>> vit = vit_.scores(groups);
    clock.mark("vit");
    for (size_t k = 0; k < models.size(); ++k) {
      const hmm::ModelFilters& f = job_.filters[models[k]];
      const int g = group_of[k];
      for_pairs(1, cand[k].size(), [&](size_t, size_t c, hmm::FilterWorkspace& ws) {
        Scored& sp = scored[k][cand[k][c]];
        const SeqView v = view(sp.i);
        const float vit_nats = g >= 0 ? vit[size_t(g)][c] : hmm::viterbi_filter_score(f.vit, v.data, int(v.length), ws);
        sp.r = hmm::finish_viterbi(f, sp.r, vit_nats, job_.settings);
      });
    }
    clock.mark("after-vit");
    for (size_t k = 0; k < models.size(); ++k) {
      ModelCounts c;
      c.model = models[k];
      for (const Scored& sp : scored[k]) add_pair(job_, r, c, job_.db.by_length[tile.part_begin + sp.i], sp.r);
      c.targets += n - scored[k].size();  // the pairs below the cut: counted, failed at MSV
      r.counts.push_back(c);
    }
    clock.mark("count");
    clock.report("msv tile");
    return r;
  }

  // A pair the pipeline looked at: its position in the tile and its result.
  struct Scored {
    uint32_t i;
    hmm::PairResult r;
  };
  static constexpr size_t kBatch = 512;
  static size_t batch_count(size_t n) { return (n + kBatch - 1) / kBatch; }

  // Runs body(k, first, last) over batches [first, last) of i < n, for k < models, on the host pool.
  template <class Body>
  void for_batches(size_t models, size_t n, Body&& body) {
    const size_t batches = batch_count(n);
    pool_.run(models * batches, [&](size_t job) {
      const size_t k = job / batches, b = job % batches;
      body(k, b * kBatch, std::min(n, (b + 1) * kBatch));
    });
  }
  // Runs body(k, i, workspace) for k < models, i < n on the host pool, in batches.
  template <class Body>
  void for_pairs(size_t models, size_t n, Body&& body) {
    for_batches(models, n, [&](size_t k, size_t first, size_t last) {
      hmm::FilterWorkspace ws;
      for (size_t i = first; i < last; ++i) body(k, i, ws);
    });
  }

  const MsvJob& job_;
  int device_;
  hmm::MsvCuda gpu_;
  hmm::VitCuda vit_;
  ThreadPool pool_;
  hmm::FilterWorkspace ws_;
};
#endif

// Cuts the length-sorted database into `parts` runs of about equal residues.
std::vector<std::pair<uint32_t, uint32_t>> partitions(const Database& db, size_t parts) {
  const uint64_t total = std::max<uint64_t>(1, db.seqs.total_residues());
  std::vector<std::pair<uint32_t, uint32_t>> out;
  uint32_t begin = 0;
  uint64_t acc = 0;
  for (uint32_t i = 0; i < db.by_length.size(); ++i) {
    acc += db.seqs.length(db.by_length[i]);
    if (acc * parts >= total * (out.size() + 1) || i + 1 == db.by_length.size()) {
      out.push_back({begin, i + 1});
      begin = i + 1;
    }
  }
  return out;
}

// Models per tile at most: one GPU launch scores them all against the tile's targets.
constexpr size_t kModelsPerTile = 8;

// The GPU kernel's length classes (kernels/cuda/msv_kernels.cu: 128-node chunks, compiled for
// 1, 2, 3, 4, 6, 8, 12, 16, 24, 32 chunks): models of one class share a launch without padding
// past the class, so a batch never pays a longer model's chunk count.
int length_class(int M) {
  int c = 0;
  for (int chunks : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) {
    if (M <= 128 * chunks) return c;
    ++c;
  }
  return c;
}

// Tiles = (model batch) x (database partition): models sorted by length and batched within a
// length class, several partitions per worker so that batches of different cost balance (LPT).
// notes: how many partitions and batches.
std::vector<Tile> plan_msv(const MsvJob& job, const std::vector<DeviceCapacity>& caps, PlanNotes& notes) {
  const size_t parts = std::min<size_t>(job.db.seqs.size(), std::max<size_t>(1, 4 * caps.size()));
  const auto cuts = partitions(job.db, parts);
  std::vector<uint32_t> order(job.models.size());
  for (uint32_t m = 0; m < order.size(); ++m) order[m] = m;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return job.models[a].length < job.models[b].length; });
  std::vector<std::vector<uint32_t>> batches;
  for (uint32_t m : order) {
    if (batches.empty() || batches.back().size() == kModelsPerTile ||
        length_class(job.models[batches.back().front()].length) != length_class(job.models[m].length))
      batches.emplace_back();
    batches.back().push_back(m);
  }
  std::vector<Tile> tiles;
  for (const auto& batch : batches)
    for (const auto& [b, e] : cuts) {
      Tile t;
      t.queries = batch;
      t.part_begin = b;
      t.part_end = e;
      uint64_t res = 0, nodes = 0;
      for (uint32_t p = b; p < e; ++p) res += job.db.seqs.length(job.db.by_length[p]);
      for (uint32_t m : batch) nodes += uint64_t(job.models[m].length);
      t.cells = res * nodes;
      tiles.push_back(std::move(t));
    }
  std::stable_sort(tiles.begin(), tiles.end(), [](const Tile& a, const Tile& b) { return a.cells > b.cells; });
  for (size_t i = 0; i < tiles.size(); ++i) tiles[i].id = uint32_t(i);
  notes = {{"tile_db_partitions", int64_t(cuts.size())}, {"tile_model_batches", int64_t(batches.size())}};
  return tiles;
}

// The models' content: what the filters read (the parsed numbers, so a re-gzipped file is the same).
std::string fingerprint(const std::vector<HmmModel>& models) {
  checkpoint::Crc32 crc;
  for (const HmmModel& m : models) {
    const float stats[] = {m.msv_mu, m.msv_lambda, m.vit_mu, m.vit_lambda, m.fwd_tau, m.fwd_lambda};
    crc.add(m.name).add(&m.length, sizeof m.length).add(stats, sizeof stats).add(m.compo.data(), sizeof m.compo);
    crc.add(m.mat).add(m.ins).add(m.t);
  }
  return std::to_string(models.size()) + " models, crc32 " + crc.hex();
}

// Everything that changes the results (content fingerprints, not paths).
std::vector<checkpoint::RunParameter> run_parameters(const MsvOptions& opt, const MsvJob& job) {
  return {
      {"models", fingerprint(job.models)},
      {"database", checkpoint::fingerprint(job.db.seqs)},
      {"F1", checkpoint::exact(opt.F1)},
      {"F2", checkpoint::exact(opt.F2)},
      {"stages", hmm::stages_name(job.settings.stages)},
      {"all_pairs", std::to_string(int(opt.all_pairs))},
  };
}

// --backend: cpu, cuda (a GPU must be visible), or auto (cuda when a GPU is visible).
bool use_cuda(const std::string& backend) {
  const BackendKind kind = parse_backend_kind(backend);
  if (kind == BackendKind::Cpu) return false;
  const bool have = cuda_available();
  if (kind == BackendKind::Cuda && !have) backend_device_count(kind);  // throws the backend's clear error
  return have;
}

void print_summary(const MsvJob& job, const std::vector<ModelCounts>& totals) {
  const unsigned st = job.settings.stages;
  for (size_t m = 0; m < totals.size(); ++m) {
    const ModelCounts& t = totals[m];
    const double n = double(std::max<uint64_t>(1, t.targets));
    std::printf("Query:       %s  [M=%d]\n", job.models[m].name.c_str(), job.models[m].length);
    std::printf("Target sequences:                  %8llu\n", (unsigned long long)t.targets);
    auto line = [&](const char* what, uint64_t k, double expect) {
      std::printf("Passed %-17s %17llu  (%g); expected %.1f (%g)\n", what, (unsigned long long)k, double(k) / n,
                  expect * double(t.targets), expect);
    };
    line("MSV filter:", t.past_msv, job.settings.F1);
    if (st & hmm::kStageBias) line("bias filter:", t.past_bias, job.settings.F1);
    if (st & hmm::kStageVit) line("Vit filter:", t.past_vit, job.settings.F2);
    std::printf("//\n");
  }
  std::fflush(stdout);
}

}  // namespace

int run_msv(const MsvOptions& opt, const MpiContext& mpi) {
  install_stop_handlers();  // SIGTERM/SIGUSR1 while loading stops cleanly too
  if (!(opt.F1 > 0 && opt.F1 <= 1) || !(opt.F2 > 0 && opt.F2 <= 1)) throw Error("--F1 and --F2 must be in (0, 1]");
  // The CUDA driver starts (~0.1-0.2 s) on the warm-up thread while the inputs load; use_cuda
  // below then finds it started.
  const DeviceWarmup warmup(parse_backend_kind(opt.backend), mpi.active && mpi.size > 1);
  MsvJob job;
  job.settings.F1 = opt.F1;
  job.settings.F2 = opt.F2;
  job.settings.stages = hmm::parse_stages(opt.stages);
  job.all_pairs = opt.all_pairs;
  const auto load_start = std::chrono::steady_clock::now();
  const double load_age = opt.verbose ? process_seconds() : 0;
  // Models and database load at the same time; a broken model file is still reported first.
  double models_s = 0;
  std::future<void> models_loaded = std::async(std::launch::async, [&] {
    job.models = read_hmm_file(opt.model_path);
    job.filters.reserve(job.models.size());
    for (const auto& m : job.models) job.filters.emplace_back(m);
    models_s = seconds_since(load_start);
  });
  try {
    job.db = load_database(opt.db_path, ResidueRules::kHmmer);  // hmmsearch's residue rules
  } catch (...) {
    models_loaded.get();
    throw;
  }
  models_loaded.get();
  if (job.db.seqs.empty()) throw InputError(opt.db_path, 0, "no sequences in the database");
  for (size_t i = 0; i < job.db.seqs.size(); ++i)
    if (job.db.seqs.length(i) > 100000)
      throw InputError(opt.db_path, 0, "target '" + job.db.seqs.ids[i] + "' is longer than 100000 residues, "
                                       "HMMER's pipeline limit");

  const bool cuda = use_cuda(opt.backend);
  if (opt.verbose && mpi.is_master())
    std::cerr << "hpcalign: msv: load " << seconds_since(load_start) << " s (models and profiles " << models_s
              << " s, beside the database), started " << load_age << " s after the process\n";
  const int threads = opt.threads > 0 ? opt.threads : usable_cpus().cpus;
  const bool distributed = mpi.active && mpi.size > 1;
  std::unique_ptr<h5::File> out;
  std::unique_ptr<Progress> progress;
  std::vector<ModelCounts> totals(job.models.size());
  size_t rows_written = 0;
  ResumableRun resume;
  // Rows reach the file in batches, every 2 s and at the end: appending each tile's few rows
  // rewrote every column's last compressed chunk and flushed, ~20 ms per tile, which made
  // the master the limit of the filter phase (22 models x 207M: 1.1 s of 1.5 s, H200
  // machine). The journal is what a resume trusts; a resumed run refills a new file from it.
  std::vector<uint32_t> batch_tiles;
  std::vector<MsvRow> batch_rows;
  auto last_write = std::chrono::steady_clock::now();
  const auto write_batch = [&] {
    if (!batch_tiles.empty()) append_msv_rows(*out, batch_tiles, batch_rows);
    batch_tiles.clear(), batch_rows.clear();
    last_write = std::chrono::steady_clock::now();
  };
  // A finished tile's worker bytes, from a worker or (--resume) from the journal.
  const auto store_tile = [&](uint32_t tile_id, const std::string& bytes) {
    TileResult r = decode(bytes);
    batch_tiles.push_back(tile_id);
    batch_rows.insert(batch_rows.end(), r.rows.begin(), r.rows.end());
    rows_written += r.rows.size();
    for (const ModelCounts& c : r.counts) totals.at(c.model).add(c);
    if (seconds_since(last_write) >= 2.0) write_batch();
  };

  SchedulerHooks hooks;
  int gpus = 0;
  // Workers per GPU in a local run: four, so that the others' kernels keep the GPU busy while
  // one worker runs its host stages (P-values, bias filter, Viterbi selection). They share one
  // copy of the database on the device. 22 models x 207M residues, H200: filter phase 0.65-0.68 s
  // with two workers, 0.58-0.61 with three, 0.53-0.56 with four.
  const int per_gpu = distributed ? 1 : workers_per_gpu(4);
#ifdef HPCALIGN_HAVE_CUDA
  if (cuda) gpus = cuda_device_count();
  hooks.make_worker = [&](int, int slot) -> std::unique_ptr<TileWorker> {
    if (gpus == 0) return std::make_unique<MsvWorker>(job);
    const auto t0 = std::chrono::steady_clock::now();
    auto w = std::make_unique<MsvCudaWorker>(job, slot % gpus, std::max(1, threads / per_gpu));
    if (opt.verbose)
      std::fprintf(stderr, "hpcalign: msv: worker %d ready in %.3f s (device, database upload)\n", slot,
                   seconds_since(t0));
    return w;
  };
#else
  (void)cuda;
  hooks.make_worker = [&](int, int) -> std::unique_ptr<TileWorker> { return std::make_unique<MsvWorker>(job); };
#endif
  std::chrono::steady_clock::time_point t_planned, t_last;  // workers ready and tiles planned; last tile stored
  double store_seconds = 0;                          // the master's share: journal and HDF5 rows
  std::vector<Tile> planned_tiles;
  PlanNotes planned_notes;
  size_t planned_workers = 0;
  hooks.plan = [&](const std::vector<DeviceCapacity>& caps) {
    std::vector<Tile> tiles;
    PlanNotes notes;
    if (resume.resuming()) {  // the stored plan (this run may have other workers)
      tiles = resume.stored_plan();
      notes = resume.stored_notes();
    } else {
      tiles = plan_msv(job, caps, notes);
    }
    uint64_t cells = 0;
    for (const Tile& t : tiles) cells += t.cells;
    if (opt.verbose)
      std::cerr << "hpcalign: msv: " << caps.size() << " worker(s); " << job.models.size() << " model(s) in "
                << plan_note(notes, "tile_model_batches") << " batch(es) x " << plan_note(notes, "tile_db_partitions")
                << " partition(s) = " << tiles.size() << " tiles\n";
    planned_tiles = tiles, planned_notes = notes, planned_workers = caps.size();
    progress = std::make_unique<Progress>("msv", tiles.size(), cells, opt.quiet);
    progress->resumed(resume.finished_count(), resume.finished_cells());
    t_planned = std::chrono::steady_clock::now();
    return resume.to_run(tiles);
  };
  hooks.on_result = [&](const Tile& tile, const std::string& bytes) {
    const auto t0 = std::chrono::steady_clock::now();
    resume.record(tile, bytes);  // first: the journal is what --resume trusts
    store_tile(tile.id, bytes);
    progress->tile_done(tile.cells);
    store_seconds += seconds_since(t0);
    t_last = std::chrono::steady_clock::now();
  };

  // The master's set-up overlaps the workers: fingerprints (and, with --resume, reading the
  // old output) while they upload the database; the result file, with every target's id
  // (~0.1 s for 590k targets), while the first tiles run.
  hooks.prepare = [&] {
    resume = ResumableRun("msv", opt.out_path, opt.resume, opt.quiet, run_parameters(opt, job));
  };
  hooks.on_started = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    out = std::make_unique<h5::File>(opt.out_path, h5::Mode::kCreate);  // after ResumableRun: it truncates
    create_msv_output(*out, opt, job.models, job.db.seqs, job.settings.stages);
    h5::set_attribute(*out, "", "backend", std::string(gpus > 0 ? "cuda" : "cpu"));
    h5::set_attribute(*out, "", "workers", int64_t(planned_workers));
    h5::set_attribute(*out, "", "tiles", int64_t(planned_tiles.size()));
    for (const auto& [name, value] : planned_notes) h5::set_attribute(*out, "", name, value);
    resume.begin(*out, planned_tiles, planned_notes);
    resume.replay([&](uint32_t id, const std::string& bytes) { store_tile(id, bytes); });
    if (opt.verbose)
      std::fprintf(stderr, "hpcalign: msv: output file ready in %.3f s (target ids; while the first tiles run)\n",
                   seconds_since(t0));
  };
  const auto filter_start = std::chrono::steady_clock::now();
  if (!run_tiles_resumably(mpi, distributed, gpus > 0 ? gpus * per_gpu : threads, hooks, opt.out_path, [&] {
        if (out) {
          write_batch();
          h5::set_attribute(*out, "", "stopped_by_signal", std::string(stop_signal_name()));
          out->close();
        }
        if (progress) progress->finish();
      }))
    return 0;
  if (!mpi.is_master()) return 0;
  const double filter_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - filter_start).count();
  uint64_t model_nodes = 0;
  for (const auto& m : job.models) model_nodes += uint64_t(m.length);
  const double cells = double(model_nodes) * double(job.db.seqs.total_residues());
  h5::set_attribute(*out, "", "filter_seconds", filter_s);
  if (opt.verbose)
    std::cerr << "hpcalign: msv: filter phase " << filter_s << " s, " << cells << " MSV cells (sum M x residues), "
              << cells / std::max(filter_s, 1e-9) / 1e12 << " TCUPS (workers ready and tiles planned after "
              << std::chrono::duration<double>(t_planned - filter_start).count() << " s, last tile stored after "
              << std::chrono::duration<double>(t_last - filter_start).count() << " s; master storing results "
              << store_seconds << " s)\n";
  const auto write_start = std::chrono::steady_clock::now();
  write_batch();
  sort_msv_rows(*out);

  std::vector<uint32_t> model_idx;
  std::vector<uint64_t> n, a, b, c;
  for (uint32_t m = 0; m < totals.size(); ++m) {
    model_idx.push_back(m), n.push_back(totals[m].targets), a.push_back(totals[m].past_msv);
    b.push_back(totals[m].past_bias), c.push_back(totals[m].past_vit);
  }
  h5::write_column(*out, "pipeline/model", model_idx);
  h5::write_column(*out, "pipeline/targets", n);
  h5::write_column(*out, "pipeline/past_msv", a);
  h5::write_column(*out, "pipeline/past_bias", b);
  h5::write_column(*out, "pipeline/past_vit", c);
  result_lifecycle::complete(*out);
  out->close();
  resume.complete();
  progress->finish();
  if (opt.verbose)
    std::cerr << "hpcalign: msv: final sort and write " << seconds_since(write_start) << " s; " << seconds_since(load_start)
              << " s since the load started; process age " << process_seconds() << " s\n";
  print_summary(job, totals);
  if (!opt.quiet)
    std::cerr << "hpcalign: " << rows_written << " rows for " << job.models.size() << " model(s) written to " << opt.out_path
              << "\n";
  return 0;
}

}  // namespace hpc
