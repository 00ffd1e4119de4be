#pragma once
// `hpcalign view` and the text output of every workload (`--format`, `-o -`): prints a result
// file in a format other tools read. The file says which workload made it:
//   search, allvsall, merge   hits: blast6 (default), tsv, pairwise, "6 qseqid ..." custom
//                             columns or MMseqs2's "query,target,..." (src/report/hit_columns.hpp,
//                             src/report/pairwise_text.hpp)
//   pss                       tsv (default; src/report/pss_table.hpp)
//   msv                       tblout (default; hmmsearch --tblout's layout) or tsv
//                             (src/workloads/msv_tblout.hpp)
// Columns that need residues (qseq, sseq, positive, ppos, pairwise) read the sequences from the
// files the run read (attributes query_file and database/target_file), or from the given
// overrides; they must be the run's sequences (same ids and lengths, in order). Title columns
// (stitle, salltitles, qheader, theader) read the header lines, from FASTA files only, in the same
// read as the sequences (each file read once).
#include <iosfwd>
#include <string>

#include "io/result_file.hpp"

namespace hpc {

struct ViewRequest {
  std::string path;
  std::string format;                          // "" : the workload's default
  std::string query_path, target_path;         // "" : the files named in the result file
  std::string model_path;                      // msv tblout accessions; "" : the run's
};

// Warns on `err` when the run did not finish (hits: prints the rows its finished tiles left
// in /staging/hits). Returns 0; throws hpc::Error for unknown formats, formats that do not fit
// the file's workload and files that are not results.
int run_view(const ViewRequest& request, std::ostream& out, std::ostream& err);
inline int run_view(const std::string& path, const std::string& format, std::ostream& out, std::ostream& err) {
  return run_view(ViewRequest{path, format, "", "", ""}, out, err);
}

// Throws the hpc::Error run_view would throw for `format` ("" : the default) on a result of
// `kind` ("hits": search, allvsall, merge; "pss"; "msv"), so a run can refuse it before it starts.
void check_view_format(const std::string& kind, const std::string& format);
// Throws when the run's input files (`request`'s query/target paths) cannot give the title
// columns `request.format` asks for (a makedb file keeps no titles; a pipe reads once).
void check_view_inputs(const std::string& kind, const ViewRequest& request);

// The formats, for --help.
extern const char* const kFormatHelp;

}  // namespace hpc
