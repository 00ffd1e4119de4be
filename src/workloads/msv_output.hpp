#pragma once
// The HDF5 file of `hpcalign msv` (layout in src/workloads/msv.hpp), written by rank 0: created
// with its attributes, models and targets; rows appended tile by tile with the /tiles ledger
// in the same flush; sorted at the end.
#include <cstdint>
#include <vector>

#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "io/result_lifecycle.hpp"
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
// Finished tiles: their rows and their ledger entries, then a flush.
void append_msv_rows(h5::File& f, const std::vector<uint32_t>& tile_ids, const std::vector<MsvRow>& rows);
// Rows arrive in tile completion order; a finished file lists them by (model, target), so
// its content does not depend on the number of workers or ranks.
void sort_msv_rows(h5::File& f);

}  // namespace hpc
