#pragma once
// The text of `hpcalign hmmsearch`'s main output (-o, else stdout), as hmmsearch 3.3.2 writes
// it: a header naming the inputs and the options given (hmmsearch's lines and order; our own
// program banner), then per query its report (src/hmm/hmmsearch_report.hpp), the "Internal
// pipeline statistics summary" (without hmmsearch's CPU time and Mc/sec lines: the tiles of
// a run mix queries, so there is no time per query) and "//", and "[ok]" at the end.
// hmmscan (opt.scan) writes its own header lines (query sequence file, target HMM database,
// "profile" thresholds) and per query sequence the same report, listed the other way
// (hmm::ReportQuery; src/workloads/hmmscan_lists.hpp).
#include <cstdint>
#include <ostream>

#include "io/hmm_file.hpp"
#include "src/hmm/hmmsearch_hits.hpp"
#include "src/hmm/hmmsearch_report.hpp"
#include "src/workloads/hmmsearch.hpp"
#include "src/workloads/hmmsearch_rows.hpp"

namespace hpc {

void write_report_header(std::ostream& out, const HmmsearchOptions& opt);
// One query: Query lines, hit list, domain annotation, statistics, "//".
void write_query_report(std::ostream& out, const hmm::ReportQuery& query, const HmmCounts& c, const hmm::HitList& list,
                        const HmmsearchOptions& opt);
// The statistics block alone, from its two blank lines to "//": c counts the query's targets and
// their residues; nodes, the models' nodes. With opt.scan hmmscan's (the query a sequence of
// c.residues residues, c.targets target models).
void write_statistics(std::ostream& out, const HmmCounts& c, uint64_t nodes, const hmm::HitList& list,
                      const HmmsearchOptions& opt);

}  // namespace hpc
