#pragma once
// The device twin of PssCpuEngine (src/pss/pss_engine.hpp): same permutations, same exact
// scores, same statistics. One engine per GPU: a tile's T subjects get their N+1 copies on
// the device once, its (query, subject) pairs are scored largest first in launches of a few
// waves, and a pool of host threads fits one launch's Gumbels while the GPU runs the next.
// Without CUDA in the build the constructor throws.
#include <cstdint>
#include <memory>
#include <vector>

#include "src/pss/pss_engine.hpp"

namespace hpc {

class PssGpuEngine {
 public:
  // host_threads: threads fitting Gumbels (>= 1).
  PssGpuEngine(int device, const PssParams& params, const SequenceSet& queries, const SequenceSet& subjects,
               const QueryProfile* profile, int host_threads);
  ~PssGpuEngine();
  DeviceCapacity capacity() const;
  // Every query of `queries` against subjects [subject_begin, subject_end), ordered by query
  // then subject.
  std::vector<PssPairResult> run(const std::vector<uint32_t>& queries, uint32_t subject_begin, uint32_t subject_end);
  double kernel_seconds() const;  // GPU score kernels so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpc
