#include "src/workloads/hmmscan_lists.hpp"

#include <algorithm>
#include <utility>

#include "src/hmm/hmmsearch_tables.hpp"
#include "src/workloads/hmmsearch_output.hpp"
#include "src/workloads/hmmsearch_text.hpp"

namespace hpc {
namespace {

// Each model's (sequence, domain) bit cut-offs, under --cut_ga/--cut_tc/--cut_nc.
std::vector<std::pair<float, float>> model_cutoffs(const std::vector<HmmModel>& models, const std::string& which) {
  std::vector<std::pair<float, float>> c;
  for (const HmmModel& m : models) {
    const hmm::ReportThresholds t = hmm::model_cutoff_thresholds(m, which);
    c.emplace_back(t.seq_cutoff, t.dom_cutoff);
  }
  return c;
}

}  // namespace

std::vector<hmm::HitList> finish_scan(const HmmsearchOptions& opt, const std::vector<HmmModel>& models,
                                      const SequenceSet& seqs, const std::vector<std::string>& desc,
                                      std::vector<std::vector<hmm::TargetHit>> hits_by_model,
                                      const std::vector<HmmPassCounts>& passes, std::ostream& tbl, std::ostream& dom,
                                      std::ostream& pfam, std::ostream& report) {
  // Turn the hits around: sequence s's hits are models, in model file order (hmmscan's).
  std::vector<std::vector<hmm::TargetHit>> by_seq(seqs.size());
  for (size_t m = 0; m < models.size(); ++m)
    for (hmm::TargetHit& h : hits_by_model[m]) {
      const size_t s = h.index;
      h.index = m;
      h.name = models[m].name, h.accession = models[m].accession, h.description = models[m].description;
      h.length = models[m].length;
      by_seq.at(s).push_back(std::move(h));
    }
  hmm::ReportThresholds t = opt.thresholds;
  hmm::HitCutoffs cutoffs;
  std::vector<std::pair<float, float>> per_model;
  if (!opt.cutoff.empty()) {
    per_model = model_cutoffs(models, opt.cutoff);
    t.use_bit_cutoffs = true;
    cutoffs = [&](const hmm::TargetHit& h) { return per_model[h.index]; };
  }
  const double Z = opt.Z ? *opt.Z : double(models.size());

  std::vector<hmm::HitList> lists;
  for (size_t s = 0; s < seqs.size(); ++s) {
    lists.push_back(hmm::finish_hits(std::move(by_seq[s]), Z, t, cutoffs));
    const hmm::TableQuery query{seqs.ids[s], "", int(seqs.length(s))};
    hmm::write_tblout(tbl, query, lists.back(), s == 0);
    hmm::write_domtblout(dom, query, lists.back(), s == 0);
    hmm::write_pfamtblout(pfam, lists.back(), opt.ranks_by_score());
    HmmCounts c;
    c.targets = models.size(), c.residues = seqs.length(s);
    c.past_msv = passes[s].past_msv, c.past_bias = passes[s].past_bias;
    c.past_vit = passes[s].past_vit, c.past_fwd = passes[s].past_fwd;
    const std::string description = s < desc.size() ? desc[s] : "";
    write_query_report(report, hmm::scan_query(models, seqs.ids[s], description, int(seqs.length(s))), c, lists.back(),
                       opt);
  }
  return lists;
}

void write_scan_counts(h5::File& f, const std::vector<HmmPassCounts>& passes) {
  const std::pair<const char*, uint32_t HmmPassCounts::*> fields[] = {{"past_msv", &HmmPassCounts::past_msv},
                                                                      {"past_bias", &HmmPassCounts::past_bias},
                                                                      {"past_vit", &HmmPassCounts::past_vit},
                                                                      {"past_fwd", &HmmPassCounts::past_fwd}};
  for (const auto& [name, field] : fields) {
    std::vector<uint64_t> v(passes.size());
    for (size_t s = 0; s < passes.size(); ++s) v[s] = passes[s].*field;
    h5::write_column(f, std::string("targets/") + name, v);
  }
}

}  // namespace hpc
