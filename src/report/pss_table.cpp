#include "src/report/pss_table.hpp"

#include <cstdio>
#include <ostream>

#include "io/hdf5_columns.hpp"
#include "src/core/error.hpp"
#include "src/report/hit_columns.hpp"

namespace hpc {

void print_pss_table(const std::string& path, std::ostream& out) {
  h5::File f(path, h5::Mode::kReadOnly);
  if (!f.exists("pss"))
    throw Error(path + " is an unfinished pss run: its rows are written when it completes (--resume finishes it)");
  const auto queries = h5::read_all<std::string>(f, "queries/id");
  const auto targets = h5::read_all<std::string>(f, "targets/id");
  const auto query = h5::read_all<uint32_t>(f, "pss/query");
  const auto target = h5::read_all<uint32_t>(f, "pss/target");
  const auto score = h5::read_all<int32_t>(f, "pss/score");
  const auto mu = h5::read_all<double>(f, "pss/mu");
  const auto lambda = h5::read_all<double>(f, "pss/lambda");
  const auto K = h5::read_all<double>(f, "pss/K");
  const auto pvalue = h5::read_all<double>(f, "pss/pvalue");
  const auto log10_pvalue = h5::read_all<double>(f, "pss/log10_pvalue");
  const auto n_perm = h5::read_all<uint32_t>(f, "pss/n_perm");
  const auto converged = h5::read_all<uint8_t>(f, "pss/converged");
  const auto fit_status = h5::read_all<uint8_t>(f, "pss/fit_status");
  for (size_t len : {target.size(), score.size(), mu.size(), lambda.size(), K.size(), pvalue.size(),
                     log10_pvalue.size(), n_perm.size(), converged.size(), fit_status.size()})
    if (len != query.size()) throw Error(path + ": the /pss columns have different lengths");
  out << "qseqid\tsseqid\tscore\tmu\tlambda\tK\tpvalue\tlog10_pvalue\tn_perm\tconverged\tfit_status\n";
  char line[512];
  for (size_t i = 0; i < query.size(); ++i) {
    out << hit_id(queries, query[i], "query") << '\t' << hit_id(targets, target[i], "target") << '\t' << score[i];
    if (converged[i])
      std::snprintf(line, sizeof line, "\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g", mu[i], lambda[i], K[i], pvalue[i],
                    log10_pvalue[i]);
    else
      std::snprintf(line, sizeof line, "\tN/A\tN/A\tN/A\tN/A\tN/A");
    out << line << '\t' << n_perm[i] << '\t' << int(converged[i]) << '\t' << int(fit_status[i]) << '\n';
  }
}

}  // namespace hpc
