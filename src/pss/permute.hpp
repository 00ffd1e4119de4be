#pragma once
// Permuted copies of PSS subjects. Permutation k of subject s is a pure function of
// (seed, s, k): a Fisher-Yates shuffle driven by Philox4x32-10 (src/core/philox.hpp), so every
// backend, rank count and tile size sees the same residues. One permutation of a subject
// serves every query (data reuse: the copies are generated once per tile and scored against
// each query of the tile).
#include <cstdint>
#include <vector>

#include "src/core/sequence.hpp"

namespace hpc {

// Writes permutation k of `subject` (index subject_index in the subject file) to out[0..n).
void permute_subject(SeqView subject, uint64_t seed, uint32_t subject_index, uint32_t k, uint8_t* out);

// Permutations first_k .. first_k + count - 1, back to back (count x subject.length codes).
std::vector<uint8_t> permute_subject_batch(SeqView subject, uint64_t seed, uint32_t subject_index, uint32_t first_k,
                                           uint32_t count);

}  // namespace hpc
