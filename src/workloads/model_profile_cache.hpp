#pragma once
// A model's profiles built only while a tile holds it, and a few after (the least recently
// released dropped first): a Pfam-sized model file (5 M nodes, ~0.5 KB of profiles a node for
// hmmsearch) would otherwise keep GBs in every process (every MPI rank). The jobs of msv and
// hmmsearch/hmmscan say what a model's profiles are (build/drop); this keeps the count.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <vector>

namespace hpc {

struct HmmModel;

// The nodes of released models a job keeps by default: a file of up to this many nodes keeps
// all its profiles (as when they were all built up front).
constexpr size_t kKeptProfileNodes = size_t(1) << 17;

class ModelProfileCache {
 public:
  // build(m): makes model m's profiles, on the holding thread while other threads may build
  // other models' (so it writes m's entries alone); drop(m) frees them.
  using Action = std::function<void(uint32_t model)>;
  // nodes[m]: model m's size (its length), what kept_nodes and peak_built_nodes count. Nodes
  // of released models are kept up to kept_nodes, so that the tiles of a batch (one per
  // database partition) build them once.
  ModelProfileCache(std::vector<size_t> nodes, size_t kept_nodes, Action build, Action drop);
  // The same with each model's length as its node count (what msv's and hmmsearch's jobs give).
  ModelProfileCache(const std::vector<HmmModel>& models, size_t kept_nodes, Action build, Action drop);
  // Builds the models' profiles that are not built (on this thread) and keeps them until as
  // many release calls; safe from several threads.
  void hold(const std::vector<uint32_t>& models);
  void release(const std::vector<uint32_t>& models);
  // The most model nodes whose profiles existed at once (tests).
  size_t peak_built_nodes();

 private:
  void release_locked(const std::vector<uint32_t>& models);  // mutex_ held
  void drop_kept_beyond(size_t nodes);                        // mutex_ held
  const std::vector<size_t> nodes_;
  const size_t kept_nodes_;
  const Action build_, drop_;
  std::mutex mutex_;
  std::condition_variable built_;
  std::vector<int> users_;        // tiles holding the model
  std::vector<char> state_;       // kNone, kBuilding, kBuilt
  std::list<uint32_t> kept_;      // built, held by none: least recently released first
  std::vector<std::list<uint32_t>::iterator> kept_at_;
  size_t kept_nodes_now_ = 0, built_nodes_ = 0, peak_built_nodes_ = 0;
};

// Holds a tile's models (Holder::hold, a job's or a cache's) while it lives.
template <class Holder>
class ModelsHeld {
 public:
  ModelsHeld(Holder& holder, std::vector<uint32_t> models) : holder_(holder), models_(std::move(models)) {
    holder_.hold(models_);
  }
  ~ModelsHeld() { holder_.release(models_); }
  ModelsHeld(const ModelsHeld&) = delete;
  ModelsHeld& operator=(const ModelsHeld&) = delete;

 private:
  Holder& holder_;
  std::vector<uint32_t> models_;
};

}  // namespace hpc
