#pragma once
// Host side of the 16-bit DPX SSV kernel that needs no GPU (header only, so the CPU unit tests
// check it in builds without CUDA): the pack plan (which models share a warp, with how many
// nodes per slot), the packed w profiles, the lane descriptors, the conversion of the kernel's
// result codes to nats, and a host emulator of the warp built on the very lane code the
// kernel runs (kernels/cuda/msv16_lane.hpp). The layout and the exactness argument are in
// msv16_lane.hpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/cuda/msv16_lane.hpp"
#include "src/core/error.hpp"
#include "src/core/sequence.hpp"
#include "src/hmm/profile.hpp"

namespace hpc::hmm::msv16 {

// The smallest compiled Q holding M nodes in 64 slots, 0 when M is too long.
inline int q_for(int M) {
  for (int q : kQs)
    if (M <= kSlots * q) return q;
  return 0;
}
inline bool is_compiled_q(int q) {
  for (int c : kQs)
    if (c == q) return true;
  return false;
}
// Sub-slots (the unit of placement, msv16_lane.hpp) a model of M nodes takes at q nodes per
// slot, and the sub-slots of a pack.
inline int units_for(int M, int q) { return (M + subslot_nodes(q) - 1) / subslot_nodes(q); }
inline int pack_units(int q) { return kSlots * subslots(q); }
// The index of sub-slot t of half h of a lane in its pack.
inline int unit_index(int q, int lane, int h, int t) { return subslots(q) * (2 * lane + h) + t; }

// Modelled cost of one DP row of a pack, in SM cycles per warp (the planner's yardstick only).
// The sm_90 inner loop (4 rows unrolled) issues per row about 7 instructions (two shuffles,
// the address, the diagonal permute and mask, the loop) plus per row word one VIADDMNMX and
// half a VIMNMX3, per int16 profile word a quarter LDS.128, per byte profile word an eighth
// LDS.128 and one PRMT. With shared memory at 128 B/clock and integer/DPX instructions at 64
// lanes/clock per SM (the documented integer rate; DPX assumed alike): W16 is bound by its
// profile loads (Q + 2 cycles), W8 by its integer work (1.25 Q + 2), the mix (a quarter of
// the words from bytes) by both alike (0.875 Q + 2); plus 1.5 for the per-target work of a
// pack (start, reductions, stores) over a few hundred rows. The GPU run decides which format
// is fastest (HPCALIGN_MSV_KERNEL). kF16 is fitted to its measured pack times instead (H200,
// forced q = 10, 12, 16, 24, relative to w16's slope): 0.92 q + 4.45; it shares no bound with
// the others (its cells run on the FMA pipe).
inline double pack_row_cost(int q, int format) {
  if (format == kF16) return 0.92 * double(q) + 4.45;
  return (format == kW8 ? 1.25 : format == kMix ? 0.875 : 1.0) * double(q) + 3.5;
}

struct PackPlan {
  int q = 0;
  std::vector<uint32_t> models;  // call indices, in sub-slot order
};

namespace detail {

// Fills one pack of nodes-per-slot q from `order` (longest first), first fit; returns its
// members (positions in `order`).
inline std::vector<size_t> fill(const std::vector<int>& len, const std::vector<uint32_t>& order, int q) {
  std::vector<size_t> picked;
  int units = 0;
  for (size_t i = 0; i < order.size() && int(picked.size()) < kMaxModels; ++i) {
    const int M = len[order[i]];
    if (M > kSlots * q) continue;
    const int u = units_for(M, q);
    if (units + u > pack_units(q)) continue;
    units += u;
    picked.push_back(i);
  }
  return picked;
}

inline std::vector<uint32_t> without(const std::vector<uint32_t>& order, const std::vector<size_t>& picked) {
  std::vector<uint32_t> rest;
  size_t p = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (p < picked.size() && picked[p] == i) {
      ++p;
      continue;
    }
    rest.push_back(order[i]);
  }
  return rest;
}

// The q for a pack seeded by order[0] with the most model nodes per unit of row cost.
inline int best_q_by_rate(const std::vector<int>& len, const std::vector<uint32_t>& order, int format) {
  const int need = q_for(len[order[0]]);
  int best_q = need;
  double best_rate = -1;
  for (int q : kQs) {
    if (q < need) continue;
    double nodes = 0;
    for (size_t i : fill(len, order, q)) nodes += len[order[i]];
    const double rate = nodes / pack_row_cost(q, format);
    if (rate > best_rate * (1 + 1e-12)) best_rate = rate, best_q = q;
  }
  return best_q;
}

inline double greedy_cost(const std::vector<int>& len, std::vector<uint32_t> order, int format) {
  double cost = 0;
  while (!order.empty()) {
    const int q = best_q_by_rate(len, order, format);
    cost += pack_row_cost(q, format);
    order = without(order, fill(len, order, q));
  }
  return cost;
}

}  // namespace detail

