#pragma once
// HMMER 3.3.2's optimal accuracy alignment (impl_sse/optacc.c): the path maximising the sum
// of posterior probabilities of its emitted residues over allowed transitions
// (p7_OptimalAccuracy, into `ox`), and its traceback with HMMER's tie rules (p7_OATrace).
// The returned score is the expected number of correctly aligned residues (the "acc"
// column's numerator).
#include "src/hmm/fb_matrix.hpp"
#include "src/hmm/fb_profile.hpp"
#include "src/hmm/trace.hpp"

namespace hpc::hmm {

float optimal_accuracy(const FbProfile& p, const FbMatrix& pp, FbMatrix& ox);
void optimal_accuracy_trace(const FbProfile& p, const FbMatrix& pp, const FbMatrix& ox, Trace& tr);

}  // namespace hpc::hmm
