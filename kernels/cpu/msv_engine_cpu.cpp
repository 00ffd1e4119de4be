#include "kernels/cpu/msv_engine_cpu.hpp"

namespace hpc {

void msv_count_pair(const MsvSetup& s, MsvTileResult& r, MsvModelCounts& c, uint32_t target,
                    const hmm::PairResult& p) {
  ++c.targets;
  c.past_msv += p.msv_pass;
  c.past_bias += p.bias_pass;
  c.past_vit += p.passed && (s.settings.stages & hmm::kStageVit);
  if (p.passed || s.all_pairs || (s.past_msv_pairs && p.msv_pass)) r.pairs.push_back({c.model, target, p});
}

void msv_model_cpu(const MsvSetup& s, const Tile& tile, uint32_t model, MsvTileResult& r, hmm::FilterWorkspace& ws) {
  MsvModelCounts c;
  c.model = model;
  const hmm::ModelFilters& f = s.filters->at(model);
  for (uint32_t pos = tile.part_begin; pos < tile.part_end; ++pos) {
    const uint32_t t = s.db->by_length[pos];
    const SeqView v = s.db->seqs.view(t);
    msv_count_pair(s, r, c, t, hmm::run_filters(f, v.data, int(v.length), s.settings, ws));
  }
  r.counts.push_back(c);
}

DeviceCapacity CpuMsvEngine::capacity() const {
  DeviceCapacity c;
  c.name = "cpu (scalar-vectorised HMMER filters)";
  return c;
}

MsvTileResult CpuMsvEngine::run(const Tile& tile) {
  MsvTileResult r;
  for (uint32_t model : tile.queries) msv_model_cpu(setup_, tile, model, r, ws_);
  return r;
}

}  // namespace hpc