// Cuts the models of one call (their lengths, all in 1..kMaxModelLength) into packs. Each
// pack takes the longest model left and the q that minimises the estimated row cost of that
// pack plus a greedy plan of the rest (up to 32 models left; then the q with the best rate of
// nodes per cost), filled first fit, longest first. `force_q` (tests): every pack uses it.
// Packs come out ordered by q (one launch per q).
inline std::vector<PackPlan> plan_packs(const std::vector<int>& len, int format, int force_q = 0) {
  for (size_t k = 0; k < len.size(); ++k)
    if (len[k] < 1 || len[k] > kMaxModelLength)
      throw Error("GPU MSV: model length " + std::to_string(len[k]) + " is outside 1.." +
                  std::to_string(kMaxModelLength));
  if (force_q) {
    if (!is_compiled_q(force_q)) throw Error("GPU MSV: no kernel for " + std::to_string(force_q) + " nodes per slot");
    for (int M : len)
      if (M > kSlots * force_q) throw Error("GPU MSV: model too long for the forced slot size");
  }
  std::vector<uint32_t> order(len.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return len[a] > len[b]; });
  std::vector<PackPlan> plans;
  while (!order.empty()) {
    int q = force_q;
    if (!q && order.size() <= 32) {
      const int need = q_for(len[order[0]]);
      double best = std::numeric_limits<double>::infinity();
      for (int c : kQs) {
        if (c < need) continue;
        const double cost =
            pack_row_cost(c, format) +
            detail::greedy_cost(len, detail::without(order, detail::fill(len, order, c)), format);
        if (cost < best * (1 - 1e-12)) best = cost, q = c;
      }
    } else if (!q) {
      q = detail::best_q_by_rate(len, order, format);
    }
    const std::vector<size_t> picked = detail::fill(len, order, q);
    PackPlan p;
    p.q = q;
    for (size_t i : picked) p.models.push_back(order[i]);
    plans.push_back(std::move(p));
    order = detail::without(order, picked);
  }
  std::stable_sort(plans.begin(), plans.end(), [](const PackPlan& a, const PackPlan& b) { return a.q < b.q; });
  return plans;
}

// Sub-slot u of a pack (u = subslots(q) * slot + t): its pack model (-1: none), and each pack
// model's first sub-slot.
struct UnitMap {
  int owner[kSlots * kMaxSubslots];
  int first[kMaxModels];
};

inline UnitMap unit_map(const PackPlan& plan, const std::vector<int>& len) {
  UnitMap m;
  std::fill(std::begin(m.owner), std::end(m.owner), -1);
  std::fill(std::begin(m.first), std::end(m.first), 0);
  int u = 0;
  for (size_t j = 0; j < plan.models.size(); ++j) {
    const int n = units_for(len[plan.models[j]], plan.q);
    if (u + n > pack_units(plan.q) || j >= size_t(kMaxModels)) throw Error("GPU MSV: a pack overflows the warp");
    m.first[j] = u;
    for (int i = 0; i < n; ++i) m.owner[u + i] = int(j);
    u += n;
  }
  return m;
}

// Where word q of half h of a lane lies: its sub-slot, the sub-slot's pack model (-1: none) and
// the word's node in that model (1-based).
struct WordPlace {
  int unit, owner, node;
};
inline WordPlace word_place(const UnitMap& um, int q, int lane, int h, int Q) {
  const int g = subslot_nodes(Q), u = unit_index(Q, lane, h, q / g), j = um.owner[u];
  return {u, j, j < 0 ? 0 : (u - um.first[j]) * g + q % g + 1};
}

// clamped to [-127, 127] (the clamp only touches bias > 127 models, which never run a row).
inline int ssv_step(const MsvProfile& p, int code, int k) {
  const int c = p.row(uint8_t(code))[k];
  const int w = int(p.bias) - std::min(c, 127 + int(p.bias));
  return std::clamp(w, -127, 127);
}

// A pack's w profile (layout in msv16_lane.hpp), written to out[0 .. profile_words(q, format)).
inline void pack_profile(const std::vector<const MsvProfile*>& profiles, const PackPlan& plan, int format,
                         uint32_t* out) {
  std::vector<int> len(profiles.size());
  for (size_t k = 0; k < profiles.size(); ++k) len[k] = profiles[k]->M;
  const UnitMap um = unit_map(plan, len);
  const int Q = plan.q, P = words_per_lane(Q, format), Q16 = Q - byte_words(Q, format);
  std::fill(out, out + profile_words(Q, format), 0u);
  for (int code = 0; code < kCodes; ++code)
    for (int lane = 0; lane < kLanes; ++lane)
      for (int q = 0; q < Q; ++q)
        for (int h = 0; h < 2; ++h) {
          const WordPlace at = word_place(um, q, lane, h, Q);
          int w = kPadW;
          if (at.owner >= 0) {
            const MsvProfile& p = *profiles[plan.models[size_t(at.owner)]];
            if (at.node <= p.M) w = ssv_step(p, code, at.node);
          }
          uint32_t* base = out + size_t(code) * kLanes * size_t(P);
          if (q >= Q16)
            base[word_offset(P, Q16 + ((q - Q16) >> 1), lane)] |= uint32_t(uint8_t(int8_t(w)))
                                                                 << (8 * (((q - Q16) & 1) * 2 + h));
          else
            base[word_offset(P, q, lane)] |= (format == kF16 ? f16_bits(w) : uint32_t(uint16_t(int16_t(w))))
                                             << (16 * h);
        }
}

// A pack's descriptor (its profile at word `profile` of the call's w profiles).
inline Pack make_pack(const PackPlan& plan, const std::vector<int>& len, uint64_t profile) {
  const UnitMap um = unit_map(plan, len);
  Pack p;
  p.profile = profile;
  p.q = uint32_t(plan.q);
  p.n_models = uint32_t(plan.models.size());
  for (size_t j = 0; j < plan.models.size(); ++j) p.model[j] = plan.models[j];
  for (int lane = 0; lane < kLanes; ++lane) {
    uint32_t models = 0, links = 0;
    for (int t = 0; t < kMaxSubslots; ++t)
      for (int h = 0; h < 2; ++h) {
        const int u = unit_index(plan.q, lane, h, t);
        const int j = t < subslots(plan.q) ? um.owner[u] : -1;
        models |= uint32_t(j >= 0 ? j : kNoModel) << (8 * (2 * t + h));
        if (j >= 0 && u > um.first[j]) links |= 1u << (2 * t + h);
      }
    p.lane_models[lane] = models;
    p.lane_links[lane] = links;
  }
  return p;
}

// A model's full-MSV profile (msv_full16.cuh) with `chunks` chunks: per code, chunk and lane
// two int16-pair words, the negated costs of nodes 128 c + 4 lane + 1, + 2 (word 0) and + 3,
// + 4 (word 1); nodes past M cost 255, so their cells stay 0 (the byte profile's layout, each
// byte word split in two).
inline size_t full_profile_words(int chunks) { return 2 * size_t(kCodes) * size_t(chunks) * kLanes; }
inline std::vector<uint32_t> full_profile(const MsvProfile& p, int chunks) {
  std::vector<uint32_t> w(full_profile_words(chunks));
  for (int code = 0; code < kCodes; ++code)
    for (int c = 0; c < chunks; ++c)
      for (int lane = 0; lane < kLanes; ++lane)
        for (int h = 0; h < 2; ++h) {
          int cost[2];
          for (int j = 0; j < 2; ++j) {
            const int k = c * kByteChunkNodes + 4 * lane + 2 * h + j + 1;
            cost[j] = k <= p.M ? p.row(uint8_t(code))[k] : 255;
          }
          w[((size_t(code) * chunks + c) * kLanes + lane) * 2 + h] = pack16(-cost[0], -cost[1]);
        }
  return w;
}

// Everything one call uploads for the 16-bit kernel but the database and the full-MSV profiles.
struct Call {
  struct Launch {
    int q = 0;
    uint32_t first = 0, count = 0;  // packs[first .. first + count)
  };
  int format = false;
  std::vector<PackPlan> plans;       // parallel to packs
  std::vector<Pack> packs;           // ordered by q
  std::vector<Launch> launches;      // one per q used
  std::vector<uint32_t> wprof;       // every pack's w profile, one after the other
  std::vector<ModelParams> models;   // per model of the call
  size_t full_words = 0;             // total words of the full-MSV profiles (models in call order)
};

// Plans a call of `profiles` against n targets (ModelParams::targets = k * n).
inline Call plan_call(const std::vector<const MsvProfile*>& profiles, int format, uint64_t n, int force_q = 0) {
  Call c;
  c.format = format;
  std::vector<int> len(profiles.size());
  for (size_t k = 0; k < profiles.size(); ++k) {
    if (!profiles[k]) throw Error("GPU MSV: missing profile");
    len[k] = profiles[k]->M;
  }
  c.plans = plan_packs(len, format, force_q);
  for (size_t k = 0; k < profiles.size(); ++k) {
    const MsvProfile& p = *profiles[k];
    ModelParams m;
    m.chunks = byte_chunks_for(p.M);
    m.full_profile = c.full_words;
    c.full_words += full_profile_words(m.chunks);
    m.targets = uint64_t(k) * n;
    m.base = p.base, m.bias = p.bias, m.tbm = p.tbm, m.tec = p.tec;
    c.models.push_back(m);
  }
  for (const PackPlan& plan : c.plans) {
    const uint64_t at = c.wprof.size();
    c.wprof.resize(at + profile_words(plan.q, format));
    pack_profile(profiles, plan, format, c.wprof.data() + at);
    c.packs.push_back(make_pack(plan, len, at));
    if (c.launches.empty() || c.launches.back().q != plan.q)
      c.launches.push_back({plan.q, uint32_t(c.packs.size() - 1), 0});
    ++c.launches.back().count;
  }
  return c;
}

// msv_filters.cpp's msv_nats: C->T, then the -3 nat approximation of the N/C/J loops.
inline float msv_nats(const MsvProfile& p, int xJ, int tjb) {
  float sc = float(xJ - tjb) - float(p.base);
  sc /= p.scale;
  return float(double(sc) - 3.0);
}

// ---- the warp emulator -----------------------------------------------------------------------
struct EmulatorStats {
  uint64_t targets = 0, rows = 0;       // (pack, target) runs and DP rows they ran
  uint64_t start_fallbacks = 0;         // models decided before any row
  uint64_t reached_overflow = 0, reached_fallback = 0;  // models decided at a check
  uint64_t final_scores = 0, final_overflow = 0, final_fallback = 0;
  uint64_t early_exits = 0;             // runs that stopped before the last row
  uint64_t capped_checks = 0;           // checks that clamped the cells
  int max_cell = 0;                     // largest 16-bit value seen in any cell (at the checks)
};

// The kernel's warp for one (pack, target), lane by lane: the same lane code, the shuffles as
// copies taken before the lanes update, the votes and reductions as loops. `tjb[j]`: pack
// model j's tjb for this target. Writes the result code of pack model j to res[j]; kFallback
// is left for the caller (the kernel runs its byte msv_full there).
template <int Q, int Format>
void emulate_target(const uint32_t* prof, const Pack& pack, const ModelParams* models, const uint8_t* tjb,
                    const uint8_t* seq, int L, int32_t* res, EmulatorStats* st = nullptr) {
  constexpr int P = words_per_lane(Q, Format);
  const int nm = int(pack.n_models);
  const uint32_t all = nm == 32 ? ~0u : (1u << nm) - 1u;
  if (st) ++st->targets;
  // Lane j holds pack model j's parameters and result.
  ModelParams mp[kLanes];
  int T[kLanes];
  uint32_t decided = 0;
  for (int l = 0; l < kLanes; ++l) {
    T[l] = kNoThreshold;
    if (l >= nm) continue;
    res[l] = 0;
    mp[l] = models[pack.model[l]];
    T[l] = threshold(mp[l]);
    if (falls_back_at_start(mp[l], tjb[l])) {
      res[l] = kFallback;
      decided |= 1u << l;
      if (st) ++st->start_fallbacks;
    }
  }
  uint32_t lane_models[kLanes], sel[kLanes], gate[kLanes], thr[kLanes][kMaxSubslots];
  int t_of[kLanes][2 * kMaxSubslots];
  const auto thresholds = [&](int l) {
    for (int t = 0; t < kMaxSubslots; ++t) thr[l][t] = lane_threshold(lane_models[l], t_of[l], decided, t);
  };
  for (int l = 0; l < kLanes; ++l) {
    lane_models[l] = pack.lane_models[l];
    sel[l] = diagonal_selector(pack.lane_links[l]);
    gate[l] = subslot_gate(pack.lane_links[l], Format == kF16);
    for (int t = 0; t < kMaxSubslots; ++t)
      for (int h = 0; h < 2; ++h) t_of[l][2 * t + h] = T[model_of(lane_models[l], t, h) & 31];
    thresholds(l);
  }
  if (decided == all) return;
  static thread_local LaneState<Q> s[kLanes];
  for (int l = 0; l < kLanes; ++l) lane_start(s[l]);
  bool stopped = false;
  LaneProfile<P> lp[kLanes];
  for (int l = 0; l < kLanes; ++l) lp[l] = lane_profile<P>(prof, l);
  for (int i0 = 0; i0 < L && !stopped; i0 += kCheckRows) {
    const int rows = std::min(kCheckRows, L - i0);
    for (int r = 0; r < rows; ++r) {
      const int code_off = code_offset<P>(seq[i0 + r]);
      uint32_t up[kLanes];
      for (int l = 0; l < kLanes; ++l) up[l] = s[l > 0 ? l - 1 : 0].row[Q - 1];  // shfl_up: lane 0 its own
      for (int l = 0; l < kLanes; ++l) lane_row<Q, Format>(s[l], lp[l], code_off, up[l], sel[l], gate[l]);
    }
    if (st) st->rows += uint64_t(rows);
    uint32_t newly = 0;
    for (int l = 0; l < kLanes; ++l) {
      const uint32_t b = lane_best(s[l]);
      if (st) st->max_cell = std::max({st->max_cell, half(b, 0), half(b, 1)});
      newly |= lane_reached(s[l], thr[l], lane_models[l]);
    }
    if (newly) {
      for (int l = 0; l < nm; ++l)
        if ((newly >> l) & 1u) {
          res[l] = reached_result(mp[l], tjb[l]);
          if (st) ++(res[l] == kFallback ? st->reached_fallback : st->reached_overflow);
        }
      decided |= newly;
      for (int l = 0; l < kLanes; ++l) thresholds(l);
      if (decided == all) {
        if (st && i0 + rows < L) ++st->early_exits;
        stopped = true;
        continue;
      }
    }
    if (decided) {
      for (int l = 0; l < kLanes; ++l) lane_cap(s[l]);
      if (st) ++st->capped_checks;
    }
  }
  const uint32_t undecided = all & ~decided;
  for (int m = 0; m < nm; ++m) {
    if (!((undecided >> m) & 1u)) continue;
    int mb = 0;
    for (int l = 0; l < kLanes; ++l) mb = std::max(mb, lane_model_best(s[l], lane_models[l], m));
    res[m] = final_result(mp[m], tjb[m], mb);
    if (st) ++(res[m] == kOverflow ? st->final_overflow : res[m] == kFallback ? st->final_fallback : st->final_scores);
  }
}

