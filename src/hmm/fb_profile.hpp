#pragma once
// HMMER 3.3.2's striped probability-space profile for Forward/Backward (p7_oprofile's
// rfv/tfv/xf, built by fb_conversion): node k (1..M) sits in vector q = (k-1) % Q, lane
// r = (k-1) / Q, Q = max(2, ceil(M/4)). Odds are esl_sse_expf of the float log-odds scores of
// p7_ProfileConfig (local mode), so every bit equals HMMER's. The length model and the
// uni/multihit switch are set per target (configure), as the pipeline and domain
// definition set them.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "io/hmm_file.hpp"
#include "kernels/cpu/simd_intrinsics.hpp"
#include "src/hmm/profile.hpp"

// std::vector<__m128> drops the type's alignment attribute from the template argument; the
// allocator still aligns to 16 bytes on the platforms we build for.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace hpc::hmm {

// Transition slots per q in tfv (then Q DD vectors at 7Q): HMMER's p7O_{BM,...,II}.
enum FbTransition { kFbBM = 0, kFbMM, kFbIM, kFbDM, kFbMD, kFbMI, kFbII, kFbDD };
// Special states and moves (p7O_E/N/J/C, p7O_MOVE/LOOP).
enum FbSpecial { kXE = 0, kXN, kXJ, kXC };
enum FbMove { kMove = 0, kLoop = 1 };

struct FbProfile {
  int M = 0, Q = 0;
  std::vector<__m128> rfv;  // [code * Q + q]: match emission odds per residue code
  std::vector<__m128> tfv;  // 8Q vectors
  float xf[4][2] = {};
  float nj = 1.0f;
  std::string consensus;  // the model's consensus line, 1..M (alignment displays)
  const __m128* emit(uint8_t code) const { return rfv.data() + size_t(code) * Q; }
  // p7_oprofile_Reconfig{Multihit,Unihit}: E moves, then the N/J/C length model for L.
  void configure(int L, bool multihit);
};
FbProfile build_fb_profile(const HmmModel& model);
// The same from the model's scores already made (model_scores(model), shared with its filters).
FbProfile build_fb_profile(const HmmModel& model, const ModelScores& scores);

inline int fb_segments(int M) { return std::max(2, (M - 1) / 4 + 1); }

}  // namespace hpc::hmm
