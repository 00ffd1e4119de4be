#pragma once
// The device twin of PssCpuEngine (kernels/cpu/pss_cpu.hpp): same permutations, same exact
// scores, same statistics. One engine per GPU: a tile's T subjects get their N+1 copies on
// the device once, its (query, subject) pairs are scored largest first in launches of a few
// waves, and a pool of host threads fits one launch's Gumbels while the GPU runs the next.
// Built only with CUDA (kernels/pss_engine.hpp's factory makes it).
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/pss_engine.hpp"

namespace hpc {

class PssGpuEngine : public PssEngine {
 public:
  // host_threads: threads fitting Gumbels (>= 1).
  PssGpuEngine(int device, const PssParams& params, const SequenceSet& queries, const SequenceSet& subjects,
               const QueryProfile* profile, int host_threads);
  ~PssGpuEngine() override;
  DeviceCapacity capacity() const override;
  // Every query of `queries` against subjects [subject_begin, subject_end), ordered by query
  // then subject.
  std::vector<PssPairResult> run(const std::vector<uint32_t>& queries, uint32_t subject_begin,
                                 uint32_t subject_end) override;
  double kernel_seconds() const override;  // GPU score kernels so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpc
