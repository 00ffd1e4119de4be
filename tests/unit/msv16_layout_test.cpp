// Host side of the 16-bit DPX SSV kernel (kernels/cuda/msv16_layout.hpp, msv16_lane.hpp),
// checked on the CPU: the profile layout, the DPX and byte-permute emulation, the pack plan,
// and the warp emulator (the kernel's own lane code, lane by lane, with the kernel's 32-row
// checks, early exits and clamps) against hmm::msv_filter_score bit for bit: every protein
// test model, alone, all in one call (packed together as the GPU runs a tile), forced onto
// every compiled slot size, spliced models at the slot-size borders up to 4,096 nodes, a
// bias > 127 model, against balifam2000, 3,000 sequences of db2M and edge targets (length 1,
// single-residue runs, consensus runs up to 100,000 residues). Where the emulated SSV says
// "fallback" the CPU's full MSV answers, as the kernel's byte msv_full does.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <utility>

#include "gpu/vit_test_support.hpp"
#include "io/database.hpp"
#include "io/hmm_file.hpp"
#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cuda/msv16_layout.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

using namespace hpc;
using namespace hpc::hmm;
using hpc::test::data_path;
using Codes = std::vector<uint8_t>;

namespace {

constexpr int kFormats[] = {msv16::kW16, msv16::kMix, msv16::kW8, msv16::kF16};
const char* format_name(int f) {
  return f == msv16::kW8 ? "w8" : f == msv16::kMix ? "mix" : f == msv16::kF16 ? "f16" : "w16";
}

const std::vector<MsvProfile>& test_profiles() {
  static const std::vector<MsvProfile> p = [] {
    std::vector<MsvProfile> v;
    for (const HmmModel& m : test::vit::test_models()) v.push_back(build_msv_profile(m));
    return v;
  }();
  return p;
}

std::vector<const MsvProfile*> pointers(const std::vector<MsvProfile>& v) {
  std::vector<const MsvProfile*> p;
  for (const MsvProfile& m : v) p.push_back(&m);
  return p;
}

// The cheapest standard residue at every node (SSV's best diagonal).
Codes consensus(const MsvProfile& p) {
  Codes c;
  for (int k = 1; k <= p.M; ++k) {
    uint8_t best = 0;
    for (uint8_t code = 1; code < 20; ++code)
      if (p.row(code)[k] < p.row(best)[k]) best = code;
    c.push_back(best);
  }
  return c;
}

Codes repeated(const Codes& unit, size_t n) {
  Codes r;
  while (r.size() < n) r.insert(r.end(), unit.begin(), unit.end());
  r.resize(n);
  return r;
}

struct Targets {
  std::vector<Codes> owned;
  std::vector<SeqView> views;
  void add(Codes c) { owned.push_back(std::move(c)); }
  void finalize(const Database* db = nullptr, size_t first = 0, size_t count = 0, size_t step = 1) {
    views.clear();
    if (db)
      for (size_t t = first; t < db->seqs.ids.size() && t < first + count; t += step) views.push_back(db->seqs.view(t));
    for (const Codes& c : owned) views.push_back({c.data(), uint32_t(c.size())});
    views.push_back({nullptr, 0});  // empty: the kernel writes 0, never read
  }
};

// Edge targets for the models `ps`: every code alone, single-residue runs, consensus runs of
// each model (overflow, the fallback after best >= T, long growth past the threshold), mutated
// consensus (near the thresholds: the J-state fallback), random sequences of many lengths.
Targets edge_targets(const std::vector<const MsvProfile*>& ps, std::mt19937& rng, size_t longest = 20000) {
  Targets t;
  for (uint8_t code = 0; code < kAlphabetSize; ++code) t.add(Codes{code});
  for (char c : {'W', 'A', 'C', 'X', 'G'}) t.add(Codes(3000, encode_residue(static_cast<unsigned char>(c))));
  for (const MsvProfile* p : ps) {
    const Codes cons = consensus(*p);
    t.add(cons);
    t.add(repeated(cons, longest));
    for (int stride : {2, 3, 5}) {
      Codes m = cons;
      for (size_t i = 0; i < m.size(); i += size_t(stride)) m[i] = uint8_t(rng() % 20);
      t.add(m);
      Codes twice = m;
      twice.insert(twice.end(), 12, encode_residue('G'));
      twice.insert(twice.end(), m.begin(), m.end());
      t.add(twice);
    }
  }
  for (int len : {2, 3, 31, 32, 33, 63, 64, 65, 100, 1000, 4097}) t.add(test::vit::random_codes(rng, size_t(len)));
  return t;
}

// What the GPU call computes, emulated, against the CPU twin for every (model, target) pair.
struct Outcome {
  long pairs = 0, mismatches = 0, fallbacks = 0, infinite = 0;
  msv16::EmulatorStats st;
};

// CPU reference scores of one test, memoised per (profile, target) so that the variants of a
// call (formats, slot sizes) reuse them. Lives no longer than the profiles and targets.
struct CpuScores {
  std::map<std::tuple<const MsvProfile*, const uint8_t*, uint32_t>, float> memo;
  float operator()(const MsvProfile& p, const SeqView& v, FilterWorkspace& ws) {
    const auto key = std::make_tuple(&p, v.data, v.length);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
    const float s = msv_filter_score(p, v.data, int(v.length), ws);
    memo.emplace(key, s);
    return s;
  }
};

void check_call(const std::vector<const MsvProfile*>& ps, const std::vector<SeqView>& targets, int format, int force_q,
                Outcome& o, CpuScores& cpu_score) {
  const size_t n = targets.size();
  const msv16::Call call = msv16::plan_call(ps, format, n, force_q);
  std::vector<uint8_t> tjb(ps.size() * n);
  for (size_t k = 0; k < ps.size(); ++k)
    for (size_t i = 0; i < n; ++i) tjb[k * n + i] = ps[k]->tjb(int(targets[i].length));
  const std::vector<int32_t> out = msv16::emulate_call(call, targets, tjb, &o.st);
  FilterWorkspace ws;
  for (size_t k = 0; k < ps.size(); ++k)
    for (size_t i = 0; i < n; ++i) {
      const SeqView v = targets[i];
      if (v.length == 0) {
        EXPECT_EQ(out[k * n + i], 0);
        continue;
      }
      const MsvProfile& p = *ps[k];
      const int32_t code = out[k * n + i];
      float got;
      if (code == msv16::kOverflow) {
        got = std::numeric_limits<float>::infinity();
      } else if (code == msv16::kFallback) {
        ++o.fallbacks;
        got = msv_full_score(p, v.data, int(v.length), ws);
      } else {
        EXPECT_GE(code, 0);
        got = msv16::msv_nats(p, code, tjb[k * n + i]);
      }
      const float want = cpu_score(p, v, ws);
      ++o.pairs;
      o.infinite += std::isinf(want);
      if (test::float_bits(want) != test::float_bits(got) && ++o.mismatches <= 5)
        ADD_FAILURE() << "M=" << p.M << " (model " << k << ") target " << i << " (L=" << v.length << ", "
                      << format_name(format) << ", q " << force_q << "): cpu " << want << " emulated " << got
                      << " code " << code;
    }
}

void report(const char* what, const Outcome& o) {
  std::printf("  %s: %ld pairs, %ld mismatches, %ld fallbacks to the full MSV, %ld +inf; rows %llu, early exits %llu, "
              "start/reached-overflow/reached-fallback/final-overflow/final-fallback %llu/%llu/%llu/%llu/%llu, "
              "capped checks %llu, largest cell %d\n",
              what, o.pairs, o.mismatches, o.fallbacks, o.infinite, (unsigned long long)o.st.rows,
              (unsigned long long)o.st.early_exits, (unsigned long long)o.st.start_fallbacks,
              (unsigned long long)o.st.reached_overflow, (unsigned long long)o.st.reached_fallback,
              (unsigned long long)o.st.final_overflow, (unsigned long long)o.st.final_fallback,
              (unsigned long long)o.st.capped_checks, o.st.max_cell);
}

// The kernel's loads (load_words' device path: 16-byte groups at g4 + 512 b, an 8-byte group
// at g2, a word at g1, each plus the code's byte offset) read exactly word_offset's words.
template <int P>
void check_lane_profile() {
  static uint32_t prof[msv16::kCodes * 32 * P];
  const char* base = reinterpret_cast<const char*>(prof);
  constexpr int full = P & ~3;
  for (int lane = 0; lane < 32; ++lane) {
    const msv16::LaneProfile<P> lp = msv16::lane_profile<P>(prof, lane);
    for (int code : {0, 5, 23}) {
      const int off = msv16::code_offset<P>(code);
      for (int j = 0; j < P; ++j) {
        const char* at;
        if (j < full)
          at = lp.g4 + off + (j & ~3) * 32 * 4 + (j & 3) * 4;
        else if (P - full >= 2 && j < full + 2)
          at = lp.g2 + off + (j - full) * 4;
        else
          at = lp.g1 + off;
        ASSERT_EQ((at - base) % 4, 0);
        if (j < full && (j & 3) == 0) ASSERT_EQ((at - base) % 16, 0);
        if (j == full && P - full >= 2) ASSERT_EQ((at - base) % 8, 0);
        ASSERT_EQ(int((at - base) / 4), code * 32 * P + msv16::word_offset(P, j, lane)) << P << " " << lane << " " << j;
      }
    }
  }
}
template <int... Ps>
void check_lane_profiles(std::integer_sequence<int, Ps...>) {
  (check_lane_profile<Ps>(), ...);
}

}  // namespace

