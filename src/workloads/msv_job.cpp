#include "src/workloads/msv_job.hpp"

namespace hpc {

void MsvJob::prepare() {
  filters_.assign(models.size(), hmm::ModelFilters());
  std::vector<size_t> nodes;
  for (const HmmModel& m : models) nodes.push_back(size_t(m.length));
  cache_.emplace(
      std::move(nodes), kept_nodes, [&](uint32_t m) { filters_[m] = hmm::ModelFilters(models[m]); },
      [&](uint32_t m) { filters_[m] = hmm::ModelFilters(); });
  setup.filters = &filters_;
  setup.db = &db;
}

}  // namespace hpc
