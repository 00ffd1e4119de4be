#pragma once
// The backend interface: what executes one tile. CPU and CUDA implement it with
// identical scores; the scheduler never knows which one it drives.
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "io/database.hpp"
#include "src/core/alignment.hpp"
#include "src/core/cigar_buffer.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"
#include "src/core/tile.hpp"
#include "src/plan/device_capacity.hpp"

namespace hpc {

struct SearchSetup {
  const SequenceSet* queries = nullptr;
  const Database* db = nullptr;
  ScoreMatrix matrix;
  GapCosts gaps;
  uint32_t max_hits = 10;  // per query per tile: the top-k kept
};

struct ScoredTarget {
  int32_t score;
  uint32_t target;  // index in db->seqs (file order)
};
// Top-k order: score descending, then target index ascending (deterministic across tilings).
inline bool scored_target_order(const ScoredTarget& a, const ScoredTarget& b) {
  return a.score != b.score ? a.score > b.score : a.target < b.target;
}

struct AlignRequest {
  uint32_t query;
  uint32_t target;
  // The pair's exact local score when the caller knows it (search_tile's), else 0: a backend
  // may stop its fill at the end row (the alignment is the same either way).
  int32_t score = 0;
};

class SearchBackend {
 public:
  virtual ~SearchBackend() = default;
  virtual std::string name() const = 0;
  virtual DeviceCapacity capacity() const = 0;
  // Called once per run before any tile: upload the database, build profiles.
  virtual void prepare(const SearchSetup& setup) = 0;
  // For each query of the tile (in tile.queries order), its top max_hits targets of
  // the tile's partition with score > 0, in scored_target_order. Exact scores.
  virtual std::vector<std::vector<ScoredTarget>> search_tile(const Tile& tile) = 0;
  // search_tile, and beside each query's top hits its scores at `sample` (indices into
  // db->by_length, every one inside the tile's partition): per query the pairs (score, k) of
  // subject by_length[sample[k]] with score > 0, in scored_target_order over k. regress's
  // calibration reads its sample from the tile's own scores this way instead of a second search.
  struct SampledTile {
    std::vector<std::vector<ScoredTarget>> top, sample;
  };
  virtual SampledTile search_tile_sampled(const Tile& tile, const std::vector<uint32_t>& sample) = 0;
  // Whether search_tile_ahead() queues work: a backend whose device scores the next tile while
  // its caller aligns, annotates and stages the current one (TileWorker::looks_ahead).
  virtual bool scores_ahead() const { return false; }
  // Queues `tile`'s scores; the next search_tile() or search_tile_sampled() of that tile only
  // waits for them (of another tile it scores that one as always). Call it once the current
  // tile's search_tile(_sampled) has returned: it overwrites that tile's scores on the device.
  virtual void search_tile_ahead(const Tile& /*tile*/) {}
  // Local alignments (coordinates + CIGAR) of the given pairs, following the tie rule of
  // src/align/reference.hpp.
  virtual std::vector<Alignment> align(const std::vector<AlignRequest>& pairs) = 0;
  // align() with the CIGARs in one buffer: alns[k].cigar empty, `cigars` (resized to the pairs)
  // holding pair k's at cigars.at(k), so that a self-search's millions of hits need no string
  // each. This default moves align()'s strings into it.
  virtual std::vector<Alignment> align_flat(const std::vector<AlignRequest>& pairs, CigarBuffer& cigars);
};

enum class BackendKind { Auto, Cpu, Cuda };
BackendKind parse_backend_kind(const std::string& s);  // throws hpc::Error
// How many independent backend instances this process can drive (GPUs visible, or 1 for CPU).
int backend_device_count(BackendKind kind);
// Instance `device` (0-based). CPU: `threads` worker threads (0 = all cores).
// Throws hpc::Error with a clear message when the kind is unavailable (e.g. cuda without a GPU).
// `faults`: wrapped by kernels/fault_injection.hpp (the search's tiles); false for work the
// fault tests must not hit (the regress calibration inside a tile).
std::unique_ptr<SearchBackend> make_search_backend(BackendKind kind, int device, int threads, bool faults = true);
// True when this binary was built with CUDA and a GPU is visible.
bool cuda_available();
// True when this binary was built with the CUDA backend (--version), GPU or not.
bool cuda_compiled();

// Starts the CUDA driver and creates the context of every visible GPU on a background thread,
// so that their cost (~0.1-0.3 s per process) overlaps the loading of the inputs instead of
// delaying the first worker; joined when this object goes out of scope. Only for a local run
// that may use the GPUs (backend auto or cuda, not distributed: MPI ranks take one device each).
class DeviceWarmup {
 public:
  DeviceWarmup(BackendKind kind, bool distributed);
  ~DeviceWarmup();
  DeviceWarmup(const DeviceWarmup&) = delete;
  DeviceWarmup& operator=(const DeviceWarmup&) = delete;

 private:
  std::thread thread_;
};

}  // namespace hpc
