#include "src/workloads/hmmsearch.hpp"

#include "io/result_lifecycle.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <sstream>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/tuning.hpp"
#include "src/hmm/hmmsearch_tables.hpp"
#include "src/report/fasta_descriptions.hpp"
#include "src/hmm/hmmsearch_msa.hpp"
#include "src/workloads/hmmsearch_output.hpp"
#include "src/workloads/hmmsearch_text.hpp"
#include "src/workloads/hmmsearch_rows.hpp"
#include "src/workloads/hmmsearch_workers.hpp"
#include "src/workloads/hmmscan_lists.hpp"
#include "src/workloads/hmm_inputs.hpp"
#include "src/workloads/tiled_run.hpp"

namespace hpc {
namespace {

constexpr int kMaxTargetLength = 100000;  // hmmsearch's limit per target

// The per-target pipeline's options change what tiles hold; thresholds act at the end only,
// but a resumed run must write what its command line says: all of them are checked.
std::vector<checkpoint::RunParameter> run_parameters(const HmmsearchOptions& o, const HmmsearchJob& job) {
  const hmm::PipelineSettings& p = o.pipeline;
  return {
      {"models", models_fingerprint(job.models)},
      {"database", checkpoint::fingerprint(job.db.seqs)},
      {"F1", checkpoint::exact(p.F1)},
      {"F2", checkpoint::exact(p.F2)},
      {"F3", checkpoint::exact(p.F3)},
      {"bias_filter", std::to_string(int(p.bias_filter))},
      {"null2", std::to_string(int(p.null2))},
      {"seed", std::to_string(p.seed)},
  };
}

class HmmsearchRun : public TiledWorkload {
 public:
  explicit HmmsearchRun(const HmmsearchOptions& opt) : opt_(opt) {}
  std::string name() const override { return opt_.scan ? "hmmscan" : "hmmsearch"; }
  // Models beside the database (their profiles are built per tile, HmmsearchJob::hold); a
  // broken model file is still reported first.
  void load() override {
    const auto t0 = std::chrono::steady_clock::now();
    const double age = opt_.run.verbose ? process_seconds() : 0;
    job_.pipeline = opt_.pipeline;
    job_.scan = opt_.scan;
    // Before any worker starts (the engines are placed after the load): a CPU-only run told to
    // use the parser engines builds their profiles for nothing, as before.
    job_.parser_lanes = std::string(tuning_choice(Tunable::kHmmParsers)) != "host";
    double models_s = 0, db_s = 0;
    std::future<void> models = std::async(std::launch::async, [&] {
      job_.models = read_hmm_file(opt_.model_path);
      if (job_.models.empty()) throw InputError(opt_.model_path, 0, "no models in the file");
      for (const HmmModel& m : job_.models)  // hmmsearch stops at the first model without the line
        if (!opt_.cutoff.empty()) hmm::model_cutoff_thresholds(m, opt_.cutoff);
      models_s = seconds_since(t0);
    });
    try {
      if (!opt_.tformat.empty() && is_hdf5_file(opt_.db_path))
        throw InputError(opt_.db_path, 0, std::string(opt_.scan ? "--qformat" : "--tformat") +
                                              " fasta given, but this is a makedb (HDF5) database");
      job_.db = load_database(opt_.db_path, ResidueRules::kHmmer);
      db_s = seconds_since(t0);
    } catch (...) {
      models.get();
      throw;
    }
    models.get();
    if (job_.db.seqs.empty()) throw InputError(opt_.db_path, 0, "no sequences in the database");
    for (size_t i = 0; i < job_.db.seqs.size(); ++i)
      if (job_.db.seqs.length(i) > kMaxTargetLength)
        throw InputError(opt_.db_path, 0, "target '" + job_.db.seqs.ids[i] +
                                              "' is longer than 100000 residues, HMMER's pipeline limit");
    hits_.resize(job_.models.size());
    totals_.resize(job_.models.size());
    if (opt_.scan) passes_.resize(job_.db.seqs.size());
    if (opt_.run.verbose)
      std::fprintf(stderr, "hpcalign: %s: load %.3f s (models %.3f s, beside the database %.3f s), started %.3f s "
                   "after the process\n",
                   name().c_str(), seconds_since(t0), models_s, db_s, age);
  }
  // GPU workers: sixteen a GPU (one host thread each on a 16-core host), so that while some
  // run their host stages (bias filter, survivors) the others' filter kernels keep the GPU
  // busy (H200, 22 models x 207 M residues: 1.20 s with 16 against 1.25-1.34 s with 8, 1.35
  // with 12, 1.40 with 4). CPU: one pipeline per thread.
  int workers_per_gpu() const override { return 16; }
  bool worker_per_cpu_thread() const override { return true; }
  std::unique_ptr<TileWorker> make_worker(const EngineSlot& slot) override {
    if (slot.kind() == BackendKind::Cpu) return make_hmmsearch_cpu_worker(job_);
    // The survivors' parsers on the host's threads unless told otherwise: on the GPU, their
    // Forward (a block a target; `forward`) and Backward too (one thread a target; `device`)
    // were slower end to end, each tile's launch waiting for its longest target (22 models x
    // 207 M residues: forward 2.55-2.62 s against 0.96-1.04 s on one H100's 16 cores, its blocks
    // holding the SMs while the filters' kernels queue; device 8.7 s against 1.5 s on an H200).
    const std::string where = tuning_choice(Tunable::kHmmParsers);
    std::unique_ptr<FbEngine> parsers;
    if (where != "host") parsers = make_fb_engine(slot.kind(), slot.device_index(), &job_.lane_profiles());
    return make_hmmsearch_engine_worker(
        job_, make_msv_engine(slot.kind(), slot.device_index(), slot.threads, job_.msv_setup()), std::move(parsers),
        where == "device" ? EngineParsers::kBoth : EngineParsers::kForward, slot.threads);
  }
  std::vector<checkpoint::RunParameter> parameters() const override { return run_parameters(opt_, job_); }
  void create_output() override { out_ = std::make_unique<h5::File>(opt_.run.out_path, h5::Mode::kCreate); }
  h5::File& output_file() override { return *out_; }

