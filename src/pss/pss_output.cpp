#include "src/pss/pss_output.hpp"

#include "io/hdf5_columns.hpp"
#include "io/result_lifecycle.hpp"
#include "src/core/error.hpp"

namespace hpc {

struct PssResultFile::Impl {
  h5::File file;
  explicit Impl(const std::string& path) : file(path, h5::Mode::kCreate) {}
};

PssResultFile::PssResultFile(const std::string& path) : impl_(std::make_unique<Impl>(path)) {
  result_lifecycle::begin(impl_->file, "pss");
}
PssResultFile::~PssResultFile() = default;

void PssResultFile::set_attribute(const std::string& name, const std::string& value) {
  h5::set_attribute(impl_->file, "", name, value);
}
void PssResultFile::set_attribute(const std::string& name, int64_t value) { h5::set_attribute(impl_->file, "", name, value); }
void PssResultFile::set_attribute(const std::string& name, double value) { h5::set_attribute(impl_->file, "", name, value); }

h5::File& PssResultFile::h5_file() { return impl_->file; }

void PssResultFile::write_sequences(const std::string& group, const SequenceSet& seqs) {
  result_lifecycle::write_sequences(impl_->file, group, seqs);
}

void PssResultFile::finish(const std::vector<PssPairResult>& rows, bool keep_scores) {
  std::vector<uint32_t> query, target, n_perm;
  std::vector<int32_t> score, all_scores;
  std::vector<double> mu, lambda, K, pvalue, log10_pvalue;
  std::vector<uint8_t> converged, status;
  for (const PssPairResult& r : rows) {
    query.push_back(r.query);
    target.push_back(r.target);
    score.push_back(r.score);
    mu.push_back(r.fit.mu);
    lambda.push_back(r.fit.lambda);
    K.push_back(r.K);
    pvalue.push_back(r.pvalue);
    log10_pvalue.push_back(r.log10_pvalue);
    n_perm.push_back(r.n_perm);
    converged.push_back(r.fit.converged() ? 1 : 0);
    status.push_back(uint8_t(r.fit.status));
    if (keep_scores) {
      if (r.permuted_scores.size() != r.n_perm) throw Error("internal: permuted scores missing for --keep-scores");
      all_scores.insert(all_scores.end(), r.permuted_scores.begin(), r.permuted_scores.end());
    }
  }
  h5::File& f = impl_->file;
  h5::write_column(f, "pss/query", query);
  h5::write_column(f, "pss/target", target);
  h5::write_column(f, "pss/score", score);
  h5::write_column(f, "pss/mu", mu);
  h5::write_column(f, "pss/lambda", lambda);
  h5::write_column(f, "pss/K", K);
  h5::write_column(f, "pss/pvalue", pvalue);
  h5::write_column(f, "pss/log10_pvalue", log10_pvalue);
  h5::write_column(f, "pss/n_perm", n_perm);
  h5::write_column(f, "pss/converged", converged);
  h5::write_column(f, "pss/fit_status", status);
  if (keep_scores) {
    h5::write_column(f, "pss_scores/scores", all_scores);
    h5::set_attribute(f, "pss_scores/scores", "layout",
                      std::string("row r of /pss owns elements [r*n_perm, (r+1)*n_perm), permutation order"));
  }
  result_lifecycle::complete(f);
  f.close();
}

}  // namespace hpc
