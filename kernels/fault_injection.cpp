#include "kernels/fault_injection.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "src/core/error.hpp"
#include "src/core/tuning.hpp"

namespace hpc {
namespace {

// -1: not injected.
long long env_number(Tunable t) { return tuning_number(t).value_or(-1); }

class FaultInjectingBackend : public SearchBackend {
 public:
  explicit FaultInjectingBackend(std::unique_ptr<SearchBackend> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  DeviceCapacity capacity() const override { return inner_->capacity(); }
  void prepare(const SearchSetup& setup) override {
    setup_ = setup;
    inner_->prepare(setup);
  }

  std::vector<std::vector<ScoredTarget>> search_tile(const Tile& tile) override {
    inject(tile);
    return inner_->search_tile(tile);
  }
  SampledTile search_tile_sampled(const Tile& tile, const std::vector<uint32_t>& sample) override {
    inject(tile);
    return inner_->search_tile_sampled(tile, sample);
  }
  // Forwarded, so the fault tests run the looking-ahead path: a tile queued ahead then fails or splits here.
  bool scores_ahead() const override { return inner_->scores_ahead(); }
  void search_tile_ahead(const Tile& tile) override { inner_->search_tile_ahead(tile); }

  std::vector<Alignment> align(const std::vector<AlignRequest>& pairs) override { return inner_->align(pairs); }
  std::vector<Alignment> align_flat(const std::vector<AlignRequest>& pairs, CigarBuffer& cigars) override {
    return inner_->align_flat(pairs, cigars);
  }

 private:
  void inject(const Tile& tile) const {
    if (exit_tile_ >= 0 && tile.id == uint64_t(exit_tile_)) _exit(42);
    if (fail_tile_ >= 0 && tile.id == uint64_t(fail_tile_))
      throw Error("injected backend fault (HPCALIGN_FAULT_FAIL_TILE=" + std::to_string(fail_tile_) + ")");
    injected_out_of_memory(cells_of(tile), "tile " + std::to_string(tile.id));
  }
  // Recomputed from the sequences (not Tile::cells, an estimate that halves only roughly).
  unsigned long long cells_of(const Tile& tile) const {
    unsigned long long q = 0, t = 0;
    for (uint32_t i : tile.queries) q += setup_.queries->length(i);
    for (uint32_t p = tile.part_begin; p < tile.part_end; ++p) t += setup_.db->seqs.length(setup_.db->by_length[p]);
    return q * t;
  }

  std::unique_ptr<SearchBackend> inner_;
  SearchSetup setup_;
  long long fail_tile_ = env_number(Tunable::kFaultFailTile);
  long long exit_tile_ = env_number(Tunable::kFaultExitTile);
};

}  // namespace

std::unique_ptr<SearchBackend> with_fault_injection(std::unique_ptr<SearchBackend> backend) {
  for (Tunable t : {Tunable::kFaultOomCells, Tunable::kFaultFailTile, Tunable::kFaultExitTile})
    if (env_number(t) >= 0) return std::make_unique<FaultInjectingBackend>(std::move(backend));
  return backend;
}

void injected_out_of_memory(uint64_t cells, const std::string& what) {
  static const long long oom_cells = env_number(Tunable::kFaultOomCells);
  if (oom_cells >= 0 && cells > static_cast<unsigned long long>(oom_cells))
    throw OutOfMemory("injected out-of-memory: " + what + " needs " + std::to_string(cells) +
                      " cells > HPCALIGN_FAULT_OOM_CELLS=" + std::to_string(oom_cells));
}

void injected_tile_delay() {
  static const long long slow_ms = env_number(Tunable::kFaultSlowMs);
  if (slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms));
}

}  // namespace hpc
