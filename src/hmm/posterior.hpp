#pragma once
// HMMER 3.3.2's posterior decoding (impl_sse/decoding.c):
//  - decode_posteriors (p7_Decoding): posterior probabilities of every M and I cell and of
//    the N, J, C emissions, from full Forward and Backward matrices, into `pp`;
//  - decode_domains (p7_DomainDecoding): from parser matrices (specials only), the cumulative
//    expected numbers of domain starts (btot) and ends (etot) and the probability that the
//    model emits residue i (mocc), for region identification.
// Both return false on numeric overflow (HMMER's eslERANGE).
#include <vector>

#include "src/hmm/fb_matrix.hpp"
#include "src/hmm/fb_profile.hpp"

namespace hpc::hmm {

bool decode_posteriors(const FbProfile& p, const FbMatrix& fwd, const FbMatrix& bck, FbMatrix& pp);

struct DomainPosteriors {
  std::vector<float> btot, etot, mocc;  // 0..L
};
bool decode_domains(const FbProfile& p, const FbMatrix& fwd, const FbMatrix& bck, DomainPosteriors& out);

}  // namespace hpc::hmm
