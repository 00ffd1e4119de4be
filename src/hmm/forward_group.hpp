#pragma once
// The Forward parser score of several targets against one profile at once: each wide vector
// holds one HMMER 4-lane vector per target (AVX: 2 targets in 256 bits; AVX-512: 4 in 512),
// and no operation crosses from one target's 128 bits into another's, so every cell of each
// target goes through forward()'s own float steps and each score equals
// forward(..., full = false)'s bit for bit, at about the cost of one (two such registers side by
// side overlap the row's serial chains: 4 or 8 targets). hmmsearch's survivors
// spend most of the host's time in this parser (the Forward filter).
#include <cstdint>
#include <vector>

#include "src/hmm/fb_parser_lanes.hpp"
#include "src/hmm/fb_profile.hpp"

namespace hpc::hmm {

// One target of a group: its residue codes and its length model (fb_special_odds(L, true),
// what FbProfile::configure would set).
struct GroupTarget {
  const uint8_t* seq = nullptr;
  int L = 0;
  FbSpecialOdds xf{};
};

// The most targets forward_group takes: kMaxGroup.
constexpr int kMaxGroup = 8;

// How many targets forward_group takes at once on this CPU: 8 (AVX-512: two registers of 4
// side by side), 4 (AVX: two of 2), or 0 (neither: callers run forward() on each).
// without_avx512: as on a CPU without AVX-512 (tests of the AVX kernels on any CPU with AVX).
int forward_group_width(bool without_avx512 = false);

// nats[t] = forward(targets[t].seq, targets[t].L, p, ..., false) for t < n (1 <= n <=
// forward_group_width()), under the caller's HmmerFloatMode; `row` is scratch kept between
// calls. The narrowest kernel that holds n targets runs (AVX-512: 4 targets in one register,
// or 8 in two; AVX: 2 or 4). Throws forward()'s hpc::Error for a target whose score leaves the
// float range (the first such target's). special_rows (n vectors, or null): each target's
// special rows, forward(..., false)'s FbMatrix::xmx (rows 0..L of E, N, J, B, C, scale), so that
// a target passing the Forward filter goes on to Backward without its Forward again.
void forward_group(const FbProfile& p, const GroupTarget* targets, int n, std::vector<float>& row, float* nats,
                   bool without_avx512 = false, std::vector<float>* special_rows = nullptr);

}  // namespace hpc::hmm
