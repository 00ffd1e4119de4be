#include "src/workloads/msv_output.hpp"

#include <algorithm>

#include "io/result_lifecycle.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/workloads/hmm_inputs.hpp"

namespace hpc {
namespace {

const char* kRowColumns[] = {"msv/model", "msv/target", "msv/msv_bits", "msv/msv_pvalue",
                             "msv/bias_pass", "msv/vit_bits", "msv/vit_pvalue", "msv/passed"};

template <class T, class Get>
std::vector<T> column(const std::vector<MsvRow>& rows, Get get) {
  std::vector<T> v(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) v[i] = get(rows[i]);
  return v;
}

}  // namespace

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
  h5::create_column<uint32_t>(f, kRowColumns[0]);
  h5::create_column<uint32_t>(f, kRowColumns[1]);
  h5::create_column<float>(f, kRowColumns[2]);
  h5::create_column<double>(f, kRowColumns[3]);
  h5::create_column<uint8_t>(f, kRowColumns[4]);
  h5::create_column<float>(f, kRowColumns[5]);
  h5::create_column<double>(f, kRowColumns[6]);
  h5::create_column<uint8_t>(f, kRowColumns[7]);
  result_lifecycle::create_ledger(f);
  f.flush();
}

void append_msv_rows(h5::File& f, const std::vector<uint32_t>& tile_ids, const std::vector<MsvRow>& rows) {
  if (!rows.empty()) {
    h5::append(f, kRowColumns[0], column<uint32_t>(rows, [](const MsvRow& r) { return r.model; }));
    h5::append(f, kRowColumns[1], column<uint32_t>(rows, [](const MsvRow& r) { return r.target; }));
    h5::append(f, kRowColumns[2], column<float>(rows, [](const MsvRow& r) { return r.msv_bits; }));
    h5::append(f, kRowColumns[3], column<double>(rows, [](const MsvRow& r) { return r.msv_pvalue; }));
    h5::append(f, kRowColumns[4], column<uint8_t>(rows, [](const MsvRow& r) { return r.bias_pass; }));
    h5::append(f, kRowColumns[5], column<float>(rows, [](const MsvRow& r) { return r.vit_bits; }));
    h5::append(f, kRowColumns[6], column<double>(rows, [](const MsvRow& r) { return r.vit_pvalue; }));
    h5::append(f, kRowColumns[7], column<uint8_t>(rows, [](const MsvRow& r) { return r.passed; }));
  }
  result_lifecycle::append_ledger(f, tile_ids);
  f.flush();
}

void sort_msv_rows(h5::File& f) {
  const auto model = h5::read_all<uint32_t>(f, kRowColumns[0]);
  const auto target = h5::read_all<uint32_t>(f, kRowColumns[1]);
  if (model.empty()) return;
  std::vector<size_t> order(model.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return model[a] != model[b] ? model[a] < model[b] : target[a] < target[b];
  });
  auto rewrite = [&](const char* path, auto sample) {
    using T = decltype(sample);
    const std::vector<T> v = h5::read_all<T>(f, path);
    std::vector<T> sorted(v.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = v[order[i]];
    h5::remove_object(f, path);
    h5::write_column(f, path, sorted);
  };
  rewrite(kRowColumns[0], uint32_t{});
  rewrite(kRowColumns[1], uint32_t{});
  rewrite(kRowColumns[2], float{});
  rewrite(kRowColumns[3], double{});
  rewrite(kRowColumns[4], uint8_t{});
  rewrite(kRowColumns[5], float{});
  rewrite(kRowColumns[6], double{});
  rewrite(kRowColumns[7], uint8_t{});
}


}  // namespace hpc
