#pragma once
// The CPU twin of the pss engine (kernels/pss_engine.hpp): the reference every device path
// matches, one SIMD thread per engine.
#include <memory>

#include "kernels/pss_engine.hpp"

namespace hpc {

// Scores pairs on the CPU (SIMD). With a profile (PSSM), `queries` must hold exactly the
// profile's query. One engine per thread.
class PssCpuEngine : public PssEngine {
 public:
  PssCpuEngine(const PssParams& params, const SequenceSet& queries, const SequenceSet& subjects,
               const QueryProfile* profile = nullptr);
  ~PssCpuEngine() override;
  DeviceCapacity capacity() const override;
  // Subjects one after the other (run() below for each).
  std::vector<PssPairResult> run(const std::vector<uint32_t>& queries, uint32_t subject_begin,
                                 uint32_t subject_end) override;
  // Every query of `queries` against subject `subject` (index in `subjects`): the subject's N
  // permutations are generated once and shared by all the queries.
  std::vector<PssPairResult> run(const std::vector<uint32_t>& queries, uint32_t subject);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpc
