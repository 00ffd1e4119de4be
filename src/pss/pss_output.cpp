#include "src/pss/pss_output.hpp"

#include "io/hdf5_columns.hpp"
#include "io/result_lifecycle.hpp"
#include "src/core/error.hpp"
#include "src/core/wire.hpp"

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

RowSchema pss_row_schema(uint32_t permutations, bool keep_scores) {
  RowSchema s{{{"pss/query", RowType::kU32},
               {"pss/target", RowType::kU32},
               {"pss/score", RowType::kI32},
               {"pss/mu", RowType::kF64},
               {"pss/lambda", RowType::kF64},
               {"pss/K", RowType::kF64},
               {"pss/pvalue", RowType::kF64},
               {"pss/log10_pvalue", RowType::kF64},
               {"pss/n_perm", RowType::kU32},
               {"pss/converged", RowType::kU8},
               {"pss/fit_status", RowType::kU8}}};
  if (keep_scores) s.columns.push_back({"pss_scores/scores", RowType::kI32, permutations});
  return s;
}

std::string pack_pss_rows(const std::vector<PssPairResult>& rows, uint32_t permutations, bool keep_scores) {
  WireWriter w;
  w.reserve(rows.size() * pss_row_schema(permutations, keep_scores).row_bytes());
  for (const PssPairResult& r : rows) {
    w.put(r.query), w.put(r.target), w.put(r.score), w.put(r.fit.mu), w.put(r.fit.lambda), w.put(r.K);
    w.put(r.pvalue), w.put(r.log10_pvalue), w.put(r.n_perm);
    w.put<uint8_t>(r.fit.converged() ? 1 : 0), w.put(uint8_t(r.fit.status));
    if (!keep_scores) continue;
    if (r.permuted_scores.size() != permutations) throw Error("internal: permuted scores missing for --keep-scores");
    for (int32_t x : r.permuted_scores) w.put(x);
  }
  return w.take();
}

}  // namespace hpc
