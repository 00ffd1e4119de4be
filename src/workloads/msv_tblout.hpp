#pragma once
// `--format tblout` for `hpcalign msv` result files: hmmsearch --tblout's table (HMMER 3.3.2,
// p7_tophits_TabularTargets): the same three header lines, 18 space-separated fields plus the
// target description, the same column widths (name columns at least 20 wide, widened to the
// longest name), the same trailing "# Program: ..." block. One header for all models, rows by
// model, then E-value. Our msv runs the filters only, so the numbers are filter figures,
// said in a comment above the header:
//   full sequence E-value, score   the Viterbi filter's P x Z and bit score (Z: database
//                                  sequences, as hmmsearch's default); the MSV filter's when
//                                  the run stopped at msv or msv,bias, and for rows whose MSV
//                                  P-value already passed F2 (hmmsearch skips Viterbi then)
//   best 1 domain E-value, score   the MSV filter's P x Z and bit score
//   bias (both)                    0.0: the bias filter's pass/fail is kept, not its score
//   exp reg clu ov env dom rep inc 0: no domain definition runs
//   accessions                     the model's ACC from the model file the run read (as
//                                  hmmsearch prints it; '-' if it has none); '-' for targets
//   description of target          from the FASTA database the run read (or `db_path`), as
//                                  hmmsearch prints it; '-' where a record has none and for
//                                  makedb databases (they keep no descriptions)
// An --all run lists every pair (non-survivors too).
#include <iosfwd>
#include <string>

namespace hpc {

// `model_path`, `db_path`: the model file (accessions) and database (descriptions); "" : the
// ones the run read. Throws hpc::Error when `path` is not an msv result file.
void print_msv_tblout(const std::string& path, const std::string& model_path, const std::string& db_path,
                      std::ostream& out, std::ostream& err);
// Every /msv column with a header line, full precision (for scripts).
void print_msv_tsv(const std::string& path, std::ostream& out, std::ostream& err);

}  // namespace hpc