template <int Format>
inline void emulate_target(int q, const uint32_t* prof, const Pack& pack, const ModelParams* models,
                           const uint8_t* tjb, const uint8_t* seq, int L, int32_t* res, EmulatorStats* st) {
  switch (q) {
#define HPC_MSV16_EMU_CASE(Q) \
  case Q: return emulate_target<Q, Format>(prof, pack, models, tjb, seq, L, res, st);
    HPC_MSV16_FOR_EACH_Q(HPC_MSV16_EMU_CASE)
#undef HPC_MSV16_EMU_CASE
    default: throw Error("GPU MSV emulator: no kernel for " + std::to_string(q) + " nodes per slot");
  }
}

// What the kernels would compute for the call before their fallbacks: out[k * n + i] for model
// k and target i (kFallback where the byte msv_full takes over). tjb[k * n + i] as uploaded.
inline std::vector<int32_t> emulate_call(const Call& c, const std::vector<SeqView>& targets,
                                         const std::vector<uint8_t>& tjb, EmulatorStats* st = nullptr) {
  const size_t n = targets.size();
  std::vector<int32_t> out(c.models.size() * n, 0);
  for (const Call::Launch& launch : c.launches)
    for (uint32_t pk = launch.first; pk < launch.first + launch.count; ++pk) {
      const Pack& pack = c.packs[pk];
      for (size_t i = 0; i < n; ++i) {
        const SeqView v = targets[i];
        if (v.length == 0) continue;  // the kernel writes 0
        uint8_t t[kMaxModels];
        int32_t res[kMaxModels];
        for (uint32_t j = 0; j < pack.n_models; ++j) t[j] = tjb[c.models[pack.model[j]].targets + i];
        const uint32_t* prof = c.wprof.data() + pack.profile;
        const int L = int(v.length);
        if (c.format == kF16)
          emulate_target<kF16>(launch.q, prof, pack, c.models.data(), t, v.data, L, res, st);
        else if (c.format == kW8)
          emulate_target<kW8>(launch.q, prof, pack, c.models.data(), t, v.data, L, res, st);
        else if (c.format == kMix)
          emulate_target<kMix>(launch.q, prof, pack, c.models.data(), t, v.data, L, res, st);
        else
          emulate_target<kW16>(launch.q, prof, pack, c.models.data(), t, v.data, L, res, st);
        for (uint32_t j = 0; j < pack.n_models; ++j) out[c.models[pack.model[j]].targets + i] = res[j];
      }
    }
  return out;
}

}  // namespace hpc::hmm::msv16
