#include "src/workloads/msv_output.hpp"

#include "io/result_lifecycle.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/workloads/hmm_inputs.hpp"

namespace hpc {
namespace {

const RowSchema kSchema{{{"msv/model", RowType::kU32},
                         {"msv/target", RowType::kU32},
                         {"msv/msv_bits", RowType::kF32},
                         {"msv/msv_pvalue", RowType::kF64},
                         {"msv/bias_pass", RowType::kU8},
                         {"msv/vit_bits", RowType::kF32},
                         {"msv/vit_pvalue", RowType::kF64},
                         {"msv/passed", RowType::kU8}}};

}  // namespace

RowSchema msv_row_schema() { return kSchema; }

std::string pack_msv_rows(const std::vector<MsvRow>& rows) {
  WireWriter w;
  w.reserve(rows.size() * kSchema.row_bytes());
  for (const MsvRow& r : rows) {
    w.put(r.model), w.put(r.target), w.put(r.msv_bits), w.put(r.msv_pvalue);
    w.put(r.bias_pass), w.put(r.vit_bits), w.put(r.vit_pvalue), w.put(r.passed);
  }
  return w.take();
}

void create_msv_output(h5::File& f, const MsvOptions& opt, const std::vector<HmmModel>& models,
                       const SequenceSet& targets, unsigned stages) {
  result_lifecycle::begin(f, "msv");
  h5::set_attribute(f, "", "command_line", opt.command_line);
  h5::set_attribute(f, "", "model_file", opt.model_path);
  h5::set_attribute(f, "", "database", opt.db_path);
  h5::set_attribute(f, "", "db_sequences", int64_t(targets.size()));
  h5::set_attribute(f, "", "db_residues", int64_t(targets.total_residues()));
  h5::set_attribute(f, "", "F1", opt.F1);
  h5::set_attribute(f, "", "F2", opt.F2);
  h5::set_attribute(f, "", "stages", hmm::stages_name(stages));
  h5::set_attribute(f, "", "all_pairs", int64_t(opt.all_pairs));
  write_models_and_targets(f, models, targets);
  create_row_columns(f, kSchema, 0);  // replaced by the merged rows when the run completes
  f.flush();
}

}  // namespace hpc
