#include "src/workloads/msv_job.hpp"

namespace hpc {

void MsvJob::prepare() {
  filters_.assign(models.size(), hmm::ModelFilters());
  cache_.emplace(
      models, kept_nodes, [&](uint32_t m) { filters_[m] = hmm::ModelFilters(models[m]); },
      [&](uint32_t m) { filters_[m] = hmm::ModelFilters(); });
  setup.filters = &filters_;
  setup.db = &db;
}

}  // namespace hpc
