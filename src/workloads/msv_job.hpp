#pragma once
// The inputs every worker of `hpcalign msv` reads (filled before the workers start). A
// model's filters exist only while a tile holds the model (hold/release, ModelsHeld) and a
// few after (src/workloads/model_profile_cache.hpp), not every model's for the whole run.
#include <optional>
#include <vector>

#include "io/database.hpp"
#include "io/hmm_file.hpp"
#include "kernels/msv_engine.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/workloads/model_profile_cache.hpp"

namespace hpc {

struct MsvJob {
  std::vector<HmmModel> models;
  Database db;
  MsvSetup setup;  // the engines' view of the above (its filters: prepare's)
  size_t kept_nodes = kKeptProfileNodes;  // ModelProfileCache's
  // Once models and db are read: an entry per model in setup.filters (built while held).
  void prepare();
  void hold(const std::vector<uint32_t>& tile_models) { cache_->hold(tile_models); }
  void release(const std::vector<uint32_t>& tile_models) { cache_->release(tile_models); }
  // The most model nodes whose filters existed at once (tests).
  size_t peak_built_nodes() { return cache_->peak_built_nodes(); }

 private:
  std::vector<hmm::ModelFilters> filters_;
  std::optional<ModelProfileCache> cache_;  // of filters_
};

}  // namespace hpc