TEST(Msv16Layout, WordOffsetsCoverEveryWordOnceAligned) {
  for (int P = 1; P <= 64; ++P) {
    std::vector<int> seen(size_t(32 * P), 0);
    for (int lane = 0; lane < 32; ++lane)
      for (int j = 0; j < P; ++j) {
        const int o = msv16::word_offset(P, j, lane);
        ASSERT_GE(o, 0);
        ASSERT_LT(o, 32 * P);
        ++seen[size_t(o)];
        const int full = P & ~3;
        if (j < full && j % 4 == 0) EXPECT_EQ(o % 4, 0) << P;                 // 16-byte loads
        if (j >= full && j == full && P - full >= 2) EXPECT_EQ(o % 2, 0) << P;  // 8-byte loads
      }
    for (int c : seen) ASSERT_EQ(c, 1) << P;
  }
  for (int q : msv16::kQs)
    for (int format : kFormats) {
      EXPECT_EQ(msv16::profile_words(q, format) % 4, 0u);  // packs stay 16-byte aligned
      EXPECT_EQ(msv16::byte_words(q, format) % (format == msv16::kW8 ? 1 : 2), 0);
    }
  // Every words-per-lane count of a compiled (Q, format).
  const std::set<int> tested = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 16, 17, 18, 20,
                                21, 24, 25, 27, 28, 32, 34, 35, 40, 42, 47, 48, 49, 54, 56, 64};
  for (int q : msv16::kQs)
    for (int format : kFormats) EXPECT_TRUE(tested.count(msv16::words_per_lane(q, format))) << q << " " << format;
  check_lane_profiles(std::integer_sequence<int, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 20, 21, 24,
                                            25, 27, 28, 32, 34, 35, 40, 42, 47, 48, 49, 54, 56, 64>{});
  EXPECT_EQ(msv16::kMaxModelLength, 4096);
  EXPECT_EQ(msv16::q_for(1), 1);
  EXPECT_EQ(msv16::q_for(64), 1);
  EXPECT_EQ(msv16::q_for(65), 2);
  EXPECT_EQ(msv16::q_for(513), 10);
  EXPECT_EQ(msv16::q_for(4096), 64);
  EXPECT_EQ(msv16::q_for(4097), 0);
  EXPECT_EQ(msv16::byte_chunks_for(128), 1);
  EXPECT_EQ(msv16::byte_chunks_for(129), 2);
  EXPECT_EQ(msv16::byte_chunks_for(513), 6);
  EXPECT_EQ(msv16::byte_chunks_for(4096), 32);
}

