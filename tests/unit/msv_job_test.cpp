// msv's job: a model's filters exist only while tiles hold it (src/workloads/model_profile_cache.hpp).
#include "src/workloads/msv_job.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "src/workloads/hmm_inputs.hpp"
#include "src/workloads/msv_output.hpp"
#include "held_models_support.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

// A Pfam-sized library: the nodes whose filters are built at once are bounded by the tiles in
// flight (two workers, each holding its tile as msv's workers do), not the model count; every
// pair's scores and every counter equal those of a job that keeps every model's filters,
// which reaches every node (the bound is not the file's size).
TEST(MsvJobFilters, NodesBuiltAtOnceBoundedByTheTilesHeldNotTheModelCount) {
  MsvJob bounded, kept;
  for (MsvJob* j : {&bounded, &kept}) {
    for (int copy = 0; copy < 16; ++copy)
      for (const char* f : {"hmm/pfam_style.hmm", "hmm/fn3.hmm", "hmm/Pkinase.hmm", "hmm/globins4.hmm"})
        for (HmmModel& m : read_hmm_file(test::data_path(f))) j->models.push_back(std::move(m));
    j->db = load_database(test::data_path("globins45.fa"), ResidueRules::kHmmer);
    j->setup.all_pairs = true;  // every pair's filter scores compared, not only the survivors'
  }
  bounded.kept_nodes = 0;
  kept.kept_nodes = ~size_t(0);
  bounded.prepare();
  kept.prepare();
  const std::vector<Tile> tiles = plan_model_tiles(bounded.models, bounded.db, 3).tiles;
  const test::HeldNodes nodes = test::held_nodes(bounded.models, tiles);
  constexpr size_t kWorkers = 2;
  ASSERT_GT(nodes.all, 2 * kWorkers * nodes.largest_tile);
  auto run_all = [&](MsvJob& job) {
    return test::run_tiles_on_threads<MsvTileResult>(tiles.size(), kWorkers, [&] {
      return [&, engine = std::shared_ptr<MsvEngine>(make_msv_engine(BackendKind::Cpu, 0, 1, job.setup))](size_t t) {
        const ModelsHeld held(job, tiles[t].queries);
        return run_msv_tile(*engine, tiles[t]);
      };
    });
  };
  const std::vector<MsvTileResult> a = run_all(bounded), b = run_all(kept);
  for (size_t t = 0; t < tiles.size(); ++t) {
    ASSERT_EQ(a[t].counts.size(), b[t].counts.size()) << "tile " << t;
    for (size_t k = 0; k < a[t].counts.size(); ++k) {
      const MsvModelCounts &x = a[t].counts[k], &y = b[t].counts[k];
      EXPECT_EQ(x.model, y.model);
      EXPECT_EQ(x.targets, y.targets);
      EXPECT_EQ(x.past_msv, y.past_msv);
      EXPECT_EQ(x.past_bias, y.past_bias);
      EXPECT_EQ(x.past_vit, y.past_vit);
    }
    EXPECT_FALSE(a[t].pairs.empty());
    EXPECT_EQ(msv_row_fields().pack(a[t].pairs), msv_row_fields().pack(b[t].pairs)) << "tile " << t;
  }
  EXPECT_LE(bounded.peak_built_nodes(), kWorkers * nodes.largest_tile);
  EXPECT_EQ(kept.peak_built_nodes(), nodes.all);
}

}  // namespace
}  // namespace hpc
