#include "src/workloads/hmmsearch_workers.hpp"

#include <algorithm>
#include <future>
#include <optional>
#include <string>

#include "src/core/error.hpp"
#include "src/core/stage_clock.hpp"
#include "src/hmm/hmmer_float_mode.hpp"
#include "src/workloads/hmmsearch_survivors.hpp"

namespace hpc {
namespace {

// The CPU worker: the tile's filters on this thread (the CPU msv engine, model by model), then
// its survivors through the same stage as the engine workers' (hmmsearch_after_filters) on this
// thread alone: neighbours of a model through the Forward filter eight at a time (forward_group)
// and those past it from Backward on two at a time (score_forwarded), which the per-target
// pipeline cannot group.
class CpuWorker : public TileWorker {
 public:
  explicit CpuWorker(HmmsearchJob& job)
      : job_(job), engine_(make_msv_engine(BackendKind::Cpu, 0, 1, job.msv_setup())), pool_(1) {}
  DeviceCapacity capacity() const override { return {}; }
  std::string run(const Tile& tile) override {
    const ModelsHeld held(job_, tile.queries);
    MsvTileResult filtered;
    {
      const hmm::HmmerFloatMode mode;  // the bias filter's float scores as the per-target pipeline takes them
      filtered = engine_->run(tile);
    }
    return encode_hmm_tile(hmmsearch_after_filters(job_, tile, filtered, pool_));
  }

 private:
  HmmsearchJob& job_;
  std::unique_ptr<MsvEngine> engine_;
  ThreadPool pool_;  // the calling thread alone
};

class EngineWorker : public TileWorker {
 public:
  EngineWorker(HmmsearchJob& job, std::unique_ptr<MsvEngine> engine, std::unique_ptr<FbEngine> parsers,
               EngineParsers use, int host_threads, bool look_ahead)
      : job_(job), engine_(std::move(engine)), parsers_(std::move(parsers)), use_(use), pool_(host_threads),
        look_ahead_(look_ahead) {}
  DeviceCapacity capacity() const override { return engine_->capacity(); }
  bool looks_ahead() const override { return look_ahead_; }
  void run_next(const Tile& next) override { next_ = next; }
  // HPCALIGN_CUDA_TIMING: a line a tile, its filters (with a look-ahead: the wait for them)
  // against the stages after them.
  std::string run(const Tile& tile) override {
    const ModelsHeld held(job_, tile.queries);
    StageClock clock;
    const MsvTileResult filtered = filters_of(tile);
    clock.mark("filters");
    // The next tile's filters on a thread of their own while this tile's survivors are scored
    // here: the filters' waits for the GPU would otherwise leave this worker's core idle.
    if (next_) {
      ahead_id_ = next_->id;
      ahead_ = std::async(std::launch::async, [this, next = *next_] {
        const ModelsHeld held(job_, next.queries);
        return run_msv_tile(*engine_, next);
      });
      next_.reset();
    }
    std::string bytes = encode_hmm_tile(hmmsearch_after_filters(job_, tile, filtered, pool_, parsers_.get(), use_));
    clock.mark("after");
    clock.report(("hmmsearch tile " + std::to_string(tile.id)).c_str());
    return bytes;
  }

 private:
  // The tile's filter results: those started ahead (their error, if any, is this tile's), else
  // run now.
  MsvTileResult filters_of(const Tile& tile) {
    if (ahead_.valid()) {
      if (ahead_id_ == tile.id) return ahead_.get();
      try {
        ahead_.get();  // another tile's (not the scheduler's order): dropped
      } catch (const std::exception&) {
      }
    }
    return run_msv_tile(*engine_, tile);
  }

  HmmsearchJob& job_;
  std::unique_ptr<MsvEngine> engine_;
  std::unique_ptr<FbEngine> parsers_;
  EngineParsers use_;
  ThreadPool pool_;
  bool look_ahead_;
  std::optional<Tile> next_;           // run_next's tile
  uint32_t ahead_id_ = 0;              // the tile whose filters ahead_ runs
  std::future<MsvTileResult> ahead_;   // declared after engine_: waited for before it goes
};

}  // namespace

void HmmsearchJob::make_entries() {
  std::call_once(entries_made_, [&] {
    filters_.resize(models.size());
    profiles_.resize(models.size());
    if (parser_lanes) lanes_.resize(models.size());
    cache_.emplace(
        models, kept_nodes,
        [&](uint32_t m) {
          const hmm::ModelScores scores = hmm::model_scores(models[m]);
          filters_[m] = hmm::ModelFilters(models[m], scores), profiles_[m] = hmm::build_fb_profile(models[m], scores);
          if (parser_lanes) lanes_[m] = hmm::lane_profile(profiles_[m]);
        },
        [&](uint32_t m) {
          filters_[m] = hmm::ModelFilters(), profiles_[m] = hmm::FbProfile();
          if (parser_lanes) lanes_[m] = hmm::FbLaneProfile();
        });
    setup_.filters = &filters_;
    setup_.db = &db;
    setup_.settings = pipeline.filter_settings();
    setup_.all_pairs = false;  // only the survivors of every filter
    setup_.past_msv_pairs = scan;  // and for hmmscan's statistics those past the MSV filter
  });
}

const MsvSetup& HmmsearchJob::msv_setup() {
  make_entries();
  return setup_;
}

const std::vector<hmm::FbProfile>& HmmsearchJob::fb_profiles() {
  make_entries();
  return profiles_;
}

void HmmsearchJob::hold(const std::vector<uint32_t>& tile_models) {
  make_entries();
  cache_->hold(tile_models);
}

void HmmsearchJob::release(const std::vector<uint32_t>& tile_models) { cache_->release(tile_models); }

size_t HmmsearchJob::peak_built_nodes() {
  make_entries();
  return cache_->peak_built_nodes();
}

const std::vector<hmm::FbLaneProfile>& HmmsearchJob::lane_profiles() {
  if (!parser_lanes) throw Error("internal: hmmsearch's parser engines without job.parser_lanes set");
  make_entries();
  return lanes_;
}

std::unique_ptr<TileWorker> make_hmmsearch_cpu_worker(HmmsearchJob& job) {
  return std::make_unique<CpuWorker>(job);
}

std::unique_ptr<TileWorker> make_hmmsearch_engine_worker(HmmsearchJob& job, std::unique_ptr<MsvEngine> engine,
                                                         std::unique_ptr<FbEngine> parsers, EngineParsers use,
                                                         int host_threads, bool look_ahead) {
  return std::make_unique<EngineWorker>(job, std::move(engine), std::move(parsers), use, host_threads, look_ahead);
}

namespace {

// The survivors through the rest of hmmsearch's pipeline: on `pool` alone without `parsers`;
// else their Forward parser on the engine and, past the Forward filter, either the whole rest
// on `pool` (kForward: the host's Forward again, on the few that pass) or Backward on the
// engine too and domain definition on `pool` (kBoth).
std::vector<hmm::PostFilterResult> score_after_filters(HmmsearchJob& job, const std::vector<Survivor>& survivors,
                                                       ThreadPool& pool, FbEngine* parsers, EngineParsers use) {
  const Database& db = job.db;
  if (!parsers) return score_survivors(job.models, job.fb_profiles(), db, job.pipeline, survivors, pool);
  std::vector<FbJob> jobs;
  jobs.reserve(survivors.size());
  for (const Survivor& s : survivors) jobs.push_back({s.model, db.seqs.view(s.target)});
  const auto passes = [&](size_t i, float nats) {
    const Survivor& s = survivors[i];
    return hmm::forward_filter_passes(job.models[s.model], job.pipeline, nats, s.filter_nats);
  };
  if (use == EngineParsers::kBoth) {
    const std::vector<hmm::FbParse> parses = parsers->filter_and_parse(jobs, passes);
    return score_survivors(job.models, job.fb_profiles(), db, job.pipeline, survivors, pool, &parses);
  }
  const std::vector<float> nats = parsers->forward(jobs);
  std::vector<Survivor> past;
  std::vector<size_t> where;
  for (size_t i = 0; i < survivors.size(); ++i)
    if (passes(i, nats[i])) past.push_back(survivors[i]), where.push_back(i);
  std::vector<hmm::PostFilterResult> scored(survivors.size());  // the others: failed the Forward filter
  std::vector<hmm::PostFilterResult> rest = score_survivors(job.models, job.fb_profiles(), db, job.pipeline, past, pool);
  for (size_t k = 0; k < past.size(); ++k) scored[where[k]] = std::move(rest[k]);
  return scored;
}

// hmmscan's statistics: each sequence's passes summed over the tile's models, from the pairs
// the engine reports past the MSV filter and the survivors' Forward filter, in database
// position order (by_length's) as the CPU worker lists them.
void add_scan_passes(const Database& db, const MsvTileResult& filtered, const std::vector<Survivor>& survivors,
                     const std::vector<hmm::PostFilterResult>& scored, HmmTileResult& r) {
  std::vector<HmmPassCounts> each;
  for (const MsvPair& p : filtered.pairs)
    if (p.result.msv_pass) each.push_back({p.target, 1, p.result.bias_pass, p.result.passed, 0});
  for (size_t i = 0; i < survivors.size(); ++i) each.push_back({survivors[i].target, 0, 0, 0, scored[i].past_fwd});
  std::stable_sort(each.begin(), each.end(), [&](const HmmPassCounts& a, const HmmPassCounts& b) {
    return before_in_length_order(db.seqs, a.target, b.target);
  });
  for (const HmmPassCounts& p : each)
    if (!r.passes.empty() && r.passes.back().target == p.target)
      r.passes.back().add(p);
    else
      r.passes.push_back(p);
}

}  // namespace

HmmTileResult hmmsearch_after_filters(HmmsearchJob& job, const Tile& tile, const MsvTileResult& filtered,
                                      ThreadPool& pool, FbEngine* parsers, EngineParsers use) {
  const Database& db = job.db;
  HmmTileResult r;
  // Counts: one entry per model, in tile order, as the CPU worker sends them (the engine's
  // may come in another order, or split by an out-of-memory retry).
  std::vector<int> slot(job.models.size(), -1);
  uint64_t residues = 0;
  for (uint32_t pos = tile.part_begin; pos < tile.part_end; ++pos) residues += db.seqs.length(db.by_length[pos]);
  for (uint32_t m : tile.queries) {
    slot.at(m) = int(r.counts.size());
    HmmCounts c;
    c.model = m, c.residues = residues;
    r.counts.push_back(c);
  }
  for (const MsvModelCounts& e : filtered.counts) {
    HmmCounts& c = r.counts.at(size_t(slot.at(e.model)));
    c.targets += e.targets, c.past_msv += e.past_msv, c.past_bias += e.past_bias, c.past_vit += e.past_vit;
  }
  // Survivors by model (tile order), then database position (by_length's order).
  std::vector<Survivor> survivors;
  for (const MsvPair& p : filtered.pairs)
    if (p.result.passed) survivors.push_back({p.model, p.target, p.result.filter_nats});
  std::sort(survivors.begin(), survivors.end(), [&](const Survivor& a, const Survivor& b) {
    if (a.model != b.model) return slot[a.model] < slot[b.model];
    return before_in_length_order(db.seqs, a.target, b.target);
  });
  // What the engine reports must add up: every target of the tile once per model, and as many
  // survivors listed as it counts past the Viterbi filter.
  std::vector<uint64_t> survived(r.counts.size(), 0);
  for (const Survivor& s : survivors) ++survived[size_t(slot[s.model])];
  for (size_t k = 0; k < r.counts.size(); ++k)
    if (r.counts[k].targets != tile.part_end - tile.part_begin || survived[k] != r.counts[k].past_vit)
      throw Error("internal: hmmsearch tile " + std::to_string(tile.id) + ", model " +
                  std::to_string(r.counts[k].model) + ": the msv engine counts " + std::to_string(r.counts[k].targets) +
                  " targets and " + std::to_string(r.counts[k].past_vit) + " past the Viterbi filter, lists " +
                  std::to_string(survived[k]) + " survivors");
  const std::vector<hmm::PostFilterResult> scored = score_after_filters(job, survivors, pool, parsers, use);
  for (size_t i = 0; i < survivors.size(); ++i) {
    const Survivor& s = survivors[i];
    r.counts[size_t(slot[s.model])].past_fwd += scored[i].past_fwd;
    if (scored[i].hit) add_hit_rows(s.model, s.target, *scored[i].hit, r);
  }
  if (job.scan) add_scan_passes(db, filtered, survivors, scored, r);
  return r;
}

}  // namespace hpc
