#pragma once
// `hpcalign view --format tblout` for `hpcalign msv` result files: a HMMER-like table with one
// line per row of /msv (the survivors, or every pair of an --all run), by (model, target):
//   target  model  msv_bits  msv_P  bias_pass  vit_bits  vit_P  passed
// Columns are space-aligned like hmmsearch --tblout; '-' where the Viterbi filter did not run.
#include <iosfwd>
#include <string>

namespace hpc {

// Throws hpc::Error when `path` is not an msv result file.
void print_msv_tblout(const std::string& path, std::ostream& out, std::ostream& err);

}  // namespace hpc
