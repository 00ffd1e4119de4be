#pragma once
// The text of `hpcalign hmmsearch`'s main output (-o, else stdout), as hmmsearch 3.3.2 writes
// it: a header naming the inputs and the options given (hmmsearch's lines and order; our own
// program banner), then per query its report (src/hmm/hmmsearch_report.hpp), the "Internal
// pipeline statistics summary" (without hmmsearch's CPU time and Mc/sec lines: the tiles of
// a run mix queries, so there is no time per query) and "//", and "[ok]" at the end.
#include <ostream>

#include "io/hmm_file.hpp"
#include "src/hmm/hmmsearch_hits.hpp"
#include "src/workloads/hmmsearch.hpp"
#include "src/workloads/hmmsearch_rows.hpp"

namespace hpc {

void write_report_header(std::ostream& out, const HmmsearchOptions& opt);
// One query: Query lines, hit list, domain annotation, statistics, "//".
void write_query_report(std::ostream& out, const HmmModel& model, const HmmCounts& c, const hmm::HitList& list,
                        const HmmsearchOptions& opt);

}  // namespace hpc
