#include "src/pss/pss_output.hpp"

#include "io/hdf5_columns.hpp"
#include "io/result_lifecycle.hpp"

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

void PssResultFile::finish(bool keep_scores) {
  h5::File& f = impl_->file;
  if (keep_scores)
    h5::set_attribute(f, "pss_scores/scores", "layout",
                      std::string("row r of /pss owns elements [r*n_perm, (r+1)*n_perm), permutation order"));
  result_lifecycle::complete(f);
  f.close();
}

RowFields<PssPairResult> pss_row_fields(uint32_t permutations, bool keep_scores) {
  using P = const PssPairResult&;
  RowFields<PssPairResult> f;
  f.add("pss/query", [](P r) { return r.query; }).add("pss/target", [](P r) { return r.target; });
  f.add("pss/score", [](P r) { return r.score; });
  f.add("pss/mu", [](P r) { return r.fit.mu; }).add("pss/lambda", [](P r) { return r.fit.lambda; });
  f.add("pss/K", [](P r) { return r.K; });
  f.add("pss/pvalue", [](P r) { return r.pvalue; }).add("pss/log10_pvalue", [](P r) { return r.log10_pvalue; });
  f.add("pss/n_perm", [](P r) { return r.n_perm; });
  f.add("pss/converged", [](P r) { return uint8_t(r.fit.converged() ? 1 : 0); });
  f.add("pss/fit_status", [](P r) { return uint8_t(r.fit.status); });
  if (keep_scores) f.add_values("pss_scores/scores", permutations, [](P r) -> const auto& { return r.permuted_scores; });
  return f;
}

}  // namespace hpc
