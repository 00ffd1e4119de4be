#pragma once
// The HDF5 file of `hpcalign msv` (layout in src/workloads/msv.hpp), written by rank 0: created
// with its attributes, models and targets (and an empty /msv: an unfinished file has no rows);
// the rows, staged by the workers in run files (src/workloads/tile_runs.hpp), merged into
// /msv by (model, target) at the end.
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "io/result_lifecycle.hpp"
#include "io/row_runs.hpp"
#include "kernels/msv_engine.hpp"
#include "src/core/sequence.hpp"
#include "src/workloads/msv.hpp"

namespace hpc {

void create_msv_output(h5::File& f, const MsvOptions& opt, const std::vector<HmmModel>& models,
                       const SequenceSet& targets, unsigned stages);
// /msv's columns and how a reported pair fills them (io/row_runs.hpp), keyed by (model, target):
// a finished file lists its rows in that order, whatever the number of workers or ranks.
const RowFields<MsvPair>& msv_row_fields();

}  // namespace hpc
