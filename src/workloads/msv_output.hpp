#pragma once
// The HDF5 file of `hpcalign msv` (layout in src/workloads/msv.hpp), written by rank 0: created
// with its attributes, models and targets (and an empty /msv: an unfinished file has no rows);
// the rows, staged by the workers in run files (src/workloads/tile_row_runs.hpp), merged into
// /msv by (model, target) at the end.
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "io/result_lifecycle.hpp"
#include "io/row_runs.hpp"
#include "src/core/sequence.hpp"
#include "src/workloads/msv.hpp"

namespace hpc {

// One reported (model, target) pair.
struct MsvRow {
  uint32_t model, target;
  float msv_bits;
  double msv_pvalue;
  uint8_t bias_pass;
  float vit_bits;
  double vit_pvalue;
  uint8_t passed;
};

void create_msv_output(h5::File& f, const MsvOptions& opt, const std::vector<HmmModel>& models,
                       const SequenceSet& targets, unsigned stages);
// /msv's columns as run records hold them (io/row_runs.hpp), keyed by (model, target): a
// finished file lists its rows in that order, whatever the number of workers or ranks.
RowSchema msv_row_schema();
std::string pack_msv_rows(const std::vector<MsvRow>& rows);

}  // namespace hpc