// The host versions of the DPX intrinsics follow CUDA's definitions (add.s16x2 wraps, then
// max with c and 0 per signed half), the byte permutes PTX prmt's generic mode.
TEST(Msv16Layout, DpxAndPermuteEmulation) {
  using msv16::pack16;
  EXPECT_EQ(msv16::add_relu(pack16(5, 100), pack16(-7, 27)), pack16(0, 127));
  EXPECT_EQ(msv16::add_relu(pack16(32767, 4191), pack16(1, -127)), pack16(0, 4064));  // 32767 + 1 wraps: relu 0
  EXPECT_EQ(msv16::max3_relu(pack16(-3, 9), pack16(-1, 2), pack16(-2, 30)), pack16(0, 30));
  EXPECT_EQ(msv16::max_relu(pack16(4, -9), pack16(3, -1)), pack16(4, 0));
  EXPECT_EQ(msv16::min_relu(pack16(4191, 5), pack16(127, 127)), pack16(127, 5));
  const uint32_t p = 0x80ff017fu;  // signed bytes 127, 1, -1, -128
  EXPECT_EQ(msv16::w8_even(p), pack16(127, 1));
  EXPECT_EQ(msv16::w8_odd(p), pack16(-1, -128));
  // Word 0's diagonal input from cells (values in [0, 4191]): both halves continue, only the
  // high half continues, neither.
  const uint32_t up = pack16(4191, 17), last = pack16(3000, 255);
  EXPECT_EQ(msv16::diagonal_in(up, last, msv16::diagonal_selector(0b11)), pack16(17, 3000));
  EXPECT_EQ(msv16::diagonal_in(up, last, msv16::diagonal_selector(0b10)), pack16(0, 3000));
  EXPECT_EQ(msv16::diagonal_in(up, last, msv16::diagonal_selector(0b01)), pack16(17, 0));
  EXPECT_EQ(msv16::diagonal_in(up, last, msv16::diagonal_selector(0b1100)), 0u);  // sub-slot 1's bits: no effect
  // Sub-slot 1's first word: the gate passes the diagonal input of a half that continues its
  // model and zeroes it where a model starts, as an AND mask (DPX words) or as the fma's
  // multiplier (fp16 words, where a zeroed input leaves max(w, 0)).
  const uint32_t d = pack16(4191, 60), wv = pack16(-5, 7);
  EXPECT_EQ(msv16::add_relu(d & msv16::subslot_gate(0b0100, false), wv), pack16(4186, 7));
  EXPECT_EQ(msv16::add_relu(d & msv16::subslot_gate(0b1000, false), wv), pack16(0, 67));
  EXPECT_EQ(msv16::subslot_gate(0b0011, false), 0u);  // sub-slot 0's bits: no effect
  const uint32_t wf = msv16::f16_bits(-5) | (msv16::f16_bits(7) << 16), dc = pack16(100, 60);
  EXPECT_EQ(msv16::f16_gated_add_relu(dc, msv16::subslot_gate(0b1100, true), wf), pack16(95, 67));
  EXPECT_EQ(msv16::f16_gated_add_relu(dc, msv16::subslot_gate(0b0100, true), wf), pack16(95, 7));
  EXPECT_EQ(msv16::f16_gated_add_relu(dc, msv16::subslot_gate(0b1000, true), wf), pack16(0, 67));
  // Thresholds per sub-slot and half: none / decided -> 32767, never reached. Lane models: sub-slot
  // 0 holds models 3 (low half) and 4 (high half), sub-slot 1 models 4 and none.
  const uint32_t models = 3u | (4u << 8) | (4u << 16) | (uint32_t(msv16::kNoModel) << 24);
  const int t_of[4] = {100, 90, 90, 0};
  EXPECT_EQ(msv16::lane_threshold(models, t_of, 0, 0), pack16(100, 90));
  EXPECT_EQ(msv16::lane_threshold(models, t_of, 0, 1), pack16(90, 32767));
  EXPECT_EQ(msv16::lane_threshold(models, t_of, 1u << 4, 0), pack16(100, 32767));
  EXPECT_EQ(msv16::lane_threshold(models, t_of, 1u << 4, 1), pack16(32767, 32767));
  const uint32_t thr[2] = {msv16::lane_threshold(models, t_of, 0, 0), msv16::lane_threshold(models, t_of, 0, 1)};
  msv16::LaneState<2> st{};  // Q = 2: one word per sub-slot
  st.best[0] = pack16(100, 89), st.best[1] = pack16(12, 4000);
  EXPECT_EQ(msv16::lane_reached(st, thr, models), 1u << 3);  // 4000 is in no model's half
  st.best[1] = pack16(91, 0);
  EXPECT_EQ(msv16::lane_reached(st, thr, models), (1u << 3) | (1u << 4));
  EXPECT_EQ(msv16::lane_model_best(st, models, 4), 91);  // the max over model 4's two sub-slots
  EXPECT_EQ(msv16::lane_model_best(st, models, 3), 100);
  EXPECT_EQ(msv16::lane_model_best(st, models, 5), 0);
}

// kF16's cells: fma.rn.relu on fp16 patterns read as multiples of 2^-24. Every cell and step
// (-127..127) whose sum stays below 2048 (an undecided model's cells are below 127) gives the
// int16 DPX cell bit for bit; above 2048 (decided models only) the pattern stays non-negative and grows by at
// most the step (as a bit pattern, which the integer maxima and clamps read), which keeps the
// kCellBound bound of the exactness argument.
TEST(Msv16Layout, Fp16CellsAreInt16CellsBelow2048) {
  using msv16::pack16;
  for (int w = -127; w <= 127; ++w) {
    const uint32_t wb = msv16::f16_bits(w);
    EXPECT_EQ(msv16::f16_units(wb), w);
    for (int c = 0; c + 127 < 2048; ++c) {
      const uint32_t got = msv16::f16_add_relu(pack16(c, 1920 - c), wb | (wb << 16));
      ASSERT_EQ(got, msv16::add_relu(pack16(c, 1920 - c), pack16(w, w))) << c << " " << w;
    }
    for (int c = 2048; c <= msv16::kCellBound; ++c) {
      const uint32_t got = msv16::f16_add_relu(uint32_t(c), wb) & 0xffffu;
      ASSERT_LE(got, uint32_t(c + (w > 0 ? w : 0))) << c << " " << w;
      ASSERT_LT(got, 0x8000u);
    }
  }
  // The host rounding against the compiler's fp16 conversion (round to nearest even).
#if defined(__FLT16_MAX__)
  for (int v = 0; v < (1 << 16); ++v) {
    const _Float16 h = _Float16(std::ldexp(double(v), -24));
    uint16_t bits;
    std::memcpy(&bits, &h, sizeof bits);
    ASSERT_EQ(msv16::f16_round(v), uint32_t(bits)) << v;
    ASSERT_EQ(msv16::f16_units(bits), int(std::ldexp(double(h), 24))) << v;
  }
#endif
  EXPECT_EQ(msv16::f16_round(2049), 2048u);  // 2049 units: halfway between 2048 and 2050, even
  EXPECT_EQ(msv16::f16_units(msv16::f16_round(2051)), 2052);
}

