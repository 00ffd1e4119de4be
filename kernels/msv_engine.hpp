#pragma once
// What runs the HMMER filters (MSV, bias, Viterbi) of an msv tile: a batch of models against
// a run of the length-sorted database (tile.queries: models; [part_begin, part_end): positions
// in db->by_length). The CPU engine (kernels/cpu/msv_engine_cpu.cpp) is the twin the CUDA one
// (kernels/cuda/msv_engine_cuda.cpp) matches pair for pair: same counts, same scores.
#include <cstdint>
#include <memory>
#include <vector>

#include "io/database.hpp"
#include "kernels/backend.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/core/tile.hpp"

namespace hpc {

struct MsvSetup {
  const std::vector<hmm::ModelFilters>* filters = nullptr;  // one per model
  const Database* db = nullptr;
  hmm::FilterSettings settings;
  bool all_pairs = false;  // report every pair, not only those passing every stage
  // Also report the pairs past the MSV filter (~2%): hmmscan's statistics count each
  // sequence's passes, summed over the models.
  bool past_msv_pairs = false;
};

// hmmsearch's pipeline counters of one model over a set of targets.
struct MsvModelCounts {
  uint32_t model = 0;
  uint64_t targets = 0, past_msv = 0, past_bias = 0, past_vit = 0;
  void add(const MsvModelCounts& o) {
    targets += o.targets, past_msv += o.past_msv, past_bias += o.past_bias, past_vit += o.past_vit;
  }
};

// A reported (model, target) pair; target: index in db->seqs.
struct MsvPair {
  uint32_t model, target;
  hmm::PairResult result;
};

struct MsvTileResult {
  std::vector<MsvModelCounts> counts;  // one per model of the tile
  std::vector<MsvPair> pairs;
};

class MsvEngine {
 public:
  virtual ~MsvEngine() = default;
  virtual DeviceCapacity capacity() const = 0;
  virtual MsvTileResult run(const Tile& tile) = 0;
};

// CPU (device ignored) or CUDA engine `device`, with `host_threads` for the host stages.
std::unique_ptr<MsvEngine> make_msv_engine(BackendKind kind, int device, int host_threads, const MsvSetup& setup);

// engine.run(tile), after the test-only injected out-of-memory check: a tile that does not fit
// the device throws hpc::OutOfMemory and the run driver splits it (src/workloads/tile_splits.hpp).
MsvTileResult run_msv_tile(MsvEngine& engine, const Tile& tile);

// The CPU twin's pieces, which the device engine uses for what it leaves to the host.
// Counts one pair into `c` and, when reported, into r.pairs.
void msv_count_pair(const MsvSetup& s, MsvTileResult& r, MsvModelCounts& c, uint32_t target,
                    const hmm::PairResult& p);
// One model of a tile, entirely on this thread.
void msv_model_cpu(const MsvSetup& s, const Tile& tile, uint32_t model, MsvTileResult& r, hmm::FilterWorkspace& ws);

}  // namespace hpc
