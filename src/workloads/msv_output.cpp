#include "src/workloads/msv_output.hpp"

#include "io/result_lifecycle.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/workloads/hmm_inputs.hpp"

namespace hpc {
const RowFields<MsvPair>& msv_row_fields() {
  using P = const MsvPair&;
  static const RowFields<MsvPair> fields = RowFields<MsvPair>()
      .add("msv/model", [](P p) { return p.model; })
      .add("msv/target", [](P p) { return p.target; })
      .add("msv/msv_bits", [](P p) { return p.result.msv_bits; })
      .add("msv/msv_pvalue", [](P p) { return p.result.msv_pvalue; })
      .add("msv/bias_pass", [](P p) { return uint8_t(p.result.bias_pass); })
      .add("msv/vit_bits", [](P p) { return p.result.vit_bits; })
      .add("msv/vit_pvalue", [](P p) { return p.result.vit_pvalue; })
      .add("msv/passed", [](P p) { return uint8_t(p.result.passed); });
  return fields;
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
  create_row_columns(f, msv_row_fields().schema(), 0);  // replaced by the merged rows when the run completes
  f.flush();
}

}  // namespace hpc
