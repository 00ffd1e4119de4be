#pragma once
// hmmsearch 3.3.2's main report for one query model (search mode), with its printf formats
// and widths: the Query/Accession/Description lines, the per-sequence hit list
// (p7_tophits_Targets: reported targets, the inclusion threshold line, descriptions cut to
// the line width) and the per-sequence domain annotation (p7_tophits_Domains: the domain
// table of each reported target and, unless --noali, each reported domain's alignment as
// p7_alidisplay_Print lays it out, with CS and RF lines where the model has them). Targets
// have no accession: --acc shows the model's accession in alignments.
#include <ostream>

#include "io/hmm_file.hpp"
#include "src/hmm/hmmsearch_hits.hpp"

namespace hpc::hmm {

struct ReportStyle {
  bool accessions = false;  // --acc
  bool alignments = true;   // --noali: false
  int textw = 120;          // --textw; 0 under --notextw (no limit)
};

void write_query_header(std::ostream& out, const HmmModel& query);
void write_target_list(std::ostream& out, const HitList& list, const ReportStyle& style);
void write_domain_annotation(std::ostream& out, const HmmModel& query, const HitList& list, const ReportStyle& style);

}  // namespace hpc::hmm
