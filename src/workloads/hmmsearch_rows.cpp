#include "src/workloads/hmmsearch_rows.hpp"

#include "src/core/wire.hpp"

namespace hpc {

void HmmCounts::add(const HmmCounts& o) {
  targets += o.targets, past_msv += o.past_msv, past_bias += o.past_bias, past_vit += o.past_vit;
  past_fwd += o.past_fwd, residues += o.residues;
}

void HmmPassCounts::add(const HmmPassCounts& o) {
  past_msv += o.past_msv, past_bias += o.past_bias, past_vit += o.past_vit, past_fwd += o.past_fwd;
}

std::string encode_hmm_tile(const HmmTileResult& r) {
  WireWriter w;
  w.put_vector(r.counts);
  w.put_vector(r.targets);
  w.put_vector(r.domains);
  w.put(r.alignments);
  w.put_vector(r.passes);
  return w.take();
}

HmmTileResult decode_hmm_tile(const std::string& bytes) {
  WireReader rd(bytes);
  HmmTileResult r;
  r.counts = rd.get_vector<HmmCounts>();
  r.targets = rd.get_vector<HmmTargetRow>();
  r.domains = rd.get_vector<HmmDomainRow>();
  r.alignments = rd.get_string();
  if (!rd.done()) r.passes = rd.get_vector<HmmPassCounts>();  // journals before hmmscan end before it
  return r;
}

void add_hit_rows(uint32_t model, uint32_t target, const hmm::TargetHit& h, HmmTileResult& out) {
  HmmTargetRow t;
  t.model = model, t.target = target;
  t.pre_score = h.pre_score, t.score = h.score, t.sum_score = h.sum_score, t.nexpected = h.nexpected;
  t.lnP = h.lnP, t.pre_lnP = h.pre_lnP, t.sum_lnP = h.sum_lnP;
  t.nregions = h.nregions, t.nclustered = h.nclustered, t.noverlaps = h.noverlaps, t.nenvelopes = h.nenvelopes;
  t.best_domain = h.best_domain, t.ndomains = int32_t(h.domains.size());
  out.targets.push_back(t);
  for (const hmm::DomainHit& d : h.domains) {
    HmmDomainRow r;
    r.model = model, r.target = target;
    r.bitscore = d.bitscore, r.dombias = d.dombias, r.lnP = d.lnP, r.env = d.env;
    r.ali_columns = d.ali.columns();
    out.domains.push_back(r);
    out.alignments += d.ali.model + d.ali.mline + d.ali.aseq + d.ali.pp;
  }
}

hmm::TargetHit hit_from_rows(const HmmTargetRow& t, const HmmDomainRow* domains, const std::string& alignments,
                             size_t* offset) {
  hmm::TargetHit h;
  h.index = t.target;
  h.pre_score = t.pre_score, h.score = t.score, h.sum_score = t.sum_score, h.nexpected = t.nexpected;
  h.lnP = t.lnP, h.pre_lnP = t.pre_lnP, h.sum_lnP = t.sum_lnP;
  h.nregions = t.nregions, h.nclustered = t.nclustered, h.noverlaps = t.noverlaps, h.nenvelopes = t.nenvelopes;
  h.best_domain = t.best_domain;
  for (int32_t d = 0; d < t.ndomains; ++d) {
    hmm::DomainHit x;
    x.env = domains[d].env, x.bitscore = domains[d].bitscore, x.dombias = domains[d].dombias, x.lnP = domains[d].lnP;
    const size_t n = size_t(domains[d].ali_columns);
    if (*offset + 4 * n > alignments.size()) throw Error("internal: hmmsearch tile alignments cut short");
    std::string* lines[4] = {&x.ali.model, &x.ali.mline, &x.ali.aseq, &x.ali.pp};
    for (std::string* line : lines) *line = alignments.substr(*offset, n), *offset += n;
    h.domains.push_back(x);
  }
  return h;
}

}  // namespace hpc
