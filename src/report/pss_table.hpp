#pragma once
// `--format tsv` (the default) for `hpcalign pss` result files: /pss with a header line,
// query and target as ids, full precision:
//   qseqid sseqid score mu lambda K pvalue log10_pvalue n_perm converged fit_status
// A pair whose Gumbel fit failed prints N/A for mu, lambda, K and the P-values (fit_status
// says why). An unfinished run has no /pss yet (the rows land when it completes): an error
// that says so.
#include <iosfwd>
#include <string>

namespace hpc {

void print_pss_table(const std::string& path, std::ostream& out);

}  // namespace hpc
