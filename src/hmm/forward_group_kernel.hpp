// forward_group's body, written once for every vector width: forward_group.cpp includes this
// file inside each width's namespace and target region, after defining `V`, the width's
// operations (kTargets targets of 4 lanes each; `Reg`; zero, add, mul, both (one 4-lane vector
// for every target), gather (each target's own), per_target (a scalar each), rightshift (HMMER's
// esl_sse_rightshift_ps with zero fill, per target), greater (which targets have a lane of a
// greater than b: bit t for target t), greater_lanes (the same a lane: `Lanes`, bit 4t + k for
// lane k of target t) and targets_of (lane bits to target bits), blend (b for the targets of a
// bit mask, else a), hsum (sse_hsum of one target's lanes)). No include guard: it is meant to be
// included repeatedly.

// Two of a width's registers side by side as one of twice the targets: every step runs on both
// halves, so the serial chains of the row (the first D->D pass, its extensions, the E sum) of
// one half overlap the other's instead of waiting on their own adds' and multiplies' latency.
template <class W>
struct Twice {
  struct Reg {
    typename W::Reg a, b;
  };
  using Lanes = uint64_t;
  static constexpr int kTargets = 2 * W::kTargets;
  static constexpr int kLanes = 4 * W::kTargets;  // lane bits of one half
  static constexpr unsigned kHalf = (1u << W::kTargets) - 1;
  static Reg zero() { return {W::zero(), W::zero()}; }
  static Reg add(Reg x, Reg y) { return {W::add(x.a, y.a), W::add(x.b, y.b)}; }
  static Reg mul(Reg x, Reg y) { return {W::mul(x.a, y.a), W::mul(x.b, y.b)}; }
  static Reg both(const __m128* v) {
    const typename W::Reg x = W::both(v);
    return {x, x};
  }
  static Reg gather(const __m128* const* r, int q) { return {W::gather(r, q), W::gather(r + W::kTargets, q)}; }
  static Reg per_target(const float* s) { return {W::per_target(s), W::per_target(s + W::kTargets)}; }
  static Reg rightshift(Reg v) { return {W::rightshift(v.a), W::rightshift(v.b)}; }
  static unsigned greater(Reg x, Reg y) { return W::greater(x.a, y.a) | W::greater(x.b, y.b) << W::kTargets; }
  static Lanes greater_lanes(Reg x, Reg y) {
    return Lanes(W::greater_lanes(x.a, y.a)) | Lanes(W::greater_lanes(x.b, y.b)) << kLanes;
  }
  static unsigned targets_of(Lanes l) {
    using Half = typename W::Lanes;
    return W::targets_of(Half(l & ((Lanes(1) << kLanes) - 1))) | W::targets_of(Half(l >> kLanes)) << W::kTargets;
  }
  static Reg blend(Reg x, Reg y, unsigned targets) {
    return {W::blend(x.a, y.a, targets & kHalf), W::blend(x.b, y.b, targets >> W::kTargets)};
  }
  static float hsum(Reg v, int t) { return t < W::kTargets ? W::hsum(v.a, t) : W::hsum(v.b, t - W::kTargets); }
};