  // GPUs: as many tiles as one GPU's 16 workers get, whatever the GPU count (each cut adds
  // launches and host set-up for the same cells): on 2 H100s (22 and 88 models x 207 M
  // residues) 896 tiles (28 a worker) took 0.93-0.99 and 1.48-1.51 s, 448 (14 a worker)
  // 0.87-0.91 and 1.42 s; with 896 both GPUs' last tiles ended within 3 ms of each other.
  // Since the workers look ahead (the next tile's filters beside this one's survivors), 14 a
  // worker on one GPU instead of 28 (larger MSV launches; one H100, 22 models: 0.864-0.937 s
  // against 0.936-0.995 s with 28).
  // And at least one database cut a GPU: 2,000 models (254 batches) made one cut, each tile the
  // whole database (0.55-0.8 s a worker); on 2 H100s the workers' tiles summed to 164-172 s
  // against 155-161 s with two cuts, the GPUs' last tiles ended up to 0.7 s apart against 15 ms,
  // and the last was stored 5.4-6.0 s after the load against 4.95-5.14 s (one GPU: 8.9-9.1 s).
  // Only where the batches are that few (kBatchesThatBalance): a model library's thousands of
  // batches balance the GPUs alone, and a cut would double each batch's per-tile costs.
  static constexpr size_t kGpuTilesPerWorker = 14;
  TiledPlan plan(const std::vector<DeviceCapacity>& caps) override {
    const Engines& e = engines();
    const bool local_gpus = e.gpu && !e.distributed;
    const size_t per_worker = local_gpus ? std::max<size_t>(1, kGpuTilesPerWorker / size_t(std::max(1, e.devices)))
                                         : kMsvTilesPerWorker;
    return plan_model_tiles(job_.models, job_.db, caps.size(), per_worker, local_gpus ? size_t(e.devices) : 1);
  }
  bool plans_by_worker_count() const override { return true; }

