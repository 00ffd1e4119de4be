#pragma once
// CUDA path of the Viterbi filter of `hpcalign msv` (built only with CUDA): HMMER 3.3.2's
// 16-bit Viterbi filter on the GPU, bit-identical to hmm::viterbi_filter_score
// (kernels/cpu/msv_filters.hpp) on every (profile, target): the same saturation, the same
// lazy-F rule, the same +infinity on overflow and -infinity at the floor; the kernel returns
// the int16 xC and the host converts it with the CPU's own hmm::viterbi_filter_nats.
// Targets are positions in the database resident on the GPU (kernels/cuda/device_database.hpp),
// which the kernel reads by position: a call uploads only its plan (packed profiles, blocks,
// and per target its position and move), from pinned memory. Several models may share a call
// (one upload, one launch per segment size, one download). One instance per host thread.
// Design: kernels/cuda/vit_lane.hpp; host-only parts (CPU-tested): kernels/cuda/vit_layout.hpp.
#include <memory>
#include <vector>

#include "io/database.hpp"
#include "kernels/cuda/vit_layout.hpp"
#include "src/hmm/profile.hpp"

namespace hpc::hmm {

class VitCuda {
 public:
  // Shares `device`'s copy of `db` (uploaded by the first user; `db` must outlive this).
  VitCuda(int device, const Database& db);
  ~VitCuda();
  VitCuda(const VitCuda&) = delete;
  VitCuda& operator=(const VitCuda&) = delete;

  // Longest model (nodes) the kernels hold (1,280); longer ones must use the CPU twin.
  static int max_model_length();
  // viterbi_filter_score(p, t) for the target t at every position (db.by_length order), in
  // order. Throws hpc::Error when p.M is outside 1..max_model_length() or a position is past
  // the database. The kernel holds the first 24 emission rows: targets with U, O or J (the
  // device database's past_the_rows) are scored on the host.
  std::vector<float> scores(const VitProfile& p, const std::vector<uint32_t>& positions);
  // Several models in one call: result[g][i] = the score of *groups[g].profile against the
  // target at groups[g].positions[i]. Groups may repeat a profile; empty groups are fine.
  std::vector<std::vector<float>> scores(const std::vector<VitGroup>& groups);
  // Seconds the device spent in the Viterbi kernels so far (CUDA events).
  double kernel_seconds() const;

 private:
  std::vector<std::vector<float>> device_scores(const std::vector<VitGroup>& groups);  // codes < 24 only
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpc::hmm
