// src/workloads/hmmsearch_workers.cpp: the engine worker (filters from an msv engine, then the
// survivors through the rest of hmmsearch's pipeline on a thread pool) and the CPU worker (the
// same on one thread) give what the whole per-target pipeline (hmm::HmmsearchPipeline,
// hmmsearch's own results per the oracle tests) gives, target by target:
// the same pass counts per model and tile, the same rows in the same order, hence the same
// --tblout and --domtblout, under the default filters and hmmsearch's filter options; for
// hmmscan (job.scan) also the same filter pass counts per sequence; and so does the engine
// worker that looks ahead (the next tile's filters beside the current tile's survivors). The msv
// engine here is its CPU twin, which the GPU one matches pair for pair (MsvGpu.*); the GPU
// run itself is HmmsearchGpu.* (gpu label).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>

#include "io/database.hpp"
#include "io/hmm_file.hpp"
#include "kernels/msv_engine.hpp"
#include "src/core/error.hpp"
#include "src/hmm/hmmsearch_tables.hpp"
#include "src/plan/tile_split.hpp"
#include "src/workloads/hmm_inputs.hpp"
#include "src/workloads/hmmsearch_workers.hpp"
#include "held_models_support.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

// globins4 (twice: the Pfam-style copy has cut-off lines), XYPPX, fn3, Pkinase against
// globins45, sevenless (fn3 repeats) and every 6th balifam2000 domain (333, of many families).
std::vector<HmmModel> test_models() {
  std::vector<HmmModel> models;
  for (const char* f : {"hmm/pfam_style.hmm", "hmm/fn3.hmm", "hmm/Pkinase.hmm", "hmm/globins4.hmm"})
    for (HmmModel& m : read_hmm_file(test::data_path(f))) models.push_back(std::move(m));
  return models;
}

// `synthetic`: also the random sequences of db2M (5,594), whose few survivors of the Viterbi
// filter sit near the Forward filter's threshold.
std::string test_targets(bool synthetic) {
  const std::string p = test::temp_path(synthetic ? "targets_synthetic.fa" : "targets.fa");
  int status = 0;
  test::run_command("cat " + test::data_path("globins45.fa") + " " + test::data_path("7LESS_DROME.fa") + " >" + p +
                        " && awk '/^>/ { n++; keep = n % 6 == 0 } keep' " + test::data_path("balifam2000.fa") + " >>" +
                        p + (synthetic ? " && cat " + test::data_path("db2M.fa") + " >>" + p : ""),
                    &status);
  EXPECT_EQ(status, 0);
  return p;
}

struct Tables {
  std::string tbl, dom;
  size_t hits = 0;
};

// The tables HmmsearchRun writes from these tiles' rows (Z: the number of targets).
Tables tables_of(const std::vector<HmmTileResult>& tiles, const std::vector<HmmModel>& models, const Database& db) {
  std::vector<std::vector<hmm::TargetHit>> hits(models.size());
  for (const HmmTileResult& r : tiles) {
    size_t d = 0, ali = 0;
    for (const HmmTargetRow& t : r.targets) {
      hmm::TargetHit h = hit_from_rows(t, r.domains.data() + d, r.alignments, &ali);
      d += size_t(t.ndomains);
      h.name = db.seqs.ids[h.index], h.length = int(db.seqs.length(h.index));
      hits.at(t.model).push_back(std::move(h));
    }
    EXPECT_EQ(d, r.domains.size());
    EXPECT_EQ(ali, r.alignments.size());
  }
  Tables out;
  std::ostringstream tbl, dom;
  for (size_t m = 0; m < models.size(); ++m) {
    std::sort(hits[m].begin(), hits[m].end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    out.hits += hits[m].size();
    const hmm::HitList list = hmm::finish_hits(std::move(hits[m]), double(db.seqs.size()));
    hmm::write_tblout(tbl, models[m], list, m == 0);
    hmm::write_domtblout(dom, models[m], list, m == 0);
  }
  out.tbl = tbl.str(), out.dom = dom.str();
  return out;
}

// The filters one target passed in the reference pipeline: its counts after the target less
// those before.
void add_passes(HmmPassCounts& p, const hmm::PipelineCounts& before, const hmm::PipelineCounts& after) {
  p.past_msv += uint32_t(after.past_msv - before.past_msv), p.past_bias += uint32_t(after.past_bias - before.past_bias);
  p.past_vit += uint32_t(after.past_vit - before.past_vit), p.past_fwd += uint32_t(after.past_fwd - before.past_fwd);
}

// The tile's result from hmmsearch's per-target pipeline, target by target (the reference), as
// a worker sends it (encoded, then decoded).
HmmTileResult per_target_tile(const HmmsearchJob& job, const Tile& tile) {
  HmmTileResult r;
  std::vector<HmmPassCounts> passes(job.scan ? tile.part_end - tile.part_begin : 0);
  for (uint32_t m : tile.queries) {
    hmm::HmmsearchPipeline pipe(job.models.at(m), job.pipeline);
    HmmCounts c;
    c.model = m;
    for (uint32_t pos = tile.part_begin; pos < tile.part_end; ++pos) {
      const uint32_t t = job.db.by_length[pos];
      const SeqView v = job.db.seqs.view(t);
      const hmm::PipelineCounts before = pipe.counts();
      std::optional<hmm::TargetHit> h = pipe.score(job.db.seqs.ids[t], "", v.data, int(v.length));
      if (job.scan) add_passes(passes[pos - tile.part_begin], before, pipe.counts());
      c.residues += v.length;
      if (h) add_hit_rows(m, t, *h, r);
    }
    const hmm::PipelineCounts& n = pipe.counts();
    c.targets = uint64_t(n.targets), c.past_msv = uint64_t(n.past_msv), c.past_bias = uint64_t(n.past_bias);
    c.past_vit = uint64_t(n.past_vit), c.past_fwd = uint64_t(n.past_fwd);
    r.counts.push_back(c);
  }
  for (size_t i = 0; i < passes.size(); ++i)  // hmmscan: the targets that passed a filter
    if (passes[i].past_msv) {
      passes[i].target = job.db.by_length.at(tile.part_begin + i);
      r.passes.push_back(passes[i]);
    }
  return decode_hmm_tile(encode_hmm_tile(r));
}

struct Case {
  const char* name;
  hmm::PipelineSettings settings;
  bool synthetic;  // with db2M's random targets (not under --max: all of them would reach Forward)
  bool scan = false;  // hmmscan's: each sequence's pass counts too
};

hmm::PipelineSettings with_filters(double F1, double F2, double F3) {
  hmm::PipelineSettings s;
  s.F1 = F1, s.F2 = F2, s.F3 = F3;
  return s;
}
hmm::PipelineSettings no_bias() {
  hmm::PipelineSettings s;
  s.bias_filter = false;
  return s;
}

class HmmsearchEngineWorker : public ::testing::TestWithParam<Case> {};

TEST_P(HmmsearchEngineWorker, SameCountsRowsAndTablesAsThePerTargetPipeline) {
  HmmsearchJob job;
  job.models = test_models();
  job.db = load_database(test_targets(GetParam().synthetic), ResidueRules::kHmmer);
  job.pipeline = GetParam().settings;
  job.scan = GetParam().scan;
  job.parser_lanes = true;
  ASSERT_EQ(job.models.size(), 5u);
  ASSERT_GT(job.db.seqs.size(), 370u);
  // Tiles as a run with three workers gets them: several models a tile, several partitions.
  const std::vector<Tile> tiles = plan_model_tiles(job.models, job.db, 3).tiles;
  ASSERT_GT(tiles.size(), 3u);

  std::unique_ptr<TileWorker> cpu = make_hmmsearch_cpu_worker(job);
  std::unique_ptr<MsvEngine> engine = make_msv_engine(BackendKind::Cpu, 0, 1, job.msv_setup());
  // The engine worker with the parser engine (the CUDA one's twin) for the survivors'
  // Forward/Backward, and with it for their Forward alone; the halves below run them on the
  // host pipeline.
  std::unique_ptr<TileWorker> split =
      make_hmmsearch_engine_worker(job, make_msv_engine(BackendKind::Cpu, 0, 1, job.msv_setup()),
                                   make_fb_engine(BackendKind::Cpu, 0, &job.lane_profiles()), EngineParsers::kBoth, 3);
  std::unique_ptr<TileWorker> forward_only =
      make_hmmsearch_engine_worker(job, make_msv_engine(BackendKind::Cpu, 0, 1, job.msv_setup()),
                                   make_fb_engine(BackendKind::Cpu, 0, &job.lane_profiles()), EngineParsers::kForward, 2);
  // Looking ahead, driven as the scheduler drives it: the next tile's filters run on the
  // worker's own thread while the current tile's survivors are scored.
  std::unique_ptr<TileWorker> ahead = make_hmmsearch_engine_worker(
      job, make_msv_engine(BackendKind::Cpu, 0, 1, job.msv_setup()), nullptr, EngineParsers::kBoth, 2, true);
  ASSERT_TRUE(ahead->looks_ahead());
  ThreadPool pool(2);
  std::vector<HmmTileResult> per_target, on_cpu, after_engine, after_forward, after_halves, looked_ahead;
  HmmCounts sum;
  uint64_t scan_msv = 0, scan_fwd = 0;  // hmmscan: the per-sequence counts, summed
  for (size_t ti = 0; ti < tiles.size(); ++ti) {
    const Tile& tile = tiles[ti];
    per_target.push_back(per_target_tile(job, tile));
    on_cpu.push_back(decode_hmm_tile(cpu->run(tile)));
    if (ti + 1 < tiles.size()) ahead->run_next(tiles[ti + 1]);
    looked_ahead.push_back(decode_hmm_tile(ahead->run(tile)));
    after_engine.push_back(decode_hmm_tile(split->run(tile)));
    after_forward.push_back(decode_hmm_tile(forward_only->run(tile)));
    // As an out-of-memory retry leaves it: the halves' counts and pairs joined (models out of
    // tile order, a model's counts in two entries).
    const ModelsHeld held(job, tile.queries);  // the profiles the engine and stage read, as a worker holds them
    MsvTileResult joined;
    if (const std::vector<Tile> halves = split_tile(tile); !halves.empty()) {
      for (auto t = halves.rbegin(); t != halves.rend(); ++t) {  // in reverse: order must not matter
        MsvTileResult part = engine->run(*t);
        joined.counts.insert(joined.counts.end(), part.counts.begin(), part.counts.end());
        joined.pairs.insert(joined.pairs.end(), part.pairs.begin(), part.pairs.end());
      }
    } else {
      joined = engine->run(tile);
    }
    after_halves.push_back(hmmsearch_after_filters(job, tile, joined, pool));

    const HmmTileResult& a = per_target.back();
    for (const HmmTileResult* b :
         {&on_cpu.back(), &after_engine.back(), &after_forward.back(), &after_halves.back(), &looked_ahead.back()}) {
      ASSERT_EQ(a.counts.size(), b->counts.size()) << "tile " << tile.id;
      for (size_t k = 0; k < a.counts.size(); ++k) {
        const HmmCounts &x = a.counts[k], &y = b->counts[k];
        EXPECT_TRUE(x.model == y.model && x.targets == y.targets && x.past_msv == y.past_msv &&
                    x.past_bias == y.past_bias && x.past_vit == y.past_vit && x.past_fwd == y.past_fwd &&
                    x.residues == y.residues)
            << "tile " << tile.id << " model " << x.model << ": targets " << x.targets << "/" << y.targets << " msv "
            << x.past_msv << "/" << y.past_msv << " bias " << x.past_bias << "/" << y.past_bias << " vit "
            << x.past_vit << "/" << y.past_vit << " fwd " << x.past_fwd << "/" << y.past_fwd;
      }
      ASSERT_EQ(a.targets.size(), b->targets.size()) << "tile " << tile.id;
      for (size_t i = 0; i < a.targets.size(); ++i)
        EXPECT_TRUE(a.targets[i].model == b->targets[i].model && a.targets[i].target == b->targets[i].target &&
                    a.targets[i].score == b->targets[i].score && a.targets[i].ndomains == b->targets[i].ndomains)
            << "tile " << tile.id << " row " << i;
      ASSERT_EQ(a.domains.size(), b->domains.size()) << "tile " << tile.id;
      EXPECT_EQ(a.alignments, b->alignments) << "tile " << tile.id;  // the report's domain alignments
      ASSERT_EQ(a.passes.size(), b->passes.size()) << "tile " << tile.id;
      for (size_t i = 0; i < a.passes.size(); ++i) {
        const HmmPassCounts &x = a.passes[i], &y = b->passes[i];
        EXPECT_TRUE(x.target == y.target && x.past_msv == y.past_msv && x.past_bias == y.past_bias &&
                    x.past_vit == y.past_vit && x.past_fwd == y.past_fwd)
            << "tile " << tile.id << " sequence " << x.target << "/" << y.target << ": msv " << x.past_msv << "/"
            << y.past_msv << " bias " << x.past_bias << "/" << y.past_bias << " vit " << x.past_vit << "/"
            << y.past_vit << " fwd " << x.past_fwd << "/" << y.past_fwd;
      }
    }
    for (const HmmPassCounts& p : a.passes) scan_msv += p.past_msv, scan_fwd += p.past_fwd;
    for (const HmmCounts& c : a.counts) sum.add(c);
  }
  const Tables expected = tables_of(per_target, job.models, job.db);
  const Tables cpu_tables = tables_of(on_cpu, job.models, job.db);
  const Tables engine_tables = tables_of(after_engine, job.models, job.db);
  const Tables halves_tables = tables_of(after_halves, job.models, job.db);
  const Tables forward_tables = tables_of(after_forward, job.models, job.db);
  const Tables ahead_tables = tables_of(looked_ahead, job.models, job.db);
  EXPECT_EQ(cpu_tables.tbl, expected.tbl);
  EXPECT_EQ(cpu_tables.dom, expected.dom);
  EXPECT_EQ(engine_tables.tbl, expected.tbl);
  EXPECT_EQ(engine_tables.dom, expected.dom);
  EXPECT_EQ(forward_tables.tbl, expected.tbl);
  EXPECT_EQ(forward_tables.dom, expected.dom);
  EXPECT_EQ(halves_tables.tbl, expected.tbl);
  EXPECT_EQ(halves_tables.dom, expected.dom);
  EXPECT_EQ(ahead_tables.tbl, expected.tbl);
  EXPECT_EQ(ahead_tables.dom, expected.dom);
  // Not a vacuous comparison: hits, and survivors of the filters that the Forward filter drops.
  EXPECT_GT(expected.hits, 40u);
  if (job.pipeline.F3 < 1) EXPECT_GT(sum.past_vit, sum.past_fwd + 10);
  EXPECT_EQ(sum.targets, job.models.size() * job.db.seqs.size());
  if (job.scan) {  // the per-sequence counts add up to the per-model ones
    EXPECT_EQ(scan_msv, sum.past_msv);
    EXPECT_EQ(scan_fwd, sum.past_fwd);
  } else {
    EXPECT_EQ(scan_msv, 0u) << "hmmsearch's tiles carry no per-sequence counts";
  }
  std::printf("  %s: %llu pairs, past MSV %llu, bias %llu, Vit %llu, Fwd %llu; %zu hits\n", GetParam().name,
              (unsigned long long)sum.targets, (unsigned long long)sum.past_msv, (unsigned long long)sum.past_bias,
              (unsigned long long)sum.past_vit, (unsigned long long)sum.past_fwd, expected.hits);
}

INSTANTIATE_TEST_SUITE_P(
    FilterOptions, HmmsearchEngineWorker,
    ::testing::Values(Case{"defaults", {}, true}, Case{"nobias", no_bias(), true},
                      Case{"F1_F2_F3", with_filters(0.1, 0.01, 1e-3), true},
                      Case{"max", hmm::PipelineSettings::max_sensitivity({}), false},
                      Case{"scan", {}, true, true}, Case{"scan_nobias", no_bias(), true, true}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// `copies` copies of the test models against globins45: a library larger than its file.
void load_copies(HmmsearchJob& job, int copies) {
  for (int copy = 0; copy < copies; ++copy)
    for (HmmModel& m : test_models()) job.models.push_back(std::move(m));
  job.db = load_database(test::data_path("globins45.fa"), ResidueRules::kHmmer);
}

// A Pfam-sized library: a model's profiles exist only while tiles hold it (and kept_nodes
// after), so the nodes built at once are bounded by the tiles in flight, not the model count;
// two workers sharing the job (threads) send what workers of a job that keeps every profile
// send. The job that keeps them all reaches every node: the bound is not the file's size.
TEST(HmmsearchJobProfiles, NodesBuiltAtOnceBoundedByTheTilesHeldNotTheModelCount) {
  HmmsearchJob bounded, kept;
  for (HmmsearchJob* j : {&bounded, &kept}) {
    load_copies(*j, 16);
  }
  bounded.kept_nodes = 0;
  kept.kept_nodes = ~size_t(0);
  const std::vector<Tile> tiles = plan_model_tiles(bounded.models, bounded.db, 3).tiles;
  const test::HeldNodes nodes = test::held_nodes(bounded.models, tiles);
  constexpr size_t kWorkers = 2;
  ASSERT_GT(nodes.all, 2 * kWorkers * nodes.largest_tile);
  auto run_all = [&](HmmsearchJob& job) {
    return test::run_tiles_on_threads<std::string>(tiles.size(), kWorkers, [&] {
      return [&, worker = std::shared_ptr<TileWorker>(make_hmmsearch_cpu_worker(job))](size_t t) {
        return worker->run(tiles[t]);
      };
    });
  };
  const std::vector<std::string> a = run_all(bounded), b = run_all(kept);
  for (size_t t = 0; t < tiles.size(); ++t) EXPECT_EQ(a[t], b[t]) << "tile " << t;
  EXPECT_LE(bounded.peak_built_nodes(), kWorkers * nodes.largest_tile);
  EXPECT_EQ(kept.peak_built_nodes(), nodes.all);
}

// A target without residues (a makedb file may hold one; FASTA refuses them) passes no filter
// (run_filters), so none reaches the survivors' stage, whose score_forwarded refuses one: the
// CPU worker counts it as a target, as the per-target pipeline does, and lists it nowhere else.
TEST(HmmsearchCpuWorker, TargetWithoutResiduesPassesNoFilter) {
  HmmsearchJob job;
  job.models = test_models();
  SequenceSet seqs = load_database(test::data_path("globins45.fa"), ResidueRules::kHmmer).seqs;
  seqs.add("empty", nullptr, 0);
  const uint32_t empty = uint32_t(seqs.size() - 1);
  job.db = make_database(std::move(seqs));
  job.scan = true;  // the per-sequence pass counts too
  const std::unique_ptr<TileWorker> cpu = make_hmmsearch_cpu_worker(job);
  uint64_t targets = 0, hits = 0;
  for (const Tile& tile : plan_model_tiles(job.models, job.db, 2).tiles) {
    const HmmTileResult r = decode_hmm_tile(cpu->run(tile)), ref = per_target_tile(job, tile);
    ASSERT_EQ(r.counts.size(), ref.counts.size());
    for (size_t k = 0; k < r.counts.size(); ++k) {
      const HmmCounts &x = r.counts[k], &y = ref.counts[k];
      EXPECT_TRUE(x.model == y.model && x.targets == y.targets && x.past_msv == y.past_msv &&
                  x.past_vit == y.past_vit && x.past_fwd == y.past_fwd && x.residues == y.residues);
      targets += x.targets;
    }
    for (const HmmTargetRow& t : r.targets) EXPECT_NE(t.target, empty);
    for (const HmmPassCounts& p : r.passes) EXPECT_NE(p.target, empty);
    hits += r.targets.size();
  }
  EXPECT_EQ(targets, job.models.size() * job.db.seqs.size());
  EXPECT_GT(hits, 0u);
}

// The same for the parser engines' lane profiles (HPCALIGN_HMM_PARSERS=device's path through
// the engine worker, with the CUDA engine's CPU twin): built with a model's other profiles while
// a tile holds it, none left once every tile is through (nothing kept), the same tile results
// as a job that keeps every profile; a job not told to build them refuses them.
TEST(HmmsearchJobProfiles, LaneProfilesBuiltPerTileHeld) {
  HmmsearchJob bounded, kept;
  for (HmmsearchJob* j : {&bounded, &kept}) {
    load_copies(*j, 4);
    j->parser_lanes = true;
  }
  bounded.kept_nodes = 0;
  kept.kept_nodes = ~size_t(0);
  const std::vector<Tile> tiles = plan_model_tiles(bounded.models, bounded.db, 3).tiles;
  const test::HeldNodes nodes = test::held_nodes(bounded.models, tiles);
  constexpr size_t kWorkers = 2;
  ASSERT_GT(nodes.all, kWorkers * nodes.largest_tile);
  auto run_all = [&](HmmsearchJob& job) {
    return test::run_tiles_on_threads<std::string>(tiles.size(), kWorkers, [&] {
      const std::shared_ptr<TileWorker> worker(make_hmmsearch_engine_worker(
          job, make_msv_engine(BackendKind::Cpu, 0, 1, job.msv_setup()),
          make_fb_engine(BackendKind::Cpu, 0, &job.lane_profiles()), EngineParsers::kBoth, 1, false));
      return [worker, &tiles](size_t t) { return worker->run(tiles[t]); };
    });
  };
  const std::vector<std::string> a = run_all(bounded), b = run_all(kept);
  for (size_t t = 0; t < tiles.size(); ++t) EXPECT_EQ(a[t], b[t]) << "tile " << t;
  EXPECT_LE(bounded.peak_built_nodes(), kWorkers * nodes.largest_tile);
  EXPECT_EQ(kept.peak_built_nodes(), nodes.all);
  const auto built = [](HmmsearchJob& job) {
    size_t n = 0;
    for (const hmm::FbLaneProfile& l : job.lane_profiles()) n += l.M > 0 ? 1 : 0;
    return n;
  };
  EXPECT_EQ(built(bounded), 0u);
  EXPECT_EQ(built(kept), kept.models.size());
  HmmsearchJob without;
  without.models = test_models();
  EXPECT_THROW(without.lane_profiles(), Error);
}

}  // namespace
}  // namespace hpc
