#pragma once
// Host side of the GPU Viterbi filter that needs no GPU (header only, so the CPU unit tests
// check it in builds without CUDA): the packed profile, the batch plan (targets, by their
// position in the database, ordered for the launches), the conversion of the kernel's int16 xC to nats (the shared
// hmm::viterbi_filter_nats), and a host emulator of the warp kernel built on the very lane
// code the kernel runs (kernels/cuda/vit_lane.hpp).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cuda/vit_lane.hpp"
#include "src/core/error.hpp"
#include "src/core/sequence.hpp"
#include "src/hmm/profile.hpp"

namespace hpc::hmm {

// One model and the targets to score against it: positions in the database's length order
// (the device database's, kernels/cuda/device_database.hpp), in any order, repeats allowed.
struct VitGroup {
  const VitProfile* profile = nullptr;
  std::vector<uint32_t> positions;
};

namespace vit {

// The smallest compiled segment size holding M nodes (32 lanes x S), or 0 when M is too long.
inline int segment_for(int M) {
  for (int S : kSegments)
    if (M <= kLanes * S) return S;
  return 0;
}

// p packed for segment size S (layout in vit_lane.hpp), written to out[0 .. profile_words(S)).
inline void pack_profile(const VitProfile& p, int S, uint32_t* out) {
  const int M = p.M;
  auto u16 = [](int v) { return uint32_t(uint16_t(int16_t(v))); };
  auto pair = [&](int lo, int hi) { return u16(lo) | (u16(hi) << 16); };
  for (int j = 0; j < S; ++j)
    for (int lane = 0; lane < kLanes; ++lane) {
      const int k = lane * S + j + 1;
      uint32_t* w = out + (size_t(j) * kLanes + lane) * 4;
      if (k > M) {
        w[0] = w[1] = w[2] = w[3] = pair(kNeg, kNeg);
        continue;
      }
      w[0] = pair(p.bm[k], p.mm[k]);
      w[1] = pair(p.im[k], p.dm[k]);
      w[2] = pair(p.md[k], p.mi[k]);
      w[3] = pair(p.ii[k], k >= 2 ? int(p.dd[k - 1]) : kNeg);
    }
  uint32_t* em = out + trans_words(S);
  for (int code = 0; code < kCodes; ++code) {
    const int16_t* row = p.row(uint8_t(code));
    for (int jp = 0; jp < S / 2; ++jp)
      for (int lane = 0; lane < kLanes; ++lane) {
        const int k = lane * S + 2 * jp + 1;
        const int lo = k <= M ? int(row[k]) : kNeg;
        const int hi = k + 1 <= M ? int(row[k + 1]) : kNeg;
        em[(size_t(code) * (S / 2) + jp) * kLanes + lane] = pair(lo, hi);
      }
  }
}

inline std::vector<uint32_t> pack_profile(const VitProfile& p, int S) {
  std::vector<uint32_t> w(profile_words(S));
  pack_profile(p, S, w.data());
  return w;
}

// Everything one batched call uploads (no residues: the kernel reads them from the database
// by position), and how to scatter its results back.
struct Batch {
  struct Launch {
    int segment = 0;
    uint32_t work_begin = 0, work_end = 0;  // its blocks: work[work_begin .. work_end)
  };
  std::vector<uint32_t> profiles;       // every group's packed profile, one after the other
  std::vector<GroupParams> groups;      // per group of the call
  std::vector<TargetRef> refs;          // per batch target: its position and move(L)
  std::vector<uint32_t> origin_group;   // per batch target: its group ...
  std::vector<uint32_t> origin_index;   // ... and its index in that group's positions
  std::vector<Work> work;               // one per thread block, grouped by launch
  std::vector<Launch> launches;         // one kernel launch per segment size used
  size_t targets() const { return refs.size(); }
};

// Plans one call over a database whose target at position p has lengths[p] residues: per
// segment size (largest first) one launch; a group's targets sorted by length, longest first,
// cut into blocks of `warps_per_block(S) * targets_per_warp` targets; a launch's blocks
// ordered longest first, so the tail of a launch is short work. Throws hpc::Error for a
// missing profile, a model outside 1..kMaxModelLength or a position past the database.
inline Batch plan_batch(const std::vector<VitGroup>& groups, const std::vector<uint32_t>& lengths,
                        int targets_per_warp = 1) {
  Batch b;
  const size_t ng = groups.size();
  b.groups.resize(ng);
  std::vector<int> seg(ng);
  size_t words = 0;
  for (size_t g = 0; g < ng; ++g) {
    const VitProfile* p = groups[g].profile;
    if (!p) throw Error("GPU Viterbi filter: group " + std::to_string(g) + " has no profile");
    seg[g] = p->M >= 1 ? segment_for(p->M) : 0;
    if (seg[g] == 0)
      throw Error("GPU Viterbi filter: model length " + std::to_string(p->M) + " is outside 1.." +
                  std::to_string(kMaxModelLength));
    GroupParams& gp = b.groups[g];
    gp.offset = words;
    gp.base = p->base, gp.e_loop = p->e_loop, gp.e_move = p->e_move, gp.ddbound = p->ddbound;
    gp.segment = seg[g];
    words += profile_words(seg[g]);
  }
  b.profiles.resize(words);
  for (size_t g = 0; g < ng; ++g) pack_profile(*groups[g].profile, seg[g], b.profiles.data() + b.groups[g].offset);

  size_t total = 0;
  for (const VitGroup& g : groups) {
    total += g.positions.size();
    for (uint32_t p : g.positions)
      if (p >= lengths.size())
        throw Error("GPU Viterbi filter: position " + std::to_string(p) + " is past the database's " +
                    std::to_string(lengths.size()) + " targets");
  }
  if (total >= std::numeric_limits<uint32_t>::max()) throw Error("GPU Viterbi filter: too many targets in one call");
  b.refs.reserve(total);
  b.origin_group.reserve(total);
  b.origin_index.reserve(total);

  struct Block {
    uint32_t group;
    std::vector<uint32_t> idx;  // indices into the group's positions
    uint32_t longest;
  };
  for (auto it = std::rbegin(kSegments); it != std::rend(kSegments); ++it) {
    const int S = *it;
    const size_t per_block = size_t(warps_per_block(S)) * size_t(std::max(1, targets_per_warp));
    std::vector<Block> blocks;
    for (size_t g = 0; g < ng; ++g) {
      if (seg[g] != S) continue;
      const std::vector<uint32_t>& t = groups[g].positions;
      std::vector<uint32_t> order(t.size());
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t c) { return lengths[t[a]] > lengths[t[c]]; });
      for (size_t i = 0; i < order.size(); i += per_block) {
        Block blk{uint32_t(g), {}, lengths[t[order[i]]]};
        blk.idx.assign(order.begin() + i, order.begin() + std::min(order.size(), i + per_block));
        blocks.push_back(std::move(blk));
      }
    }
    if (blocks.empty()) continue;
    std::stable_sort(blocks.begin(), blocks.end(), [](const Block& a, const Block& c) { return a.longest > c.longest; });
    Batch::Launch launch;
    launch.segment = S;
    launch.work_begin = uint32_t(b.work.size());
    for (const Block& blk : blocks) {
      Work w;
      w.group = blk.group;
      w.begin = uint32_t(b.refs.size());
      const VitGroup& g = groups[blk.group];
      for (uint32_t i : blk.idx) {
        const uint32_t p = g.positions[i];
        b.refs.push_back({p, g.profile->move(int(lengths[p]))});
        b.origin_group.push_back(blk.group);
        b.origin_index.push_back(i);
      }
      w.end = uint32_t(b.refs.size());
      b.work.push_back(w);
    }
    launch.work_end = uint32_t(b.work.size());
    b.launches.push_back(launch);
  }
  return b;
}

