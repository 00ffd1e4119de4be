#include "src/pss/permute.hpp"

#include <cstring>

#include "src/core/philox.hpp"

namespace hpc {

void permute_subject(SeqView subject, uint64_t seed, uint32_t subject_index, uint32_t k, uint8_t* out) {
  if (subject.length) std::memcpy(out, subject.data, subject.length);
  PermutationStream rng(seed, subject_index, k);
  shuffle_in_place(out, subject.length, rng);
}

std::vector<uint8_t> permute_subject_batch(SeqView subject, uint64_t seed, uint32_t subject_index, uint32_t first_k,
                                           uint32_t count) {
  std::vector<uint8_t> out(size_t(count) * subject.length);
  for (uint32_t i = 0; i < count; ++i)
    permute_subject(subject, seed, subject_index, first_k + i, out.data() + size_t(i) * subject.length);
  return out;
}

}  // namespace hpc