  void write_header(const TiledPlan& plan, const std::vector<DeviceCapacity>& caps) override {
    const auto t0 = std::chrono::steady_clock::now();
    create_hmmsearch_output(*out_, opt_, job_.models, job_.db.seqs);
    h5::set_attribute(*out_, "", "backend", std::string(engines().gpu ? "cuda" : "cpu"));
    h5::set_attribute(*out_, "", "workers", int64_t(caps.size()));
    h5::set_attribute(*out_, "", "tiles", int64_t(plan.tiles.size()));
    for (const auto& [name, value] : plan.notes) h5::set_attribute(*out_, "", name, value);
    if (opt_.run.verbose)
      std::fprintf(stderr, "hpcalign: %s: %zu worker(s), %zu tiles; output file ready in %.3f s (while the first tiles run)\n",
                   name().c_str(), caps.size(), plan.tiles.size(), seconds_since(t0));
  }

  // Hits stay in memory until every tile is in (thresholds need the whole search); a resumed
  // run gets the finished tiles back from the journal.
  void store(uint32_t, const std::string& bytes, bool) override {
    const HmmTileResult r = decode_hmm_tile(bytes);
    for (const HmmCounts& c : r.counts) totals_.at(c.model).add(c);
    for (const HmmPassCounts& p : r.passes) passes_.at(p.target).add(p);
    size_t d = 0, ali = 0;
    for (const HmmTargetRow& t : r.targets) {
      if (d + size_t(t.ndomains) > r.domains.size()) throw Error("internal: hmmsearch tile result cut short");
      hits_.at(t.model).push_back(hit_from_rows(t, r.domains.data() + d, r.alignments, &ali));
      d += size_t(t.ndomains);
    }
  }

  std::vector<std::string> target_descriptions() const {
    return is_hdf5_file(opt_.db_path) ? std::vector<std::string>{} : fasta_descriptions(opt_.db_path);
  }

  // Model m's hits named from the database and thresholded (Z, domZ, E-values, cut-offs).
  hmm::HitList threshold_hits(size_t m, const std::vector<std::string>& desc) {
    const double Z = opt_.Z ? *opt_.Z : double(job_.db.seqs.size());
    std::vector<hmm::TargetHit>& hits = hits_[m];
    for (hmm::TargetHit& h : hits) {
      h.name = job_.db.seqs.ids[h.index];
      h.description = h.index < desc.size() ? desc[h.index] : "";
      h.length = int(job_.db.seqs.length(h.index));
    }
    // Tiles arrive in any order: file order first, so that ties list the same every run.
    std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    hmm::ReportThresholds t = opt_.thresholds;
    if (!opt_.cutoff.empty()) {
      const double Zopt = t.Z, domZ = t.domZ;
      t = hmm::model_cutoff_thresholds(job_.models[m], opt_.cutoff);
      t.Z = Zopt, t.domZ = domZ;
    }
    return hmm::finish_hits(std::move(hits), Z, t);
  }

  static constexpr size_t kModelsPerText = 8;
  // The text of a run of models (first..last): each model's tables, report and -A alignment.
  struct ModelsText {
    std::ostringstream tbl, dom, pfam, report, msa;
  };
  void write_models_text(ModelsText& out, size_t first, size_t last, const std::vector<hmm::HitList>& lists) const {
    for (size_t m = first; m < last; ++m) {
      hmm::write_tblout(out.tbl, job_.models[m], lists[m], m == 0);
      hmm::write_domtblout(out.dom, job_.models[m], lists[m], m == 0);
      hmm::write_pfamtblout(out.pfam, lists[m], opt_.ranks_by_score());
      write_query_report(out.report, hmm::search_query(job_.models[m]), totals_[m], lists[m], opt_);
      if (!opt_.msa_path.empty()) write_msa(out.msa, out.report, job_.models[m], lists[m]);
    }
  }