// Every node's w lands in its sub-slot and word, every format; padding and empty sub-slots cost
// -127; the link bits say which sub-slots continue a model, and some models start mid-slot (at
// sub-slot 1, where the gate zeroes the diagonal input).
TEST(Msv16Layout, PackedProfileHoldsEveryNodeOnce) {
  const std::vector<const MsvProfile*> ps = pointers(test_profiles());
  std::vector<int> len;
  for (const MsvProfile* p : ps) len.push_back(p->M);
  int mid_slot_starts = 0;
  for (int format : kFormats)
    for (int force_q : {0, 10, 24})
      for (const msv16::PackPlan& plan : msv16::plan_packs(len, format, force_q)) {
        const int Q = plan.q, P = msv16::words_per_lane(Q, format), Q16 = Q - msv16::byte_words(Q, format);
        const int g = msv16::subslot_nodes(Q);
        if (format == msv16::kMix && Q >= 8) EXPECT_GT(msv16::byte_words(Q, format), 0);
        std::vector<uint32_t> w(msv16::profile_words(Q, format));
        msv16::pack_profile(ps, plan, format, w.data());
        const msv16::Pack pack = msv16::make_pack(plan, len, 0);
        const msv16::UnitMap um = msv16::unit_map(plan, len);
        std::vector<std::set<int>> nodes(plan.models.size());
        for (int code = 0; code < msv16::kCodes; ++code)
          for (int lane = 0; lane < 32; ++lane)
            for (int q = 0; q < Q; ++q) {
              const uint32_t* base = w.data() + size_t(code) * 32 * size_t(P);
              uint32_t word;
              if (q < Q16) {
                word = base[msv16::word_offset(P, q, lane)];
                if (format == msv16::kF16)  // fp16 words: the step in units of 2^-24
                  word = msv16::pack16(msv16::f16_units(word & 0xffffu), msv16::f16_units(word >> 16));
              } else {
                const uint32_t b = base[msv16::word_offset(P, Q16 + (q - Q16) / 2, lane)];
                word = ((q - Q16) & 1) ? msv16::w8_odd(b) : msv16::w8_even(b);
              }
              const int t = q / g;  // the word's sub-slot in its slot
              for (int h = 0; h < 2; ++h) {
                const int u = msv16::subslots(Q) * (2 * lane + h) + t;
                const int j = msv16::model_of(pack.lane_models[lane], t, h);
                const int got = msv16::half(word, h);
                if (j == msv16::kNoModel) {
                  EXPECT_EQ(um.owner[u], -1);
                  EXPECT_EQ(got, msv16::kPadW);
                  continue;
                }
                ASSERT_EQ(um.owner[u], j);
                const int first = um.first[j];
                const MsvProfile& p = *ps[plan.models[size_t(j)]];
                const int k = (u - first) * g + (q - t * g) + 1;
                EXPECT_EQ(got, k <= p.M ? msv16::ssv_step(p, code, k) : msv16::kPadW) << "code " << code << " k " << k;
                if (code == 0 && k <= p.M) EXPECT_TRUE(nodes[size_t(j)].insert(k).second);
                // A sub-slot's first word continues the model exactly inside it.
                if (q == t * g) {
                  EXPECT_EQ(msv16::links(pack.lane_links[lane], t, h), u != first);
                  mid_slot_starts += code == 0 && u == first && t == 1;
                }
              }
            }
        for (size_t j = 0; j < plan.models.size(); ++j)
          EXPECT_EQ(int(nodes[j].size()), ps[plan.models[j]]->M) << "model " << plan.models[j];
      }
  EXPECT_GT(mid_slot_starts, 0);
}

