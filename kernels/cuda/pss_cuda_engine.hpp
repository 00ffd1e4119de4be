#pragma once
// The CUDA scorer behind `hpcalign pss --backend cuda` (compiled only with CUDA; no CUDA
// header here, so host-only files can include it).
//
// A tile's T subjects are loaded once: each gets N+1 copies on the device, copies 0..N-1 its
// permutations (the Philox stream and Fisher-Yates shuffle of src/core/philox.hpp, so
// bit-identical to the CPU) and copy N the subject itself, whose score is the real score.
// The tile's query profiles are loaded once too; then launches score lists of (query,
// subject) pairs, one thread per copy (kernels/cuda/pss_strip.hpp: exact 32-bit scores, the CPU's
// values). A launch runs asynchronously, so the host can fit the previous launch's Gumbels.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/backend.hpp"
#include "src/align/profile_reference.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

struct PssPairJob {
  uint32_t query;    // index into the profiles of set_queries()
  uint32_t subject;  // index into the subjects of load_subjects()
};

class PssCudaScorer {
 public:
  // Profile mode: queries are position-specific profiles (PSSMs), scored by the exact 32-bit
  // per-copy kernel below.
  explicit PssCudaScorer(int device);
  // Sequence mode: queries are sequences scored with a substitution matrix by the search's
  // packed 16-bit kernel (two copies per thread, DPX; kernels/cuda/packed_scorer.hpp), with
  // exact 32-bit rescoring of the lanes that overflow: the same exact scores, faster.
  PssCudaScorer(int device, const ScoreMatrix& matrix, GapCosts gaps);
  ~PssCudaScorer();
  PssCudaScorer(const PssCudaScorer&) = delete;
  PssCudaScorer& operator=(const PssCudaScorer&) = delete;

  // compute_units = SMs; resident_per_unit = resident threads per SM of the score kernel
  // (occupancy API: active blocks x threads per block), i.e. copies in flight per SM.
  DeviceCapacity capacity() const;

  // subjects[s] is subject number indices[s] of the subject file (the permutation stream key).
  void load_subjects(const std::vector<SeqView>& subjects, const std::vector<uint32_t>& indices, uint64_t seed,
                     uint32_t permutations);
  void set_queries(const std::vector<QueryProfile>& profiles);
  // Starts scoring `pairs` (returns at once); wait() returns scores[p * (N + 1) + k]: pair p
  // against permutation k of its subject (k < N), k = N: against the subject itself.
  void launch(const std::vector<PssPairJob>& pairs, GapCosts gaps);
  std::vector<int32_t> wait();

  // Sequence mode: starts scoring every query against every loaded subject; wait() returns
  // scores[(k * n_subjects + s) * (N + 1) + c] (query k, subject s, copy c as in launch()).
  void launch_queries(const std::vector<SeqView>& queries);

  // Profile mode: one profile against every loaded subject: scores[s * (N + 1) + k].
  std::vector<int32_t> score(const QueryProfile& profile, GapCosts gaps);

  double kernel_seconds() const;  // score kernels so far (CUDA events)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpc
