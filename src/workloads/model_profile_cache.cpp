#include "src/workloads/model_profile_cache.hpp"

#include <algorithm>

#include "io/hmm_file.hpp"

namespace hpc {
namespace {
enum : char { kNone = 0, kBuilding, kBuilt };

std::vector<size_t> model_nodes(const std::vector<HmmModel>& models) {
  std::vector<size_t> nodes;
  nodes.reserve(models.size());
  for (const HmmModel& m : models) nodes.push_back(size_t(m.length));
  return nodes;
}
}  // namespace

ModelProfileCache::ModelProfileCache(std::vector<size_t> nodes, size_t kept_nodes, Action build, Action drop)
    : nodes_(std::move(nodes)), kept_nodes_(kept_nodes), build_(std::move(build)), drop_(std::move(drop)),
      users_(nodes_.size(), 0), state_(nodes_.size(), kNone), kept_at_(nodes_.size(), kept_.end()) {}

ModelProfileCache::ModelProfileCache(const std::vector<HmmModel>& models, size_t kept_nodes, Action build, Action drop)
    : ModelProfileCache(model_nodes(models), kept_nodes, std::move(build), std::move(drop)) {}

void ModelProfileCache::hold(const std::vector<uint32_t>& models) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (uint32_t m : models)
    if (users_.at(m)++ == 0 && kept_at_[m] != kept_.end()) {
      kept_nodes_now_ -= nodes_[m];
      kept_.erase(kept_at_[m]);
      kept_at_[m] = kept_.end();
    }
  for (;;) {
    std::vector<uint32_t> mine;  // to build here; other threads build the others
    bool all_built = true;
    for (uint32_t m : models) {
      all_built = all_built && state_[m] == kBuilt;
      if (state_[m] == kNone) state_[m] = kBuilding, mine.push_back(m), built_nodes_ += nodes_[m];
    }
    peak_built_nodes_ = std::max(peak_built_nodes_, built_nodes_);
    if (all_built) return;
    if (mine.empty()) {
      built_.wait(lock);
      continue;
    }
    lock.unlock();
    try {
      for (uint32_t m : mine) build_(m);
    } catch (...) {
      lock.lock();
      for (uint32_t m : mine) state_[m] = kNone, built_nodes_ -= nodes_[m];
      release_locked(models);
      built_.notify_all();
      throw;
    }
    lock.lock();
    for (uint32_t m : mine) state_[m] = kBuilt;
    built_.notify_all();
  }
}

void ModelProfileCache::release(const std::vector<uint32_t>& models) {
  const std::lock_guard<std::mutex> lock(mutex_);
  release_locked(models);
}

void ModelProfileCache::release_locked(const std::vector<uint32_t>& models) {
  for (uint32_t m : models)
    if (--users_.at(m) == 0 && state_[m] == kBuilt) {
      kept_at_[m] = kept_.insert(kept_.end(), m);
      kept_nodes_now_ += nodes_[m];
    }
  drop_kept_beyond(kept_nodes_);
}

void ModelProfileCache::drop_kept_beyond(size_t nodes) {
  while (kept_nodes_now_ > nodes && !kept_.empty()) {
    const uint32_t m = kept_.front();
    kept_.pop_front();
    kept_at_[m] = kept_.end();
    kept_nodes_now_ -= nodes_[m];
    built_nodes_ -= nodes_[m];
    state_[m] = kNone;
    drop_(m);
  }
}

size_t ModelProfileCache::peak_built_nodes() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return peak_built_nodes_;
}

}  // namespace hpc
