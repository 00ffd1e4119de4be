#pragma once
// HMMER 3.3.2's null2 model (impl_sse/null2.c): per-residue odds f_d(x)/f_0(x) of the
// composition of one domain, weighted by how the domain uses the model's states:
//  - by expectation (p7_Null2_ByExpectation) over a posterior matrix of the envelope;
//  - by trace (p7_Null2_ByTrace) over one sampled domain (trace elements zstart..zend).
// Returns odds per residue code (our codes under HMMER's rules): degenerate codes get the
// mean of their members' odds, '*' gets 1.
#include <array>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/hmm/fb_matrix.hpp"
#include "src/hmm/fb_profile.hpp"
#include "src/hmm/trace.hpp"

namespace hpc::hmm {

using Null2 = std::array<float, kHmmerAlphabetSize>;

// `pp` is modified: its row 0 holds the expected state usage (as HMMER uses it).
Null2 null2_by_expectation(const FbProfile& p, FbMatrix& pp);
Null2 null2_by_trace(const FbProfile& p, const Trace& tr, int zstart, int zend);

}  // namespace hpc::hmm
