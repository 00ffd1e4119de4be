#include "src/hmm/domain_definition.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/error.hpp"
#include "src/hmm/forward_backward.hpp"
#include "src/hmm/null2.hpp"
#include "src/hmm/optimal_accuracy.hpp"
#include "src/hmm/posterior.hpp"
#include "src/hmm/sampled_domains.hpp"

namespace hpc::hmm {
namespace {

constexpr float kRt1 = 0.25f, kRt2 = 0.10f, kRt3 = 0.20f;
constexpr int kSamples = 200;

bool is_multidomain_region(const DomainPosteriors& d, int i, int j) {
  float max = -1.0f;
  for (int z = i; z <= j; ++z) {
    const float expected = std::min(d.etot[z] - d.etot[i - 1], d.btot[j] - d.btot[z - 1]);
    max = std::max(max, expected);
  }
  return max >= kRt3;
}

// Samples traces of region i..j (its Forward matrix in ws.fwd), fills n2sc there, returns the clusters.
std::vector<SampledDomain> region_trace_ensemble(const uint8_t* seq, int ireg, int jreg, const FbProfile& p,
                                                 DomainWorkspace& ws, std::vector<float>& n2sc) {
  const int Lr = jreg - ireg + 1;
  std::fill(n2sc.begin() + ireg, n2sc.begin() + jreg + 1, 0.0f);
  ws.rng.reset(ws.seed);
  std::vector<SampledDomain> sp;
  for (int t = 0; t < kSamples; ++t) {
    stochastic_trace(ws.rng, Lr, p, ws.fwd, ws.trace);
    ws.trace.index();
    int pos = 1;
    for (const TraceDomain& d : ws.trace.domains) {
      SampledDomain s;
      s.idx = t, s.i = d.sqfrom + ireg - 1, s.j = d.sqto + ireg - 1, s.k = d.hmmfrom, s.m = d.hmmto;
      sp.push_back(s);
      const Null2 null2 = null2_by_trace(p, ws.trace, d.tfrom, d.tto);
      for (; pos <= d.sqfrom; ++pos) n2sc[ireg + pos - 1] += 1.0f;
      for (; pos <= d.sqto; ++pos) n2sc[ireg + pos - 1] += null2[seq[ireg + pos - 2]];
    }
    for (; pos <= Lr; ++pos) n2sc[ireg + pos - 1] += 1.0f;
  }
  for (int pos = ireg; pos <= jreg; ++pos) n2sc[pos] = std::log(n2sc[pos] / float(kSamples));

  std::vector<SampledDomain> sig = cluster_sampled_domains(sp, kSamples);
  // Drop clusters dominated (>= 80% overlap in sequence) by a more probable one.
  const int nc = int(sig.size());
  std::vector<char> dominated(nc, 0);
  for (int d = 0; d < nc; ++d)
    for (int d2 = d + 1; d2 < nc; ++d2) {
      const int nov = std::min(sig[d].j, sig[d2].j) - std::max(sig[d].i, sig[d2].i) + 1;
      if (nov == 0) break;
      const int n = std::min(sig[d].j - sig[d].i + 1, sig[d2].j - sig[d2].i + 1);
      if (float(nov) / float(n) >= 0.8f) {
        if (sig[d].prob > sig[d2].prob) dominated[d2] = 1;
        else dominated[d] = 1;
      }
    }
  std::vector<SampledDomain> kept;
  for (int d = 0; d < nc; ++d)
    if (!dominated[d]) kept.push_back(sig[d]);
  return kept;
}

// rescore_isolated_domain: false when posterior decoding overflows (no domain added).
bool rescore_envelope(const uint8_t* seq, int i, int j, bool null2_is_done, const FbProfile& p,
                      DomainWorkspace& ws, DomainDefinition& dd) {
  const int Ld = j - i + 1;
  EnvelopeDomain dom;
  dom.envsc = forward(seq + i - 1, Ld, p, ws.fwd, true);
  backward(seq + i - 1, Ld, p, ws.fwd, ws.bck, true);
  if (!decode_posteriors(p, ws.fwd, ws.bck, ws.bck)) return false;  // ws.bck now holds posteriors
  dom.oasc = optimal_accuracy(p, ws.bck, ws.fwd);                    // ws.fwd now holds OA scores
  optimal_accuracy_trace(p, ws.bck, ws.fwd, ws.trace);
  const Trace& tr = ws.trace;
  int z1 = 0, z2 = 0;
  while (z1 < tr.size() && tr.st[z1] != kStB) ++z1;
  while (z1 < tr.size() && tr.st[z1] != kStM) ++z1;
  for (z2 = z1; z2 < tr.size() && tr.st[z2] != kStE; ++z2) {}
  while (z2 >= 0 && tr.st[z2] != kStM) --z2;
  if (z1 >= tr.size() || z2 < 0) throw Error("optimal accuracy alignment without a match state");
  dom.iali = tr.i[z1] + i - 1, dom.jali = tr.i[z2] + i - 1;
  dom.hmmfrom = tr.k[z1], dom.hmmto = tr.k[z2];

  if (!null2_is_done) {
    const Null2 null2 = null2_by_expectation(p, ws.bck);
    for (int pos = i; pos <= j; ++pos) dd.n2sc[pos] = std::log(null2[seq[pos - 1]]);
  }
  float correction = 0.0f;
  for (int pos = i; pos <= j; ++pos) correction += dd.n2sc[pos];
  dom.domcorrection = correction;
  dom.ienv = i, dom.jenv = j;
  dd.domains.push_back(dom);
  dd.alignments.push_back(make_alignment_display(tr, z1, z2, p, ws.bck, seq + i - 1));
  return true;
}

}  // namespace

DomainDefinition define_domains(const uint8_t* seq, int L, FbProfile& p, const FbMatrix& fwd, const FbMatrix& bck,
                                DomainWorkspace& ws) {
  DomainDefinition dd;
  DomainPosteriors post;
  if (!decode_domains(p, fwd, bck, post))  // hmmsearch stops: "domain definition workflow failure"
    throw Error("domain definition: posterior decoding overflow on a target of " + std::to_string(L) + " residues");
  dd.n2sc.assign(L + 1, 0.0f);
  dd.nexpected = post.btot[L];
  p.configure(L, false);  // each domain is processed in unihit mode

  int i = -1;
  bool triggered = false;
  for (int j = 1; j <= L; ++j) {
    if (!triggered) {
      if (post.mocc[j] - (post.btot[j] - post.btot[j - 1]) < kRt2) i = j;
      else if (i == -1) i = j;
      if (post.mocc[j] >= kRt1) triggered = true;
    } else if (post.mocc[j] - (post.etot[j] - post.etot[j - 1]) < kRt2) {
      dd.nregions++;
      if (is_multidomain_region(post, i, j)) {
        dd.nclustered++;
        p.configure(L, true);
        forward(seq + i - 1, j - i + 1, p, ws.fwd, true);
        const std::vector<SampledDomain> clusters = region_trace_ensemble(seq, i, j, p, ws, dd.n2sc);
        p.configure(L, false);
        int last_j2 = 0;
        for (const SampledDomain& c : clusters) {
          if (c.i <= last_j2) dd.noverlaps++;
          dd.nenvelopes++;
          if (rescore_envelope(seq, c.i, c.j, true, p, ws, dd)) last_j2 = c.j;
        }
      } else {
        dd.nenvelopes++;
        rescore_envelope(seq, i, j, false, p, ws, dd);
      }
      i = -1;
      triggered = false;
    }
  }
  p.configure(L, true);
  return dd;
}

}  // namespace hpc::hmm