// forward()'s steps (forward_backward.cpp) on kTargets targets at once; `in` holds kTargets.
template <class V>
void run_group(const FbProfile& p, const GroupTarget* in, std::vector<float>& row, GroupSpecials* sp) {
  using Reg = typename V::Reg;
  constexpr int T = V::kTargets;
  constexpr unsigned kAll = (1u << T) - 1;
  const int Q = p.Q;
  // 3Q cells (M, D, I of segment q at 3q, 3q+1, 3q+2), aligned to 64 bytes.
  row.resize(size_t(3 * Q) * 4 * T + 16);
  float* base = row.data();
  while (reinterpret_cast<uintptr_t>(base) % 64) ++base;
  Reg* dp = reinterpret_cast<Reg*>(base);
  const auto M = [dp](int q) -> Reg& { return dp[3 * q]; };
  const auto D = [dp](int q) -> Reg& { return dp[3 * q + 1]; };
  const auto I = [dp](int q) -> Reg& { return dp[3 * q + 2]; };
  const Reg zerov = V::zero();
  for (int j = 0; j < 3 * Q; ++j) dp[j] = zerov;

  const __m128* tfv = p.tfv.data();
  const __m128* dd = tfv + 7 * Q;
  int rows = 0;
  for (int t = 0; t < T; ++t) rows = std::max(rows, in[t].L);
  for (int i = 1; i <= rows; ++i) {
    // A target past its last row runs on (its lanes are never read again) on residue code 0.
    const __m128* rp[T];
    float xb[T];
    for (int t = 0; t < T; ++t) {
      rp[t] = p.emit(i <= in[t].L ? in[t].seq[i - 1] : uint8_t(0));
      xb[t] = sp[t].xB;
    }
    const __m128* tp = tfv;
    Reg dcv = zerov, xEv = zerov, sv;
    const Reg xBv = V::per_target(xb);
    Reg mpv = V::rightshift(M(Q - 1)), dpv = V::rightshift(D(Q - 1)), ipv = V::rightshift(I(Q - 1));
    for (int q = 0; q < Q; ++q) {
      sv = V::mul(xBv, V::both(tp++));
      sv = V::add(sv, V::mul(mpv, V::both(tp++)));
      sv = V::add(sv, V::mul(ipv, V::both(tp++)));
      sv = V::add(sv, V::mul(dpv, V::both(tp++)));
      sv = V::mul(sv, V::gather(rp, q));
      xEv = V::add(xEv, sv);
      mpv = M(q), dpv = D(q), ipv = I(q);
      M(q) = sv;
      D(q) = dcv;
      dcv = V::mul(sv, V::both(tp++));
      sv = V::mul(mpv, V::both(tp++));
      I(q) = V::add(sv, V::mul(ipv, V::both(tp++)));
    }
    // D->D paths: one pass with the M->D contributions, then serialized extensions; for
    // M >= 100 each target stops after its first pass that changes none of its cells. Each
    // pass also sums E (the M terms, then D(0), D(1), ... in HMMER's order) from the cells it
    // leaves: the last pass's sum is the row's, without a loop of its own after the passes.
    const Reg xMv = xEv;
    dcv = V::rightshift(dcv);
    D(0) = zerov;
    for (int q = 0; q < Q; ++q) {  // the chain through d in registers, not through the row's memory
      const Reg d = V::add(dcv, D(q));
      D(q) = d;
      xEv = V::add(d, xEv);
      dcv = V::mul(d, V::both(dd + q));
    }
    // A pass from an all-zero carry (every lane of every target: the values are never negative,
    // so "none greater than zero") adds +0 everywhere and changes nothing, nor do those after it.
    if (p.M < 100) {
      for (int j = 1; j < 4; ++j) {
        dcv = V::rightshift(dcv);
        if (!V::greater(dcv, zerov)) break;
        xEv = xMv;
        for (int q = 0; q < Q; ++q) {
          const Reg d = V::add(dcv, D(q));
          D(q) = d;
          xEv = V::add(d, xEv);
          dcv = V::mul(dcv, V::both(dd + q));
        }
      }
    } else {
      unsigned running = kAll;
      for (int j = 1; j < 4 && running; ++j) {
        dcv = V::rightshift(dcv);
        if (!V::greater(dcv, zerov)) break;
        xEv = xMv;
        typename V::Lanes changed = 0;  // lane bits in the loop, target bits once after it
        for (int q = 0; q < Q; ++q) {
          sv = V::add(dcv, D(q));
          changed |= V::greater_lanes(sv, D(q));
          const Reg d = running == kAll ? sv : V::blend(D(q), sv, running);
          D(q) = d;
          xEv = V::add(d, xEv);
          dcv = V::mul(dcv, V::both(dd + q));
        }
        running &= V::targets_of(changed);
      }
    }
    float s[T];
    unsigned scaled = 0;  // the targets whose row is rescaled
    for (int t = 0; t < T; ++t) {
      const float scale = i <= in[t].L ? sp[t].row(i, V::hsum(xEv, t)) : 1.0f;
      s[t] = 1.0f;
      if (scale != 1.0f) scaled |= 1u << t, s[t] = lanes::recip(scale);
    }
    if (scaled) {
      const Reg sv_scale = V::per_target(s);
      for (int j = 0; j < 3 * Q; ++j) dp[j] = V::blend(dp[j], V::mul(dp[j], sv_scale), scaled);
    }
  }
}
