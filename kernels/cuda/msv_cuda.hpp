#pragma once
// CUDA path of `hpcalign msv` (built only with CUDA): HMMER's byte MSV filter on the GPU,
// bit-identical to hmm::msv_filter_score (kernels/cpu/msv_filters.hpp): the same SSV fast
// path and fallback rules, the same saturation and overflow rule. One warp per target, the
// database uploaded once per device in Database::by_length order. The bias and Viterbi
// filters of the survivors: their own GPU twins (bias_cuda.hpp, vit_cuda.hpp), the verdicts
// the host's shared code (src/hmm/filter_pipeline.hpp).
// The SSV runs in 16-bit lanes with several models packed into a warp (msv16_kernels.cu,
// fp16 and byte profile; HPCALIGN_MSV_KERNEL=w16, mix or w8 for its int16, mixed or signed-byte
// DPX profiles) or, with HPCALIGN_MSV_KERNEL=byte, in the byte kernel (msv_kernels.cu); the
// scores are the same. The kernels hold the profiles' first 24 rows: targets with U, O or J
// (codes of HMMER's rules past them) are scored by the CPU twin.
#include <cstdint>
#include <memory>
#include <vector>

#include "io/database.hpp"
#include "src/hmm/profile.hpp"

namespace hpc::hmm {

// One call's scores as the kernels leave them (MsvCuda::codes): models x targets, a model's
// targets together. A pair's code is its xJ byte (0..255), kOverflow where the score
// overflowed, or kOnHost for the targets the CPU twin scored (U, O or J); nats() gives every
// pair the score that scores() returns for it.
struct MsvCodes {
  static constexpr int32_t kOverflow = INT32_MIN;
  static constexpr int32_t kOnHost = INT32_MIN + 1;
  const int32_t* code = nullptr;     // the engine's pinned read-back buffer: valid until its next call
  std::vector<uint8_t> tjb;          // each pair's tjb(L) byte, the code's offset at its target's length
  std::vector<uint32_t> on_host;     // the positions (from `begin`) scored by the CPU twin, ascending
  std::vector<float> on_host_nats;   // their scores, on_host.size() a model, in the models' order
  size_t targets = 0;
  float nats(const MsvProfile& p, size_t k, size_t i) const;
};

class MsvCuda {
 public:
  // Binds `device` and uploads `db`'s residues (kept referenced: `db` must outlive this).
  MsvCuda(int device, const Database& db);
  ~MsvCuda();
  MsvCuda(const MsvCuda&) = delete;
  MsvCuda& operator=(const MsvCuda&) = delete;

  // Longest model (nodes) the kernel holds; longer ones must use the CPU twin.
  static int max_model_length();
  // msv_filter_score(p, target) in nats (+infinity on overflow) for the targets
  // db.by_length[begin .. end), in that order. Empty targets score 0 (the pipeline skips them).
  std::vector<float> scores(const MsvProfile& p, uint32_t begin, uint32_t end);
  // The same for several models in one launch: result[k] belongs to profiles[k].
  std::vector<std::vector<float>> scores(const std::vector<const MsvProfile*>& profiles, uint32_t begin,
                                         uint32_t end);
  // The launch of scores() without the conversion to nats, which the callers make only for
  // the pairs they need (a cut by code first: most pairs fail the MSV filter).
  const MsvCodes& codes(const std::vector<const MsvProfile*>& profiles, uint32_t begin, uint32_t end);
  // The score in nats that the kernels report as `code` (their xJ byte, 0..255) for a target
  // of L residues: what scores() returns for it.
  static float nats(const MsvProfile& p, int code, int L);
  // The targets' lengths in by_length order (db.seqs.length(db.by_length[p]) at p), read in
  // order by the callers' per-target loops.
  const uint32_t* lengths() const;
  // Seconds the device spent in the MSV kernels so far (CUDA events).
  double kernel_seconds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpc::hmm