// The full-MSV profile of the fallbacks (msv_full16.cuh): per code, chunk and lane two int16
// pairs, the negated costs of the lane's four nodes of the chunk, 255 past M; each pair word is
// the byte profile's word split in two.
TEST(Msv16Layout, FullProfileHoldsNegatedCosts) {
  for (const MsvProfile& p : test_profiles()) {
    const int chunks = msv16::byte_chunks_for(p.M);
    const std::vector<uint32_t> w = msv16::full_profile(p, chunks);
    ASSERT_EQ(w.size(), msv16::full_profile_words(chunks));
    for (int code = 0; code < msv16::kCodes; ++code)
      for (int c = 0; c < chunks; ++c)
        for (int lane = 0; lane < 32; ++lane)
          for (int j = 0; j < 4; ++j) {
            const int k = 128 * c + 4 * lane + j + 1;
            const uint32_t word = w[((size_t(code) * chunks + c) * 32 + lane) * 2 + j / 2];
            const int cost = k <= p.M ? int(p.row(uint8_t(code))[k]) : 255;
            ASSERT_EQ(msv16::half(word, j % 2), -cost) << p.M << " code " << code << " k " << k;
          }
  }
}

TEST(Msv16Layout, PlanPacksEveryModelOnceWithinTheWarp) {
  std::mt19937 rng(3);
  std::vector<std::vector<int>> sets;
  std::vector<int> tests;
  for (const MsvProfile& p : test_profiles()) tests.push_back(p.M);
  sets.push_back(tests);
  sets.push_back({4096});
  sets.push_back({4096, 1, 4096, 65, 64});
  for (int n : {1, 5, 33, 40, 100}) {
    std::vector<int> s;
    for (int i = 0; i < n; ++i) s.push_back(1 + int(rng() % (i % 3 ? 400 : 4096)));
    sets.push_back(s);
  }
  sets.push_back(std::vector<int>(70, 1));  // more than 32 models of one slot each
  for (const auto& len : sets)
    for (int format : kFormats) {
      const auto plans = msv16::plan_packs(len, format);
      std::vector<int> count(len.size(), 0);
      int last_q = 0;
      double cost = 0, nodes = 0, padded = 0;
      for (const auto& p : plans) {
        EXPECT_TRUE(msv16::is_compiled_q(p.q));
        EXPECT_GE(p.q, last_q);  // ordered by q: one launch each
        last_q = p.q;
        EXPECT_LE(p.models.size(), size_t(msv16::kMaxModels));
        int units = 0;
        for (uint32_t m : p.models) {
          ++count[m];
          units += msv16::units_for(len[m], p.q);
          nodes += len[m];
        }
        EXPECT_LE(units, msv16::pack_units(p.q));
        cost += msv16::pack_row_cost(p.q, format);
        padded += 64.0 * p.q;
      }
      for (int c : count) EXPECT_EQ(c, 1);
      // Sub-slots let the test models fill one pack of the default format (kF16): 1,235 nodes,
      // 96% of a Q = 20 pack (whole slots: 80% of a Q = 24 pack).
      if (len == tests && format == msv16::kF16) EXPECT_GE(nodes / padded, 0.9);
      if (len == tests)
        std::printf("  test models (%s): %zu pack(s), estimated cost %.1f per row, %.0f of %.0f cells real (%.0f%%)\n",
                    format_name(format), plans.size(), cost, nodes, padded, 100 * nodes / padded);
    }
  EXPECT_NE(test::error_of([] { msv16::plan_packs({4097}, false); }), "(no error)");
  EXPECT_NE(test::error_of([] { msv16::plan_packs({0}, false); }), "(no error)");
  EXPECT_NE(test::error_of([] { msv16::plan_packs({100}, false, 1); }), "(no error)");  // 100 > 64 x 1
  EXPECT_NE(test::error_of([] { msv16::plan_packs({10}, false, 9); }), "(no error)");   // no such kernel
}

