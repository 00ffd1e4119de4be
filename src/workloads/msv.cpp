#include "src/workloads/msv.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "io/result_lifecycle.hpp"
#include "kernels/msv_engine.hpp"
#include "src/core/error.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/wire.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/workloads/msv_job.hpp"
#include "src/workloads/msv_output.hpp"
#include "src/workloads/hmm_inputs.hpp"
#include "src/workloads/staged_rows_workload.hpp"
#include "src/workloads/tile_runs.hpp"
#include "src/workloads/tiled_run.hpp"

namespace hpc {
namespace {

// What a tile sends back: the counters of each of its models, and its rows (staged by the
// worker: src/workloads/tile_runs.hpp).
struct TileResult {
  std::vector<MsvModelCounts> counts;
  TileRun<RowSchema> rows;
};

std::string encode(uint32_t tile, const MsvTileResult& r, TileRunWriter<RowSchema>& runs) {
  WireWriter w;
  w.put_vector(r.counts);
  std::string packed = msv_row_fields().pack(r.pairs);
  runs.put(w, tile, packed);
  return w.take();
}

TileResult decode_tile(const std::string& bytes) {
  WireReader rd(bytes);
  TileResult r;
  r.counts = rd.get_vector<MsvModelCounts>();
  r.rows = TileRun<RowSchema>::get(rd);
  return r;
}

// A worker's engine. A tile that does not fit the device throws hpc::OutOfMemory: the
// driver splits it (the totals add up the pieces' counters).
class MsvWorker : public TileWorker {
 public:
  // `out_path`, `worker`: where the worker stages its tiles' rows.
  MsvWorker(MsvJob& job, std::unique_ptr<MsvEngine> engine, const std::string& out_path, int worker)
      : job_(job), engine_(std::move(engine)), runs_(out_path, worker, msv_row_fields().schema()) {}
  DeviceCapacity capacity() const override { return engine_->capacity(); }
  std::string run(const Tile& tile) override {
    const ModelsHeld held(job_, tile.queries);
    return encode(tile.id, run_msv_tile(*engine_, tile), runs_);
  }