// The kernel's per-target results (xC or kOverflow, in batch order) as viterbi_filter_score
// returns them: out[g][i] for position i of group g.
inline std::vector<std::vector<float>> finish(const Batch& b, const std::vector<VitGroup>& groups,
                                              const int32_t* raw) {
  std::vector<std::vector<float>> out(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) out[g].resize(groups[g].positions.size());
  for (size_t t = 0; t < b.targets(); ++t) {
    const VitProfile& p = *groups[b.origin_group[t]].profile;
    out[b.origin_group[t]][b.origin_index[t]] =
        raw[t] == kOverflow ? std::numeric_limits<float>::infinity()
                            : viterbi_filter_nats(p, raw[t], int16_t(b.refs[t].move));
  }
  return out;
}

// What the emulator saw (tests use it to show the lazy-F and overflow paths were exercised).
struct EmulatorStats {
  uint64_t rows = 0, lazy_rows = 0, lazy_passes = 0;  // rows with a D->D pass, passes over the warp
  int max_passes = 0;                                 // most passes one row needed
  uint64_t overflows = 0;
};

// The kernel's warp, lane by lane on the host: the same lane code, the shuffles as copies
// taken before the lanes update. Returns xC or kOverflow like the kernel.
template <int S>
int32_t emulate_target(const uint32_t* profile, const GroupParams& g, const uint8_t* seq, int L, int move,
                       EmulatorStats* st = nullptr) {
  const uint32_t* tr = profile;
  const uint32_t* em = profile + trans_words(S);
  int M[kLanes][S], I[kLanes][S], D[kLanes][S];
  for (int l = 0; l < kLanes; ++l)
    for (int j = 0; j < S; ++j) M[l][j] = I[l][j] = D[l][j] = kNeg;
  Specials s = start_specials(g.base, move, g.e_loop, g.e_move, g.ddbound);
  for (int i = 0; i < L; ++i) {
    const int code = seq[i];
    int inM[kLanes], inI[kLanes], inD[kLanes], xe[kLanes], dm[kLanes], dnl[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      inM[l] = l ? M[l - 1][S - 1] : kNeg;
      inI[l] = l ? I[l - 1][S - 1] : kNeg;
      inD[l] = l ? D[l - 1][S - 1] : kNeg;
    }
    for (int l = 0; l < kLanes; ++l)
      lane_row<S>(tr + l * 4, em + size_t(code) * (S / 2) * kLanes + l, s.xB, inM[l], inI[l], inD[l], M[l], I[l],
                  D[l], xe[l], dm[l], dnl[l]);
    int xE = kNeg, dmax = kNeg;
    for (int l = 0; l < kLanes; ++l) {
      D[l][0] = l ? dnl[l - 1] : kNeg;
      xE = vmax(xE, xe[l]);
      dmax = vmax(dmax, dm[l]);
    }
    if (st) ++st->rows;
    bool lazy = false;
    if (!end_row(s, xE, dmax, lazy)) {
      if (st) ++st->overflows;
      return kOverflow;
    }
    if (!lazy) continue;
    int passes = 0;
    bool any;
    do {
      int carry[kLanes];
      for (int l = 0; l < kLanes; ++l) carry[l] = l ? D[l - 1][S - 1] : kNeg;
      any = false;
      for (int l = 0; l < kLanes; ++l) any = lane_lazy_f<S>(tr + l * 4, carry[l], D[l]) | any;
      ++passes;
    } while (any);
    if (st) {
      ++st->lazy_rows;
      st->lazy_passes += uint64_t(passes);
      st->max_passes = std::max(st->max_passes, passes);
    }
  }
  return s.xC;
}

