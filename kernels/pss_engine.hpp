#pragma once
// What scores a pss tile: every query of a batch against a run of subjects, each subject
// permuted N times (src/pss/pss_engine.hpp: the statistics). The CPU engine
// (kernels/cpu/pss_cpu.hpp) is the twin the CUDA one (kernels/cuda/pss_gpu_engine.hpp)
// matches bit for bit: the same permutations, exact scores, the same fits.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/backend.hpp"
#include "src/pss/pss_engine.hpp"

namespace hpc {

class PssEngine {
 public:
  virtual ~PssEngine() = default;
  virtual DeviceCapacity capacity() const = 0;
  // Every query of `queries` against subjects [subject_begin, subject_end), ordered by query
  // then subject.
  virtual std::vector<PssPairResult> run(const std::vector<uint32_t>& queries, uint32_t subject_begin,
                                         uint32_t subject_end) = 0;
  // Seconds of device score kernels so far (0 on the CPU).
  virtual double kernel_seconds() const { return 0; }
};

// The CPU engine (one thread; device and host_threads ignored) or CUDA engine `device` (its
// Gumbel fits on host_threads). profile: the PSSM of the single query, or null.
std::unique_ptr<PssEngine> make_pss_engine(BackendKind kind, int device, int host_threads, const PssParams& params,
                                           const SequenceSet& queries, const SequenceSet& subjects,
                                           const QueryProfile* profile);

}  // namespace hpc
