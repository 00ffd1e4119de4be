#include "src/workloads/msv.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <ctime>
#include <iostream>
#include <thread>

#include "io/database.hpp"
#include "kernels/backend.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/error.hpp"
#include "src/core/progress.hpp"
#include "src/core/wire.hpp"
#include "src/hmm/filter_pipeline.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/msv_cuda.hpp"
#endif

namespace hpc {
namespace {

// One reported (model, target) pair.
struct MsvRow {
  uint32_t model, target;
  float msv_bits;
  double msv_pvalue;
  uint8_t bias_pass;
  float vit_bits;
  double vit_pvalue;
  uint8_t passed;
};

// What a tile sends back: its rows and hmmsearch's pipeline counters for its targets.
struct TileResult {
  uint32_t model = 0;
  uint64_t targets = 0, past_msv = 0, past_bias = 0, past_vit = 0;
  std::vector<MsvRow> rows;
};

std::string encode(const TileResult& r) {
  WireWriter w;
  w.put(r.model), w.put(r.targets), w.put(r.past_msv), w.put(r.past_bias), w.put(r.past_vit);
  w.put_vector(r.rows);
  return w.take();
}

TileResult decode(const std::string& bytes) {
  WireReader rd(bytes);
  TileResult r;
  r.model = rd.get<uint32_t>();
  r.targets = rd.get<uint64_t>();
  r.past_msv = rd.get<uint64_t>();
  r.past_bias = rd.get<uint64_t>();
  r.past_vit = rd.get<uint64_t>();
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
void add_pair(const MsvJob& job, TileResult& r, uint32_t t, const hmm::PairResult& p) {
  ++r.targets;
  r.past_msv += p.msv_pass;
  r.past_bias += p.bias_pass;
  r.past_vit += p.passed && (job.settings.stages & hmm::kStageVit);
  if (p.passed || job.all_pairs)
    r.rows.push_back({r.model, t, p.msv_bits, p.msv_pvalue, uint8_t(p.bias_pass), p.vit_bits, p.vit_pvalue,
                      uint8_t(p.passed)});
}

// A tile entirely on this thread with the CPU twins.
TileResult run_tile_cpu(const MsvJob& job, const Tile& tile, hmm::FilterWorkspace& ws) {
  TileResult r;
  r.model = tile.queries.at(0);
  const hmm::ModelFilters& f = job.filters.at(r.model);
  for (uint32_t pos = tile.part_begin; pos < tile.part_end; ++pos) {
    const uint32_t t = job.db.by_length[pos];
    const SeqView v = job.db.seqs.view(t);
    add_pair(job, r, t, hmm::run_filters(f, v.data, int(v.length), job.settings, ws));
  }
  return r;
}

class MsvWorker : public TileWorker {
 public:
  explicit MsvWorker(const MsvJob& job) : job_(job) {}
  DeviceCapacity capacity() const override {
    DeviceCapacity c;
    c.name = "cpu (scalar-vectorised HMMER filters)";
    return c;
  }
  std::string run(const Tile& tile) override { return encode(run_tile_cpu(job_, tile, ws_)); }

 private:
  const MsvJob& job_;
  hmm::FilterWorkspace ws_;
};

#ifdef HPCALIGN_HAVE_CUDA
// MSV scores of a tile from the GPU; the bias and Viterbi filters of the survivors (and the
// P-values of all) on a host thread pool with the shared pipeline code.
class MsvCudaWorker : public TileWorker {
 public:
  MsvCudaWorker(const MsvJob& job, int device, int host_threads)
      : job_(job), device_(device), gpu_(device, job.db), pool_(host_threads) {}
  DeviceCapacity capacity() const override {
    DeviceCapacity c;
    c.name = "cuda device " + std::to_string(device_) + " (byte MSV on the GPU, bias/Viterbi on the host)";
    return c;
  }
  std::string run(const Tile& tile) override {
    const uint32_t model = tile.queries.at(0);
    const hmm::ModelFilters& f = job_.filters.at(model);
    if (f.msv.M > hmm::MsvCuda::max_model_length()) return encode(run_tile_cpu(job_, tile, ws_));
    const std::vector<float> usc = gpu_.scores(f.msv, tile.part_begin, tile.part_end);
    std::vector<hmm::PairResult> pairs(usc.size());
    constexpr size_t kBatch = 512;
    pool_.run((usc.size() + kBatch - 1) / kBatch, [&](size_t b) {
      hmm::FilterWorkspace ws;
      for (size_t i = b * kBatch; i < std::min(usc.size(), (b + 1) * kBatch); ++i) {
        const SeqView v = job_.db.seqs.view(job_.db.by_length[tile.part_begin + i]);
        pairs[i] = hmm::run_filters_after_msv(f, v.data, int(v.length), usc[i], job_.settings, ws);
      }
    });
    TileResult r;
    r.model = model;
    for (size_t i = 0; i < pairs.size(); ++i) add_pair(job_, r, job_.db.by_length[tile.part_begin + i], pairs[i]);
    return encode(r);
  }

 private:
  const MsvJob& job_;
  int device_;
  hmm::MsvCuda gpu_;
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

const char* kRowColumns[] = {"msv/model", "msv/target", "msv/msv_bits", "msv/msv_pvalue",
                             "msv/bias_pass", "msv/vit_bits", "msv/vit_pvalue", "msv/passed"};

void create_output(h5::File& f, const MsvOptions& opt, const MsvJob& job) {
  h5::set_attribute(f, "", "program", std::string("hpcalign"));
  h5::set_attribute(f, "", "version", std::string(HPCALIGN_VERSION));
  h5::set_attribute(f, "", "start_time", h5::utc_now_iso8601());
  h5::set_attribute(f, "", "status", std::string("incomplete"));
  h5::set_attribute(f, "", "workload", std::string("msv"));
  h5::set_attribute(f, "", "command_line", opt.command_line);
  h5::set_attribute(f, "", "model_file", opt.model_path);
  h5::set_attribute(f, "", "database", opt.db_path);
  h5::set_attribute(f, "", "db_sequences", int64_t(job.db.seqs.size()));
  h5::set_attribute(f, "", "db_residues", int64_t(job.db.seqs.total_residues()));
  h5::set_attribute(f, "", "F1", opt.F1);
  h5::set_attribute(f, "", "F2", opt.F2);
  h5::set_attribute(f, "", "stages", hmm::stages_name(job.settings.stages));
  h5::set_attribute(f, "", "all_pairs", int64_t(opt.all_pairs));
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) h5::set_attribute(f, "", "host", std::string(host));
  std::vector<std::string> names;
  std::vector<uint32_t> lengths;
  for (const auto& m : job.models) names.push_back(m.name), lengths.push_back(uint32_t(m.length));
  h5::write_column(f, "models/name", names);
  h5::write_column(f, "models/length", lengths);
  std::vector<uint32_t> tl(job.db.seqs.size());
  for (size_t i = 0; i < tl.size(); ++i) tl[i] = job.db.seqs.length(i);
  h5::write_column(f, "targets/id", job.db.seqs.ids);
  h5::write_column(f, "targets/length", tl);
  h5::create_column<uint32_t>(f, kRowColumns[0]);
  h5::create_column<uint32_t>(f, kRowColumns[1]);
  h5::create_column<float>(f, kRowColumns[2]);
  h5::create_column<double>(f, kRowColumns[3]);
  h5::create_column<uint8_t>(f, kRowColumns[4]);
  h5::create_column<float>(f, kRowColumns[5]);
  h5::create_column<double>(f, kRowColumns[6]);
  h5::create_column<uint8_t>(f, kRowColumns[7]);
  h5::create_column<uint32_t>(f, "tiles/id", 1024);
  h5::create_column<uint8_t>(f, "tiles/status", 1024);
  f.flush();
}

template <class T, class Get>
std::vector<T> column(const std::vector<MsvRow>& rows, Get get) {
  std::vector<T> v(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) v[i] = get(rows[i]);
  return v;
}

void append_rows(h5::File& f, uint32_t tile_id, const std::vector<MsvRow>& rows) {
  if (!rows.empty()) {
    h5::append(f, kRowColumns[0], column<uint32_t>(rows, [](const MsvRow& r) { return r.model; }));
    h5::append(f, kRowColumns[1], column<uint32_t>(rows, [](const MsvRow& r) { return r.target; }));
    h5::append(f, kRowColumns[2], column<float>(rows, [](const MsvRow& r) { return r.msv_bits; }));
    h5::append(f, kRowColumns[3], column<double>(rows, [](const MsvRow& r) { return r.msv_pvalue; }));
    h5::append(f, kRowColumns[4], column<uint8_t>(rows, [](const MsvRow& r) { return r.bias_pass; }));
    h5::append(f, kRowColumns[5], column<float>(rows, [](const MsvRow& r) { return r.vit_bits; }));
    h5::append(f, kRowColumns[6], column<double>(rows, [](const MsvRow& r) { return r.vit_pvalue; }));
    h5::append(f, kRowColumns[7], column<uint8_t>(rows, [](const MsvRow& r) { return r.passed; }));
  }
  h5::append(f, "tiles/id", std::vector<uint32_t>{tile_id});
  h5::append(f, "tiles/status", std::vector<uint8_t>{1});
  f.flush();
}

// Rows arrive in tile completion order; a finished file lists them by (model, target), so
// its content does not depend on the number of workers or ranks.
void sort_rows(h5::File& f) {
  const auto model = h5::read_all<uint32_t>(f, kRowColumns[0]);
  const auto target = h5::read_all<uint32_t>(f, kRowColumns[1]);
  if (model.empty()) return;
  std::vector<size_t> order(model.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return model[a] != model[b] ? model[a] < model[b] : target[a] < target[b];
  });
  auto rewrite = [&](const char* path, auto sample) {
    using T = decltype(sample);
    const std::vector<T> v = h5::read_all<T>(f, path);
    std::vector<T> sorted(v.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = v[order[i]];
    h5::remove_object(f, path);
    h5::write_column(f, path, sorted);
  };
  rewrite(kRowColumns[0], uint32_t{});
  rewrite(kRowColumns[1], uint32_t{});
  rewrite(kRowColumns[2], float{});
  rewrite(kRowColumns[3], double{});
  rewrite(kRowColumns[4], uint8_t{});
  rewrite(kRowColumns[5], float{});
  rewrite(kRowColumns[6], double{});
  rewrite(kRowColumns[7], uint8_t{});
}

// --backend: cpu, cuda (a GPU must be visible), or auto (cuda when a GPU is visible).
bool use_cuda(const std::string& backend) {
  const BackendKind kind = parse_backend_kind(backend);
  if (kind == BackendKind::Cpu) return false;
  const bool have = cuda_available();
  if (kind == BackendKind::Cuda && !have) backend_device_count(kind);  // throws the backend's clear error
  return have;
}

void print_summary(const MsvJob& job, const std::vector<TileResult>& totals) {
  const unsigned st = job.settings.stages;
  for (size_t m = 0; m < totals.size(); ++m) {
    const TileResult& t = totals[m];
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
  const bool cuda = use_cuda(opt.backend);
  MsvJob job;
  job.settings.F1 = opt.F1;
  job.settings.F2 = opt.F2;
  job.settings.stages = hmm::parse_stages(opt.stages);
  job.all_pairs = opt.all_pairs;
  job.models = read_hmm_file(opt.model_path);
  job.filters.reserve(job.models.size());
  for (const auto& m : job.models) job.filters.emplace_back(m);
  job.db = load_database(opt.db_path);
  if (job.db.seqs.empty()) throw InputError(opt.db_path, 0, "no sequences in the database");
  for (size_t i = 0; i < job.db.seqs.size(); ++i)
    if (job.db.seqs.length(i) > 100000)
      throw InputError(opt.db_path, 0, "target '" + job.db.seqs.ids[i] + "' is longer than 100000 residues, "
                                       "HMMER's pipeline limit");

  const int hc = int(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = opt.threads > 0 ? opt.threads : hc;
  const bool distributed = mpi.active && mpi.size > 1;
  std::unique_ptr<h5::File> out;
  std::unique_ptr<Progress> progress;
  std::vector<TileResult> totals(job.models.size());
  size_t rows_written = 0;

  SchedulerHooks hooks;
  int gpus = 0;
#ifdef HPCALIGN_HAVE_CUDA
  if (cuda) gpus = cuda_device_count();
  hooks.make_worker = [&](int, int slot) -> std::unique_ptr<TileWorker> {
    if (gpus > 0) return std::make_unique<MsvCudaWorker>(job, slot % gpus, threads);
    return std::make_unique<MsvWorker>(job);
  };
#else
  (void)cuda;
  hooks.make_worker = [&](int, int) -> std::unique_ptr<TileWorker> { return std::make_unique<MsvWorker>(job); };
#endif
  hooks.plan = [&](const std::vector<DeviceCapacity>& caps) {
    // Several partitions per worker so models of different lengths balance (LPT).
    const size_t parts = std::min<size_t>(job.db.seqs.size(), std::max<size_t>(1, 4 * caps.size()));
    const auto cuts = partitions(job.db, parts);
    std::vector<Tile> tiles;
    uint64_t cells = 0;
    for (uint32_t m = 0; m < job.models.size(); ++m)
      for (const auto& [b, e] : cuts) {
        Tile t;
        t.id = uint32_t(tiles.size());
        t.queries = {m};
        t.part_begin = b;
        t.part_end = e;
        uint64_t res = 0;
        for (uint32_t p = b; p < e; ++p) res += job.db.seqs.length(job.db.by_length[p]);
        t.cells = res * uint64_t(job.models[m].length);
        cells += t.cells;
        tiles.push_back(std::move(t));
      }
    if (opt.verbose)
      std::cerr << "hpcalign: msv: " << caps.size() << " worker(s); " << job.models.size() << " model(s) x "
                << cuts.size() << " partition(s) = " << tiles.size() << " tiles\n";
    h5::set_attribute(*out, "", "backend", std::string(gpus > 0 ? "cuda" : "cpu"));
    h5::set_attribute(*out, "", "workers", int64_t(caps.size()));
    h5::set_attribute(*out, "", "tiles", int64_t(tiles.size()));
    h5::set_attribute(*out, "", "tile_db_partitions", int64_t(cuts.size()));
    progress = std::make_unique<Progress>("msv", tiles.size(), cells, opt.quiet);
    return tiles;
  };
  hooks.on_result = [&](const Tile& tile, const std::string& bytes) {
    TileResult r = decode(bytes);
    append_rows(*out, tile.id, r.rows);
    rows_written += r.rows.size();
    TileResult& t = totals.at(r.model);
    t.targets += r.targets, t.past_msv += r.past_msv, t.past_bias += r.past_bias, t.past_vit += r.past_vit;
    progress->tile_done(tile.cells);
  };

  if (mpi.is_master()) {
    out = std::make_unique<h5::File>(opt.out_path, h5::Mode::kCreate);
    create_output(*out, opt, job);
  }
  const auto filter_start = std::chrono::steady_clock::now();
  try {
    if (distributed)
      run_tiles_mpi(mpi, hooks);
    else
      run_tiles_local(gpus > 0 ? gpus : threads, hooks);
  } catch (const StopRequested& e) {  // signal: the finished tiles are on disk; status stays incomplete
    if (out) {
      h5::set_attribute(*out, "", "stopped_by_signal", std::string(stop_signal_name()));
      out->close();
    }
    if (progress) progress->finish();
    std::cerr << "hpcalign: " << e.what() << "; " << opt.out_path << " is incomplete (msv cannot resume: rerun it)\n";
    return 0;
  }
  if (!mpi.is_master()) return 0;
  const double filter_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - filter_start).count();
  uint64_t model_nodes = 0;
  for (const auto& m : job.models) model_nodes += uint64_t(m.length);
  const double cells = double(model_nodes) * double(job.db.seqs.total_residues());
  h5::set_attribute(*out, "", "filter_seconds", filter_s);
  if (opt.verbose)
    std::cerr << "hpcalign: msv: filter phase " << filter_s << " s, " << cells << " MSV cells (sum M x residues), "
              << cells / std::max(filter_s, 1e-9) / 1e12 << " TCUPS\n";
  sort_rows(*out);

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
  h5::set_attribute(*out, "", "end_time", h5::utc_now_iso8601());
  h5::set_attribute(*out, "", "status", std::string("complete"));
  out->close();
  progress->finish();
  print_summary(job, totals);
  if (!opt.quiet)
    std::cerr << "hpcalign: " << rows_written << " rows for " << job.models.size() << " model(s) written to " << opt.out_path
              << "\n";
  return 0;
}

}  // namespace hpc
