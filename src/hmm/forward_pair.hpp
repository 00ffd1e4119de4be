#pragma once
// The Forward parser score of two targets against one profile at once: each 256-bit AVX
// vector holds target A's HMMER 4-lane vector in its low half and target B's in its high
// half, so every cell of each target goes through forward()'s own float steps (no lane
// crosses into the other half) and both scores equal forward(..., full = false)'s bit for
// bit, at about the cost of one. hmmsearch's survivors spend most of the host's time in
// this parser (the Forward filter).
#include <array>
#include <cstdint>
#include <vector>

#include "src/hmm/fb_parser_lanes.hpp"
#include "src/hmm/fb_profile.hpp"

namespace hpc::hmm {

// One target of a pair: its residue codes and its length model (fb_special_odds(L, true),
// what FbProfile::configure would set).
struct PairTarget {
  const uint8_t* seq = nullptr;
  int L = 0;
  FbSpecialOdds xf{};
};

// Whether forward_pair runs here (x86 with AVX); else callers run forward() on each target.
bool forward_pair_available();

// forward(a.seq, a.L, p, ..., false) and the same for b, in nats, under the caller's
// HmmerFloatMode; `row` is scratch kept between calls. Throws forward()'s hpc::Error for a
// target whose score leaves the float range (a's first).
std::array<float, 2> forward_pair(const FbProfile& p, const PairTarget& a, const PairTarget& b,
                                  std::vector<float>& row);

}  // namespace hpc::hmm
