#include "src/hmm/hmmsearch_hits.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "src/core/error.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

namespace hpc::hmm {

ReportThresholds model_cutoff_thresholds(const HmmModel& model, const std::string& which) {
  const HmmCutoff& c = which == "GA" ? model.ga : which == "TC" ? model.tc : model.nc;
  if (!c.set) throw Error(which + " bit thresholds unavailable on model " + model.name);
  ReportThresholds t;
  t.use_bit_cutoffs = true;
  t.seq_cutoff = c.seq, t.dom_cutoff = c.dom;
  return t;
}

HitList finish_hits(std::vector<TargetHit> hits, double Z, const ReportThresholds& t, const HitCutoffs& cutoffs) {
  const HmmerFloatMode mode;
  const auto cutoff = [&](const TargetHit& h) {
    return cutoffs ? cutoffs(h) : std::pair<float, float>(t.seq_cutoff, t.dom_cutoff);
  };
  const auto kept_by_pipeline = [&](const TargetHit& h) {  // p7_pli_TargetReportable during the search
    if (t.use_bit_cutoffs) return h.score >= cutoff(h).first;
    if (!t.by_E) return double(h.score) >= t.T;
    return std::exp(h.lnP) * (t.Z > 0.0 ? t.Z : double(h.index + 1)) <= t.E;
  };
  hits.erase(std::remove_if(hits.begin(), hits.end(), [&](const TargetHit& h) { return !kept_by_pipeline(h); }),
             hits.end());
  std::sort(hits.begin(), hits.end(), [&](const TargetHit& a, const TargetHit& b) {
    // sortkey: -lnP when inclusion is by E-value, the score under bit cut-offs or --incT (in
    // hmmscan the two orders differ: each model has its own score distribution)
    const bool by_score = t.use_bit_cutoffs || !t.inc_by_E;
    const double ka = by_score ? double(a.score) : -a.lnP, kb = by_score ? double(b.score) : -b.lnP;
    if (ka != kb) return ka > kb;
    const int c = std::strcmp(a.name.c_str(), b.name.c_str());
    if (c != 0) return c < 0;
    if (a.domains[0].env.iali != b.domains[0].env.iali) return a.domains[0].env.iali < b.domains[0].env.iali;
    return a.index < b.index;  // duplicated records: file order, as hmmsearch --cpu 1's stable qsort leaves them
  });
  HitList list;
  list.Z = Z;
  for (TargetHit& h : hits) {
    if (t.use_bit_cutoffs) {
      h.reported = h.included = true;  // every kept target scores >= the cut-off
      const float dom_cutoff = cutoff(h).second;
      for (DomainHit& d : h.domains) d.reported = d.included = d.bitscore >= dom_cutoff;
    } else if (t.by_E ? std::exp(h.lnP) * Z <= t.E : h.score >= t.T) {
      h.reported = true;
      h.included = t.inc_by_E ? std::exp(h.lnP) * Z <= t.incE : h.score >= t.incT;
    }
    list.nreported += h.reported;
    list.nincluded += h.included;
  }
  list.domZ = t.domZ > 0.0 ? t.domZ : double(list.nreported);
  for (TargetHit& h : hits) {
    if (h.reported && !t.use_bit_cutoffs)
      for (DomainHit& d : h.domains) {
        d.reported = t.dom_by_E ? std::exp(d.lnP) * list.domZ <= t.domE : d.bitscore >= t.domT;
        d.included = h.included && (t.incdom_by_E ? std::exp(d.lnP) * list.domZ <= t.incdomE : d.bitscore >= t.incdomT);
      }
    for (const DomainHit& d : h.domains) h.nreported += d.reported, h.nincluded += d.included;
    if (h.noverlaps)  // identical alignments from two envelopes: keep the better (h74)
      for (size_t d1 = 0; d1 < h.domains.size(); ++d1)
        for (size_t d2 = d1 + 1; d2 < h.domains.size(); ++d2) {
          DomainHit& a = h.domains[d1];
          DomainHit& b = h.domains[d2];
          if (a.env.iali != b.env.iali || a.env.jali != b.env.jali) continue;
          DomainHit& removed = a.bitscore >= b.bitscore ? b : a;
          if (removed.reported) removed.reported = false, h.nreported--;
          if (removed.included) removed.included = false, h.nincluded--;
        }
  }
  list.hits = std::move(hits);
  return list;
}

}  // namespace hpc::hmm