  // -A: the query's alignment of included domains, and the line hmmsearch's report gives it.
  void write_msa(std::ostream& msa, std::ostream& report, const HmmModel& model, const hmm::HitList& list) const {
    const int block = opt_.style.textw > 0 ? 200 : 0;  // Stockholm, or Pfam's one block under --notextw
    const int n = hmm::write_included_msa(msa, model, list, "hpcalign hmmsearch (HMMER 3.3.2)", block);
    if (n > 0)
      report << "# Alignment of " << n << " hits satisfying inclusion thresholds saved to: " << opt_.msa_path << "\n";
    else
      report << "# No hits satisfy inclusion thresholds; no alignment saved\n";
  }

  void stopped(const std::string& signal_name) override {
    result_lifecycle::mark_stopped(*out_, signal_name);
    out_->close();
  }

  // hmmsearch: the models' hit lists and text on all cores (each model's alone), joined in model
  // order: 2,000 models took 0.32-0.54 s of the end on one thread, the GPUs idle; 0.06-0.10 s on
  // a 2-GPU host's 32 cores.
  void finish(const RunClock&) override {
    const auto t0 = std::chrono::steady_clock::now();
    std::ostringstream tbl, dom, pfam, report, msa;
    std::vector<hmm::HitList> lists;
    write_report_header(report, opt_);
    if (opt_.scan) {  // hmmscan: the same hits, per query sequence
      lists = finish_scan(opt_, job_.models, job_.db.seqs, target_descriptions(), std::move(hits_), passes_, tbl, dom,
                          pfam, report);
    } else {
      const std::vector<std::string> desc = target_descriptions();
      // Runs of kModelsPerText models taken in turn by every core (a model's hits vary), joined in order.
      const size_t n = job_.models.size(), runs = (n + kModelsPerText - 1) / kModelsPerText;
      lists.resize(n);
      std::vector<ModelsText> text(runs);
      std::atomic<size_t> next{0};
      run_parts(std::max<size_t>(1, std::min(runs, all_usable_cores())), [&](size_t) {
        for (size_t r; (r = next++) < runs;) {
          const size_t first = r * kModelsPerText, last = std::min(n, first + kModelsPerText);
          for (size_t m = first; m < last; ++m) lists[m] = threshold_hits(m, desc);
          write_models_text(text[r], first, last, lists);
        }
      });
      // Each run's text dropped once joined, so that a Pfam-sized report is not held twice over.
      const auto join = [](std::ostringstream& to, std::ostringstream& from) { to << from.str(), from.str(std::string()); };
      for (ModelsText& t : text)
        join(tbl, t.tbl), join(dom, t.dom), join(pfam, t.pfam), join(report, t.report), join(msa, t.msa);
    }
    report << "[ok]\n";
    write_hmmsearch_results(*out_, lists, totals_, opt_.scan);
    if (opt_.scan) write_scan_counts(*out_, passes_);
    result_lifecycle::complete(*out_);
    out_->close();
    if (!opt_.tblout_path.empty()) opt_.write_text(opt_.tblout_path, tbl.str());
    if (!opt_.domtblout_path.empty()) opt_.write_text(opt_.domtblout_path, dom.str());
    if (!opt_.pfamtblout_path.empty()) opt_.write_text(opt_.pfamtblout_path, pfam.str());
    if (!opt_.msa_path.empty()) opt_.write_text(opt_.msa_path, msa.str());
    if (!opt_.report_path.empty())
      opt_.write_text(opt_.report_path, report.str());
    else
      report_ = report.str();
    if (opt_.run.verbose)
      std::fprintf(stderr, "hpcalign: %s: hit lists and output files %.3f s; process age %.3f s\n", name().c_str(),
                   seconds_since(t0), process_seconds());
  }

  void summary() override { std::cout << report_ << std::flush; }

 private:
  const HmmsearchOptions& opt_;
  HmmsearchJob job_;
  std::unique_ptr<h5::File> out_;
  std::vector<std::vector<hmm::TargetHit>> hits_;
  std::vector<HmmCounts> totals_;
  std::vector<HmmPassCounts> passes_;  // hmmscan: per sequence
  std::string report_;
};

}  // namespace

int run_hmmsearch(const HmmsearchOptions& opt, const MpiContext& mpi) {
  HmmsearchRun run(opt);
  return run_tiled(run, opt.run, mpi);
}

}  // namespace hpc