inline int32_t emulate_target(int S, const uint32_t* profile, const GroupParams& g, const uint8_t* seq, int L,
                              int move, EmulatorStats* st = nullptr) {
  switch (S) {
    case 2: return emulate_target<2>(profile, g, seq, L, move, st);
    case 4: return emulate_target<4>(profile, g, seq, L, move, st);
    case 8: return emulate_target<8>(profile, g, seq, L, move, st);
    case 16: return emulate_target<16>(profile, g, seq, L, move, st);
    case 32: return emulate_target<32>(profile, g, seq, L, move, st);
    case 40: return emulate_target<40>(profile, g, seq, L, move, st);
    default: throw Error("GPU Viterbi emulator: no segment size " + std::to_string(S));
  }
}

// What the kernels would write for the whole batch (batch order), block by block as launched;
// target_at(p) is the SeqView of the database's target at position p (codes < 24).
template <class TargetAt>
std::vector<int32_t> emulate_batch(const Batch& b, TargetAt&& target_at, EmulatorStats* st = nullptr) {
  std::vector<int32_t> raw(b.targets(), 0);
  for (const Batch::Launch& l : b.launches)
    for (uint32_t w = l.work_begin; w < l.work_end; ++w) {
      const Work& wk = b.work[w];
      const GroupParams& g = b.groups[wk.group];
      for (uint32_t t = wk.begin; t < wk.end; ++t) {
        const SeqView v = target_at(b.refs[t].position);
        raw[t] = emulate_target(l.segment, b.profiles.data() + g.offset, g, v.data, int(v.length), b.refs[t].move, st);
      }
    }
  return raw;
}

}  // namespace vit
}  // namespace hpc::hmm
