#pragma once
// HMMER 3.3.2's tabular outputs for one query (p7_tophits_TabularTargets,
// p7_tophits_TabularDomains and p7_tophits_TabularXfam): the same header lines, column widths (names at least 20 wide,
// accessions 10, wider when a name or accession is longer) and printf formats, for both
// directions: hmmsearch (query a model, targets sequences, which have no accession: "-") and
// hmmscan (query a sequence, targets models with their ACC and DESC). A missing accession or
// description prints "-". The trailing "# Program: ..." block HMMER appends is not written.
#include <ostream>
#include <string>

#include "io/hmm_file.hpp"
#include "src/hmm/hmmsearch_hits.hpp"

namespace hpc::hmm {

struct TableQuery {  // the query columns: a model (hmmsearch) or a sequence (hmmscan)
  std::string name, accession;
  int length = 0;  // the domain table's qlen
};
TableQuery table_query(const HmmModel& model);

void write_tblout(std::ostream& out, const TableQuery& query, const HitList& list, bool header = true);
void write_domtblout(std::ostream& out, const TableQuery& query, const HitList& list, bool header = true);
// --pfamtblout (p7_tophits_TabularXfam, protein mode): the reported targets, then every reported
// domain, sorted by E-value or (domains_by_score: inclusion by bit score or a cut-off) by bit
// score. It names no query: HMMER's repeats the two tables per query without one.
void write_pfamtblout(std::ostream& out, const HitList& list, bool domains_by_score);

inline void write_tblout(std::ostream& out, const HmmModel& query, const HitList& list, bool header = true) {
  write_tblout(out, table_query(query), list, header);
}
inline void write_domtblout(std::ostream& out, const HmmModel& query, const HitList& list, bool header = true) {
  write_domtblout(out, table_query(query), list, header);
}

}  // namespace hpc::hmm
