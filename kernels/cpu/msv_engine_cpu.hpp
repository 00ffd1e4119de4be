#pragma once
// The CPU twin of the msv engine (kernels/msv_engine.hpp): HMMER's filters pair by pair
// (src/hmm/filter_pipeline.hpp), one single-threaded engine per worker.
#include "kernels/msv_engine.hpp"

namespace hpc {

class CpuMsvEngine : public MsvEngine {
 public:
  explicit CpuMsvEngine(const MsvSetup& setup) : setup_(setup) {}
  DeviceCapacity capacity() const override;
  MsvTileResult run(const Tile& tile) override;

 private:
  MsvSetup setup_;
  hmm::FilterWorkspace ws_;
};

}  // namespace hpc
