#pragma once
// HMMER 3.3.2's tabular outputs for one query (p7_tophits_TabularTargets and
// p7_tophits_TabularDomains): the same header lines, column widths (names at least 20 wide,
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
inline void write_tblout(std::ostream& out, const HmmModel& query, const HitList& list, bool header = true) {
  write_tblout(out, table_query(query), list, header);
}
inline void write_domtblout(std::ostream& out, const HmmModel& query, const HitList& list, bool header = true) {
  write_domtblout(out, table_query(query), list, header);
}

}  // namespace hpc::hmm
