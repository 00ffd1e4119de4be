#pragma once
// HMMER 3.3.2's domain definition (p7_domaindef.c, p7_domaindef_ByPosteriorHeuristics):
//  1. regions: from the parser matrices' posterior B/E/occupancy (rt1 0.25, rt2 0.10);
//  2. a region with >= rt3 (0.20) expected extra domains is split by clustering 200 sampled
//     traces (seed 42 or hmmsearch's --seed, reset per region); its null2 comes from the samples (by trace);
//  3. each envelope is rescored in unihit mode: Forward/Backward on the envelope, posterior
//     decoding, optimal accuracy alignment (ali and hmm coordinates, oasc), and null2 by
//     expectation for single-domain regions.
// Counts (regions, clustered, overlaps, envelopes) are the --tblout's reg/clu/ov/env.
#include <cstdint>
#include <vector>

#include "src/hmm/alignment_display.hpp"
#include "src/hmm/fb_matrix.hpp"
#include "src/hmm/fb_profile.hpp"
#include "src/hmm/stochastic_trace.hpp"

namespace hpc::hmm {

struct EnvelopeDomain {
  int ienv = 0, jenv = 0;        // envelope
  int iali = 0, jali = 0;        // optimal accuracy alignment, sequence
  int hmmfrom = 0, hmmto = 0;    // and model
  float envsc = 0.0f;            // envelope Forward score (nats)
  float domcorrection = 0.0f;    // null2 sum over the envelope (nats)
  float oasc = 0.0f;             // expected correctly aligned residues
};

struct DomainDefinition {
  float nexpected = 0.0f;
  int nregions = 0, nclustered = 0, noverlaps = 0, nenvelopes = 0;
  std::vector<EnvelopeDomain> domains;
  std::vector<AlignmentDisplay> alignments;  // one per domain: its optimal accuracy alignment
  std::vector<float> n2sc;  // per position 0..L: null2 log odds (0 outside envelopes)
};

// Scratch reused across targets.
struct DomainWorkspace {
  FbMatrix fwd, bck;
  Trace trace;
  EaselFastRng rng{42};
  uint32_t seed = 42;  // hmmsearch --seed: the sampler restarts from it in every region
};

// `p` is configured for L in multihit mode on entry and left so on return. fwd/bck are the
// target's Forward and Backward parser matrices.
DomainDefinition define_domains(const uint8_t* seq, int L, FbProfile& p, const FbMatrix& fwd, const FbMatrix& bck,
                                DomainWorkspace& ws);

}  // namespace hpc::hmm
