#include "src/hmm/sampled_domains.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace hpc::hmm {
namespace {

constexpr float kMinOverlap = 0.8f, kMinPosterior = 0.25f, kMinEndpointP = 0.02f;
constexpr int kMaxDiagDiff = 4;

bool linked(const SampledDomain& a, const SampledDomain& b) {
  int nov = std::min(a.j, b.j) - std::max(a.i, b.i) + 1;
  int n = std::min(a.j - a.i + 1, b.j - b.i + 1);
  if (float(nov) / float(n) < kMinOverlap) return false;
  nov = std::min(a.m, b.m) - std::max(a.k, b.k);  // (sic: HMMER's model overlap has no +1)
  n = std::min(a.m - a.k + 1, b.m - b.k + 1);
  if (float(nov) / float(n) < kMinOverlap) return false;
  if (std::abs((a.i - a.k) - (b.i - b.k)) <= kMaxDiagDiff) return true;
  return std::abs((a.j - a.m) - (b.j - b.m)) <= kMaxDiagDiff;
}

// esl_cluster_SingleLinkage, with its vertex stack order (cluster numbers depend on it).
std::vector<int> single_linkage(const std::vector<SampledDomain>& v, int* nclusters) {
  const int n = int(v.size());
  std::vector<int> a(n), b(n), c(n);
  for (int x = 0; x < n; ++x) a[x] = n - x - 1;
  int na = n, nb = 0, nc = 0;
  while (na > 0) {
    b[nb++] = a[--na];
    while (nb > 0) {
      const int x = b[--nb];
      c[x] = nc;
      for (int i = na - 1; i >= 0; --i)
        if (linked(v[x], v[a[i]])) {
          const int w = a[i];
          a[i] = a[na - 1];
          --na;
          b[nb++] = w;
        }
    }
    ++nc;
  }
  *nclusters = nc;
  return c;
}

// Leftmost (or rightmost) coordinate reached by >= threshold samples, else the most frequent.
int endpoint(const std::vector<int>& coords, int lo, int hi, int threshold, bool leftmost) {
  std::vector<int> epc(hi - lo + 1, 0);
  for (int x : coords) epc[x - lo]++;
  if (leftmost) {
    for (int x = lo; x <= hi; ++x)
      if (epc[x - lo] >= threshold) return x;
  } else {
    for (int x = hi; x >= lo; --x)
      if (epc[x - lo] >= threshold) return x;
  }
  return lo + int(std::max_element(epc.begin(), epc.end()) - epc.begin());
}

}  // namespace

std::vector<SampledDomain> cluster_sampled_domains(const std::vector<SampledDomain>& sp, int nsamples) {
  int nc = 0;
  const std::vector<int> assignment = single_linkage(sp, &nc);
  std::vector<SampledDomain> sig;
  for (int c = 0; c < nc; ++c) {
    int ninc = 0, last = -1;
    std::vector<int> is, js, ks, ms;
    for (size_t h = 0; h < sp.size(); ++h) {
      if (assignment[h] != c) continue;
      if (sp[h].idx != last) ++ninc;
      last = sp[h].idx;
      is.push_back(sp[h].i), js.push_back(sp[h].j), ks.push_back(sp[h].k), ms.push_back(sp[h].m);
    }
    if (float(ninc) / float(nsamples) < kMinPosterior) continue;
    const int threshold = int(std::ceil(float(ninc) * kMinEndpointP));
    auto lo = [](const std::vector<int>& x) { return *std::min_element(x.begin(), x.end()); };
    auto hi = [](const std::vector<int>& x) { return *std::max_element(x.begin(), x.end()); };
    SampledDomain d;
    d.i = endpoint(is, lo(is), hi(is), threshold, true);
    d.k = endpoint(ks, lo(ks), hi(ks), threshold, true);
    d.j = endpoint(js, lo(js), hi(js), threshold, false);
    d.m = endpoint(ms, lo(ms), hi(ms), threshold, false);
    if (d.i > d.j || d.k > d.m) continue;
    d.idx = c;
    d.prob = float(ninc) / float(nsamples);
    sig.push_back(d);
  }
  std::stable_sort(sig.begin(), sig.end(), [](const SampledDomain& x, const SampledDomain& y) { return x.i < y.i; });
  return sig;
}

}  // namespace hpc::hmm
