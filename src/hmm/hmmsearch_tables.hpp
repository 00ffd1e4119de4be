#pragma once
// hmmsearch 3.3.2's tabular outputs for one query model (p7_tophits_TabularTargets and
// p7_tophits_TabularDomains, search mode): the same header lines, column widths (names at
// least 20 wide, accessions 10, wider when a name is longer) and printf formats. Targets have
// no accession ("-"); the query's is the model's ACC, "-" when it has none. The trailing
// "# Program: ..." block hmmsearch appends is not written.
#include <ostream>

#include "io/hmm_file.hpp"
#include "src/hmm/hmmsearch_hits.hpp"

namespace hpc::hmm {

void write_tblout(std::ostream& out, const HmmModel& query, const HitList& list, bool header = true);
void write_domtblout(std::ostream& out, const HmmModel& query, const HitList& list, bool header = true);

}  // namespace hpc::hmm
