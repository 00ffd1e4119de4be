#include "src/pss/pss_engine.hpp"

#include <cmath>
#include <limits>


namespace hpc {

void pss_statistics(PssPairResult& r, uint32_t query_length, uint32_t subject_length,
                    const std::vector<int32_t>& permuted, const CensorSpec& censor) {
  r.n_perm = uint32_t(permuted.size());
  r.fit = fit_gumbel(permuted, censor);
  if (!r.fit.converged()) {
    r.K = 0;
    r.pvalue = r.log10_pvalue = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  const double mn = double(query_length) * double(subject_length);
  r.K = std::exp(r.fit.lambda * r.fit.mu - std::log(mn));
  // K m n e^(-lambda x) = e^(-lambda (x - mu)): the Gumbel survival, computed with expm1.
  r.pvalue = gumbel_survival(r.score, r.fit.mu, r.fit.lambda);
  r.log10_pvalue = gumbel_log_survival(r.score, r.fit.mu, r.fit.lambda) / std::log(10.0);
}

}  // namespace hpc
