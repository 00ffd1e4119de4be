#pragma once
// CUDA path of `hpcalign pss` (built only with CUDA): the N permutations of a subject are
// generated on the GPU with the same Philox4x32-10 stream and Fisher-Yates shuffle as the CPU
// (src/core/philox.hpp, shared host/device code), so they are bit-identical; the query is then
// scored against every copy by an inter-sequence kernel (one thread per permuted copy,
// residues interleaved copy-fastest so a warp's loads coalesce), exact 32-bit scores.
#include <cstdint>
#include <vector>

#include "src/align/profile_reference.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

// Permutations first_k .. first_k+count-1 of `subject`, back to back (count x length codes),
// in the layout permute_subject_batch() returns. For tests: the GPU twin of that function.
std::vector<uint8_t> pss_cuda_permute(int device, SeqView subject, uint64_t seed, uint32_t subject_index,
                                      uint32_t first_k, uint32_t count);

// scores[k] = exact local score of `profile` against permutation k (k < count) of `subject`.
std::vector<int32_t> pss_cuda_score_permutations(int device, const QueryProfile& profile, GapCosts gaps,
                                                 SeqView subject, uint64_t seed, uint32_t subject_index,
                                                 uint32_t count);

}  // namespace hpc
