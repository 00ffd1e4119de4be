// forward_group's body, written once for every vector width: forward_group.cpp includes this
// file inside each width's namespace and target region, after defining `V`, the width's
// operations (kTargets targets of 4 lanes each; `Reg`; zero, add, mul, both (one 4-lane vector
// for every target), gather (each target's own), per_target (a scalar each), rightshift (HMMER's
// esl_sse_rightshift_ps with zero fill, per target), greater (which targets have a lane of a
// greater than b: bit t for target t), blend (b for the targets of a bit mask, else a), hsum
// (sse_hsum of one target's lanes)). No include guard: it is meant to be included repeatedly.

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
    // M >= 100 each target stops after its first pass that changes none of its cells.
    dcv = V::rightshift(dcv);
    D(0) = zerov;
    for (int q = 0; q < Q; ++q) {  // the chain through d in registers, not through the row's memory
      const Reg d = V::add(dcv, D(q));
      D(q) = d;
      dcv = V::mul(d, V::both(dd + q));
    }
    // A pass from an all-zero carry (every lane of every target: the values are never negative,
    // so "none greater than zero") adds +0 everywhere and changes nothing, nor do those after it.
    if (p.M < 100) {
      for (int j = 1; j < 4; ++j) {
        dcv = V::rightshift(dcv);
        if (!V::greater(dcv, zerov)) break;
        for (int q = 0; q < Q; ++q) {
          D(q) = V::add(dcv, D(q));
          dcv = V::mul(dcv, V::both(dd + q));
        }
      }
    } else {
      unsigned running = kAll;
      for (int j = 1; j < 4 && running; ++j) {
        dcv = V::rightshift(dcv);
        if (!V::greater(dcv, zerov)) break;
        unsigned changed = 0;
        for (int q = 0; q < Q; ++q) {
          sv = V::add(dcv, D(q));
          changed |= V::greater(sv, D(q));
          D(q) = running == kAll ? sv : V::blend(D(q), sv, running);
          dcv = V::mul(dcv, V::both(dd + q));
        }
        running &= changed;
      }
    }
    for (int q = 0; q < Q; ++q) xEv = V::add(D(q), xEv);
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
