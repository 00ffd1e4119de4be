#include "src/workloads/hmmsearch_output.hpp"

#include "io/result_lifecycle.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "src/workloads/hmm_inputs.hpp"

namespace hpc {
namespace {

template <class T, class Row, class Get>
std::vector<T> column(const std::vector<Row>& rows, Get get) {
  std::vector<T> v(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) v[i] = get(rows[i]);
  return v;
}

struct DomainRef {
  uint32_t model, target, domain;
  const hmm::DomainHit* d;
};
struct TargetRef {
  uint32_t model, target;
  const hmm::TargetHit* h;
};

void write_targets(h5::File& f, const std::string& g, const std::vector<TargetRef>& t) {
  h5::write_column(f, g + "model", column<uint32_t>(t, [](auto& r) { return r.model; }));
  h5::write_column(f, g + "target", column<uint32_t>(t, [](auto& r) { return r.target; }));
  h5::write_column(f, g + "score", column<float>(t, [](auto& r) { return r.h->score; }));
  h5::write_column(f, g + "bias", column<float>(t, [](auto& r) { return r.h->pre_score - r.h->score; }));
  h5::write_column(f, g + "lnP", column<double>(t, [](auto& r) { return r.h->lnP; }));
  h5::write_column(f, g + "nexpected", column<float>(t, [](auto& r) { return r.h->nexpected; }));
  h5::write_column(f, g + "nregions", column<int32_t>(t, [](auto& r) { return int32_t(r.h->nregions); }));
  h5::write_column(f, g + "nclustered", column<int32_t>(t, [](auto& r) { return int32_t(r.h->nclustered); }));
  h5::write_column(f, g + "noverlaps", column<int32_t>(t, [](auto& r) { return int32_t(r.h->noverlaps); }));
  h5::write_column(f, g + "nenvelopes", column<int32_t>(t, [](auto& r) { return int32_t(r.h->nenvelopes); }));
  h5::write_column(f, g + "ndomains", column<int32_t>(t, [](auto& r) { return int32_t(r.h->domains.size()); }));
  h5::write_column(f, g + "best_domain", column<int32_t>(t, [](auto& r) { return int32_t(r.h->best_domain); }));
  h5::write_column(f, g + "reported", column<uint8_t>(t, [](auto& r) { return uint8_t(r.h->reported); }));
  h5::write_column(f, g + "included", column<uint8_t>(t, [](auto& r) { return uint8_t(r.h->included); }));
}

void write_domains(h5::File& f, const std::string& g, const std::vector<DomainRef>& d) {
  h5::write_column(f, g + "model", column<uint32_t>(d, [](auto& r) { return r.model; }));
  h5::write_column(f, g + "target", column<uint32_t>(d, [](auto& r) { return r.target; }));
  h5::write_column(f, g + "domain", column<uint32_t>(d, [](auto& r) { return r.domain; }));
  h5::write_column(f, g + "bitscore", column<float>(d, [](auto& r) { return r.d->bitscore; }));
  h5::write_column(f, g + "bias", column<float>(d, [](auto& r) { return float(r.d->dombias / M_LN2); }));
  h5::write_column(f, g + "lnP", column<double>(d, [](auto& r) { return r.d->lnP; }));
  h5::write_column(f, g + "env_from", column<int32_t>(d, [](auto& r) { return int32_t(r.d->env.ienv); }));
  h5::write_column(f, g + "env_to", column<int32_t>(d, [](auto& r) { return int32_t(r.d->env.jenv); }));
  h5::write_column(f, g + "ali_from", column<int32_t>(d, [](auto& r) { return int32_t(r.d->env.iali); }));
  h5::write_column(f, g + "ali_to", column<int32_t>(d, [](auto& r) { return int32_t(r.d->env.jali); }));
  h5::write_column(f, g + "hmm_from", column<int32_t>(d, [](auto& r) { return int32_t(r.d->env.hmmfrom); }));
  h5::write_column(f, g + "hmm_to", column<int32_t>(d, [](auto& r) { return int32_t(r.d->env.hmmto); }));
  h5::write_column(f, g + "reported", column<uint8_t>(d, [](auto& r) { return uint8_t(r.d->reported); }));
  h5::write_column(f, g + "included", column<uint8_t>(d, [](auto& r) { return uint8_t(r.d->included); }));
}

}  // namespace

void create_hmmsearch_output(h5::File& f, const HmmsearchOptions& opt, const std::vector<HmmModel>& models,
                             const SequenceSet& targets) {
  result_lifecycle::begin(f, opt.scan ? "hmmscan" : "hmmsearch");
  h5::set_attribute(f, "", "command_line", opt.command_line);
  h5::set_attribute(f, "", "model_file", opt.model_path);
  h5::set_attribute(f, "", "database", opt.db_path);
  h5::set_attribute(f, "", "db_sequences", int64_t(targets.size()));
  h5::set_attribute(f, "", "db_residues", int64_t(targets.total_residues()));
  h5::set_attribute(f, "", "F1", opt.pipeline.F1);
  h5::set_attribute(f, "", "F2", opt.pipeline.F2);
  h5::set_attribute(f, "", "F3", opt.pipeline.F3);
  h5::set_attribute(f, "", "bias_filter", int64_t(opt.pipeline.bias_filter));
  h5::set_attribute(f, "", "null2", int64_t(opt.pipeline.null2));
  h5::set_attribute(f, "", "seed", int64_t(opt.pipeline.seed));
  if (!opt.cutoff.empty()) h5::set_attribute(f, "", "cutoff", opt.cutoff);
  write_models_and_targets(f, models, targets);
}

void write_hmmsearch_results(h5::File& f, const std::vector<hmm::HitList>& lists, const std::vector<HmmCounts>& counts,
                             bool scan) {
  std::vector<TargetRef> t;
  std::vector<DomainRef> d;
  for (uint32_t q = 0; q < lists.size(); ++q)
    for (const hmm::TargetHit& h : lists[q].hits) {
      const uint32_t model = scan ? uint32_t(h.index) : q, target = scan ? q : uint32_t(h.index);
      t.push_back({model, target, &h});
      for (uint32_t k = 0; k < h.domains.size(); ++k) d.push_back({model, target, k, &h.domains[k]});
    }
  const std::string group = scan ? "hmmscan" : "hmmsearch";
  write_targets(f, group + "/targets/", t);
  write_domains(f, group + "/domains/", d);
  // Per query (model, or sequence with scan): the search spaces; per model hmmsearch's pipeline
  // counts, and the run's totals as attributes.
  const std::string per_query = scan ? "targets/" : "models/";
  h5::write_column(f, per_query + "Z", column<double>(lists, [](auto& l) { return l.Z; }));
  h5::write_column(f, per_query + "domZ", column<double>(lists, [](auto& l) { return l.domZ; }));
  HmmCounts total;
  for (const HmmCounts& c : counts) total.add(c);
  const std::pair<const char*, uint64_t HmmCounts::*> fields[] = {
      {"targets", &HmmCounts::targets},   {"past_msv", &HmmCounts::past_msv}, {"past_bias", &HmmCounts::past_bias},
      {"past_vit", &HmmCounts::past_vit}, {"past_fwd", &HmmCounts::past_fwd}};
  for (const auto& [name, field] : fields) {
    h5::write_column(f, std::string("models/") + name, column<uint64_t>(counts, [&](auto& c) { return c.*field; }));
    for (const char* g : {"/targets", "/domains"}) h5::set_attribute(f, group + g, name, int64_t(total.*field));
  }
}

}  // namespace hpc
