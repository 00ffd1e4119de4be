#include "src/workloads/hmm_inputs.hpp"

#include "io/result_lifecycle.hpp"


#include "io/checkpoint.hpp"
#include "src/plan/msv_plan.hpp"

namespace hpc {

TiledPlan plan_model_tiles(const std::vector<HmmModel>& models, const Database& db, size_t workers,
                           size_t tiles_per_worker, size_t min_partitions) {
  std::vector<int> lengths;
  for (const HmmModel& m : models) lengths.push_back(m.length);
  MsvPlan plan = plan_msv(lengths, db, workers, tiles_per_worker, min_partitions);
  return {std::move(plan.tiles), {{"tile_db_partitions", plan.partitions}, {"tile_model_batches", plan.model_batches}}};
}

std::string models_fingerprint(const std::vector<HmmModel>& models) {
  checkpoint::Crc32 crc;
  for (const HmmModel& m : models) {
    const float stats[] = {m.msv_mu, m.msv_lambda, m.vit_mu, m.vit_lambda, m.fwd_tau, m.fwd_lambda};
    crc.add(m.name).add(&m.length, sizeof m.length).add(stats, sizeof stats).add(m.compo.data(), sizeof m.compo);
    // The numbers as parsed (the insert emissions not held): the same value as when they were.
    crc.append(m.numbers_crc, (sizeof m.mat[0] + sizeof(float) * kHmmAlphabet + sizeof m.t[0]) * (size_t(m.length) + 1));
  }
  return std::to_string(models.size()) + " models, crc32 " + crc.hex();
}

void write_models_and_targets(h5::File& f, const std::vector<HmmModel>& models, const SequenceSet& targets) {
  std::vector<std::string> names;
  std::vector<uint32_t> lengths;
  for (const auto& m : models) names.push_back(m.name), lengths.push_back(uint32_t(m.length));
  h5::write_column(f, "models/name", names);
  h5::write_column(f, "models/length", lengths);
  result_lifecycle::write_sequences(f, "targets", targets);
}

}  // namespace hpc