// The GPU's shape: every protein test model in one call (packed together), balifam2000 and
// 3,000 sequences of db2M, plus edge targets up to 100,000 residues; both profile formats.
TEST(Msv16Layout, EmulatedKernelEqualsCpuOnAllModelsTogether) {
  const std::vector<const MsvProfile*> ps = pointers(test_profiles());
  const Database bali = load_database(data_path("balifam2000.fa"));
  const Database db2m = load_database(data_path("db2M.fa"));
  std::mt19937 rng(5);
  Targets edges = edge_targets(ps, rng);
  edges.add(repeated(consensus(*ps.back()), 100000));
  edges.finalize();
  Targets b, d;
  b.finalize(&bali, 0, bali.seqs.ids.size());
  d.finalize(&db2m, 0, 3000);
  CpuScores cpu;
  for (int format : kFormats) {
    Outcome o;
    check_call(ps, b.views, format, 0, o, cpu);
    check_call(ps, d.views, format, 0, o, cpu);
    check_call(ps, edges.views, format, 0, o, cpu);
    report((std::string("all models, ") + format_name(format)).c_str(), o);
    EXPECT_EQ(o.mismatches, 0);
    EXPECT_GT(o.pairs, 50000);
    EXPECT_GT(o.st.reached_overflow, 0u);
    EXPECT_GT(o.st.reached_fallback, 0u);
    EXPECT_GT(o.st.final_fallback, 0u);
    EXPECT_GT(o.st.capped_checks, 0u);
    EXPECT_LE(o.st.max_cell, msv16::kCellBound);  // the bound of msv16_lane.hpp: no 16-bit wrap
    EXPECT_GT(o.st.max_cell, 127);             // the long consensus runs did grow past the threshold
  }
}

// Each model alone in its call (its own smallest slot size).
TEST(Msv16Layout, EmulatedKernelEqualsCpuPerModel) {
  const std::vector<const MsvProfile*> all = pointers(test_profiles());
  const Database bali = load_database(data_path("balifam2000.fa"));
  std::mt19937 rng(9);
  Outcome o;
  CpuScores cpu;
  for (const MsvProfile* p : all) {
    Targets t = edge_targets({p}, rng);
    t.finalize(&bali, 0, 2000, 3);
    for (int format : kFormats) check_call({p}, t.views, format, 0, o, cpu);
  }
  report("each model alone", o);
  EXPECT_EQ(o.mismatches, 0);
  EXPECT_GT(o.st.early_exits, 0u);  // a lone model decided before the target's end stops the warp
}