 private:
  MsvJob& job_;
  std::unique_ptr<MsvEngine> engine_;
  TileRunWriter<RowSchema> runs_;
};

// Everything that changes the results (content fingerprints, not paths).
std::vector<checkpoint::RunParameter> run_parameters(const MsvOptions& opt, const MsvJob& job) {
  return {
      {"models", models_fingerprint(job.models)},
      {"database", checkpoint::fingerprint(job.db.seqs)},
      {"F1", checkpoint::exact(opt.F1)},
      {"F2", checkpoint::exact(opt.F2)},
      {"stages", hmm::stages_name(job.setup.settings.stages)},
      {"all_pairs", std::to_string(int(opt.all_pairs))},
      tile_rows_parameter(),
  };
}

void print_summary(const MsvJob& job, const std::vector<MsvModelCounts>& totals) {
  const unsigned st = job.setup.settings.stages;
  for (size_t m = 0; m < totals.size(); ++m) {
    const MsvModelCounts& t = totals[m];
    const double n = double(std::max<uint64_t>(1, t.targets));
    std::printf("Query:       %s  [M=%d]\n", job.models[m].name.c_str(), job.models[m].length);
    std::printf("Target sequences:                  %8llu\n", (unsigned long long)t.targets);
    auto line = [&](const char* what, uint64_t k, double expect) {
      std::printf("Passed %-17s %17llu  (%g); expected %.1f (%g)\n", what, (unsigned long long)k, double(k) / n,
                  expect * double(t.targets), expect);
    };
    line("MSV filter:", t.past_msv, job.setup.settings.F1);
    if (st & hmm::kStageBias) line("bias filter:", t.past_bias, job.setup.settings.F1);
    if (st & hmm::kStageVit) line("Vit filter:", t.past_vit, job.setup.settings.F2);
    std::printf("//\n");
  }
  std::fflush(stdout);
}

// Models and database, read at the same time; a broken model file is still reported first.
void load_job(const MsvOptions& opt, MsvJob& job) {
  if (!(opt.F1 > 0 && opt.F1 <= 1) || !(opt.F2 > 0 && opt.F2 <= 1)) throw Error("--F1 and --F2 must be in (0, 1]");
  job.setup.settings.F1 = opt.F1;
  job.setup.settings.F2 = opt.F2;
  job.setup.settings.stages = hmm::parse_stages(opt.stages);
  job.setup.all_pairs = opt.all_pairs;
  const auto load_start = std::chrono::steady_clock::now();
  const double load_age = opt.run.verbose ? process_seconds() : 0;
  double models_s = 0;
  std::future<void> models_loaded = std::async(std::launch::async, [&] {
    job.models = read_hmm_file(opt.model_path);
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
  job.prepare();
  if (opt.run.verbose)
    std::cerr << "hpcalign: msv: load " << seconds_since(load_start) << " s (models " << models_s
              << " s, beside the database), started " << load_age << " s after the process\n";
}

// msv on the tiled-run driver (src/workloads/tiled_run.hpp).
class MsvRun : public StagedRowsWorkload<RowSchema, TileResult> {
 public:
  explicit MsvRun(const MsvOptions& opt) : StagedRowsWorkload(opt.run.out_path, msv_row_fields().schema()), opt_(opt) {}
  std::string name() const override { return "msv"; }
  void load() override {
    load_job(opt_, job_);
    totals_.resize(job_.models.size());
  }
  // Workers per GPU in a local run: four, so that the others' kernels keep the GPU busy while
  // one worker runs its host stages (P-values, bias filter, Viterbi selection). They share one
  // copy of the database on the device. 22 models x 207M residues, H200: filter phase 0.65-0.68 s
  // with two workers, 0.58-0.61 with three, 0.53-0.56 with four.
  int workers_per_gpu() const override { return 4; }
  bool worker_per_cpu_thread() const override { return true; }
  std::unique_ptr<TileWorker> make_worker(const EngineSlot& slot) override {
    return std::make_unique<MsvWorker>(job_, make_msv_engine(slot.kind(), slot.device_index(), slot.threads, job_.setup),
                                       opt_.run.out_path, slot.worker);
  }
  std::vector<checkpoint::RunParameter> parameters() const override { return run_parameters(opt_, job_); }
  void create_output() override {
    out_ = std::make_unique<h5::File>(opt_.run.out_path, h5::Mode::kCreate);
    runs_.prepare(opt_.run.resume);
  }
  h5::File& output_file() override { return *out_; }

  TiledPlan plan(const std::vector<DeviceCapacity>& caps) override {
    return plan_model_tiles(job_.models, job_.db, caps.size());
  }
  bool plans_by_worker_count() const override { return true; }

  // Runs while the first tiles compute: every target's id (~0.1 s for 590k targets).
  void write_header(const TiledPlan& plan, const std::vector<DeviceCapacity>& caps) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (opt_.run.verbose)
      std::cerr << "hpcalign: msv: " << caps.size() << " worker(s); " << job_.models.size() << " model(s) in "
                << plan_note(plan.notes, "tile_model_batches") << " batch(es) x "
                << plan_note(plan.notes, "tile_db_partitions") << " partition(s) = " << plan.tiles.size() << " tiles\n";
    create_msv_output(*out_, opt_, job_.models, job_.db.seqs, job_.setup.settings.stages);
    h5::set_attribute(*out_, "", "backend", std::string(engines().gpu ? "cuda" : "cpu"));
    h5::set_attribute(*out_, "", "workers", int64_t(caps.size()));
    h5::set_attribute(*out_, "", "tiles", int64_t(plan.tiles.size()));
    for (const auto& [name, value] : plan.notes) h5::set_attribute(*out_, "", name, value);
    if (opt_.run.verbose)
      std::fprintf(stderr, "hpcalign: msv: output file ready in %.3f s (target ids; while the first tiles run)\n",
                   seconds_since(t0));
  }

  TileResult decode(const std::string& bytes) const override { return decode_tile(bytes); }
  // The pass counters of every tile, replayed or not: the totals are this output's.
  void stored(const TileResult& r, bool) override {
    for (const MsvModelCounts& c : r.counts) totals_.at(c.model).add(c);
  }

  void stopped(const std::string& signal_name) override {
    result_lifecycle::mark_stopped(*out_, signal_name);
    out_->close();
  }

  void finish(const RunClock& clock) override {
    const double filter_s = seconds_since(clock.loaded);
    uint64_t model_nodes = 0;
    for (const auto& m : job_.models) model_nodes += uint64_t(m.length);
    const double cells = double(model_nodes) * double(job_.db.seqs.total_residues());
    h5::set_attribute(*out_, "", "filter_seconds", filter_s);
    if (opt_.run.verbose)
      std::cerr << "hpcalign: msv: filter phase " << filter_s << " s, " << cells << " MSV cells (sum M x residues), "
                << cells / std::max(filter_s, 1e-9) / 1e12 << " TCUPS\n";
    const auto write_start = std::chrono::steady_clock::now();
    merge_tile_runs(runs_, *out_);
    std::vector<uint32_t> model_idx;
    std::vector<uint64_t> n, a, b, c;
    for (uint32_t m = 0; m < totals_.size(); ++m) {
      model_idx.push_back(m), n.push_back(totals_[m].targets), a.push_back(totals_[m].past_msv);
      b.push_back(totals_[m].past_bias), c.push_back(totals_[m].past_vit);
    }
    h5::write_column(*out_, "pipeline/model", model_idx);
    h5::write_column(*out_, "pipeline/targets", n);
    h5::write_column(*out_, "pipeline/past_msv", a);
    h5::write_column(*out_, "pipeline/past_bias", b);
    h5::write_column(*out_, "pipeline/past_vit", c);
    result_lifecycle::complete(*out_);
    out_->close();
    runs_.remove();
    if (opt_.run.verbose)
      std::cerr << "hpcalign: msv: final merge and write " << seconds_since(write_start) << " s; process age "
                << process_seconds() << " s\n";
  }

  void summary() override {
    print_summary(job_, totals_);
    if (!opt_.run.quiet)
      std::cerr << "hpcalign: " << runs_.rows() << " rows for " << job_.models.size() << " model(s) written to "
                << opt_.run.out_path << "\n";
  }

 private:
  const MsvOptions& opt_;
  MsvJob job_;
  std::unique_ptr<h5::File> out_;
  std::vector<MsvModelCounts> totals_;
};

}  // namespace

int run_msv(const MsvOptions& opt, const MpiContext& mpi) {
  MsvRun run(opt);
  return run_tiled(run, opt.run, mpi);
}

}  // namespace hpc
