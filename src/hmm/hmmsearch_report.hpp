#pragma once
// hmmsearch 3.3.2's main report for one query model (search mode), with its printf formats
// and widths: the Query/Accession/Description lines, the per-sequence hit list
// (p7_tophits_Targets: reported targets, the inclusion threshold line, descriptions cut to
// the line width) and the per-sequence domain annotation (p7_tophits_Domains: the domain
// table of each reported target and, unless --noali, each reported domain's alignment as
// p7_alidisplay_Print lays it out, with CS and RF lines where the model has them). Targets
// have no accession: --acc shows the model's accession in alignments.
// The same report serves hmmscan (ReportQuery::models set): the query is a sequence, the targets
// are models ("Scores for complete sequence", a "Model" column, "Domain annotation for each
// model"), --acc shows the models' accessions, and each alignment pairs the target model with
// the query sequence.
#include <ostream>
#include <string>
#include <vector>

#include "io/hmm_file.hpp"
#include "src/hmm/hmmsearch_hits.hpp"

namespace hpc::hmm {

struct ReportStyle {
  bool accessions = false;  // --acc
  bool alignments = true;   // --noali: false
  int textw = 120;          // --textw; 0 under --notextw (no limit)
};

// The query of one report, and which side of each (query, target) pair is the model.
struct ReportQuery {
  std::string name, accession, description;
  int length = 0;                                  // M (a model) or L (a sequence)
  const HmmModel* model = nullptr;                 // hmmsearch: the query model
  const std::vector<HmmModel>* models = nullptr;   // hmmscan: the targets, by TargetHit::index
  bool scan() const { return models != nullptr; }
  const HmmModel& model_of(const TargetHit& h) const { return scan() ? (*models)[h.index] : *model; }
};
ReportQuery search_query(const HmmModel& model);
ReportQuery scan_query(const std::vector<HmmModel>& models, const std::string& name, const std::string& description,
                       int length);

void write_query_header(std::ostream& out, const ReportQuery& query);
void write_target_list(std::ostream& out, const ReportQuery& query, const HitList& list, const ReportStyle& style);
void write_domain_annotation(std::ostream& out, const ReportQuery& query, const HitList& list,
                             const ReportStyle& style);

}  // namespace hpc::hmm