// Every compiled slot size (kernel template), both formats, for a short, a middle and a long
// model sharing the pack when they fit.
TEST(Msv16Layout, EmulatedKernelEqualsCpuOnEverySlotSize) {
  const std::vector<const MsvProfile*> all = pointers(test_profiles());
  const Database bali = load_database(data_path("balifam2000.fa"));
  std::vector<const MsvProfile*> trio;
  for (const MsvProfile* p : all)
    if (p->M == 1 || p->M == 86 || p->M == 400) trio.push_back(p);
  ASSERT_EQ(trio.size(), 3u);
  std::mt19937 rng(13);
  Targets t = edge_targets(trio, rng, 3000);
  t.finalize(&bali, 5, 2000, 40);
  Outcome o;
  CpuScores cpu;
  for (int q : msv16::kQs) {
    std::vector<const MsvProfile*> fit;
    for (const MsvProfile* p : trio)
      if (p->M <= 64 * q) fit.push_back(p);
    for (int format : kFormats) check_call(fit, t.views, format, q, o, cpu);
  }
  report("every slot size", o);
  EXPECT_EQ(o.mismatches, 0);
}

// Spliced models at the slot-size borders up to the 4,096-node maximum (several to a pack, and
// alone), and a model with bias > 127, which always falls back before any row.
TEST(Msv16Layout, EmulatedKernelEqualsCpuAtSlotBordersAndOddModels) {
  const std::vector<HmmModel> parts = test::vit::splice_parts();
  std::vector<MsvProfile> owned;
  for (int M : {63, 64, 65, 127, 128, 129, 383, 384, 385, 640, 641, 1024, 1025, 2048, 3000, 4095, 4096})
    owned.push_back(build_msv_profile(test::vit::splice_models(parts, M)));
  MsvProfile heavy = test_profiles().at(4);  // fn3 with a bias past 127 (costs rebiased alike)
  heavy.bias = 140;
  for (uint8_t& c : heavy.cost) c = uint8_t(std::min(255, int(c) + 120));
  owned.push_back(heavy);
  const std::vector<const MsvProfile*> ps = pointers(owned);
  const Database bali = load_database(data_path("balifam2000.fa"));
  std::mt19937 rng(17);
  Targets t = edge_targets({ps[5], ps[16], ps[17]}, rng, 9000);
  t.finalize(&bali, 11, 2000, 25);
  Outcome o;
  CpuScores cpu;
  for (int format : kFormats) {
    check_call(ps, t.views, format, 0, o, cpu);  // packed by the planner
    for (const MsvProfile* p : {ps[1], ps[2], ps[15], ps[16]}) check_call({p}, t.views, format, 0, o, cpu);
  }
  report("spliced models and bias > 127", o);
  EXPECT_EQ(o.mismatches, 0);
  EXPECT_GT(o.st.start_fallbacks, 0u);
}

// Many tiny models: full packs of 32 models (every lane a model's), several packs per launch.
TEST(Msv16Layout, EmulatedKernelEqualsCpuWithFullPacks) {
  const std::vector<HmmModel> parts = test::vit::splice_parts();
  std::vector<MsvProfile> owned;
  for (int i = 0; i < 70; ++i) owned.push_back(build_msv_profile(test::vit::splice_models(parts, 1 + i % 3)));
  const std::vector<const MsvProfile*> ps = pointers(owned);
  const Database bali = load_database(data_path("balifam2000.fa"));
  std::mt19937 rng(19);
  Targets t = edge_targets({ps[0], ps[1], ps[2]}, rng, 2000);
  t.finalize(&bali, 3, 2000, 50);
  Outcome o;
  CpuScores cpu;
  for (int format : kFormats) {
    const msv16::Call call = msv16::plan_call(ps, format, t.views.size());
    size_t full = 0;
    for (const msv16::Pack& p : call.packs) full += p.n_models == 32;
    EXPECT_GE(full, 2u);
    check_call(ps, t.views, format, 0, o, cpu);
  }
  report("full packs of tiny models", o);
  EXPECT_EQ(o.mismatches, 0);
}
