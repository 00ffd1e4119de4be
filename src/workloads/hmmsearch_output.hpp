#pragma once
// The outputs of `hpcalign hmmsearch` (layout in src/workloads/hmmsearch.hpp): the HDF5 file,
// created with the run's attributes, models and targets, completed with the thresholded hits
// (the text outputs: src/workloads/hmmsearch_text.hpp and src/hmm/hmmsearch_{report,tables,msa}.hpp).
#include <vector>

#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/sequence.hpp"
#include "src/hmm/hmmsearch_hits.hpp"
#include "src/workloads/hmmsearch.hpp"
#include "src/workloads/hmmsearch_rows.hpp"

namespace hpc {

void create_hmmsearch_output(h5::File& f, const HmmsearchOptions& opt, const std::vector<HmmModel>& models,
                             const SequenceSet& targets);
// lists[m], counts[m]: model m's thresholded hit list and pipeline counts. With `scan`
// (hmmscan) lists[s] is sequence s's list, its hits models: rows go to /hmmscan/{targets,domains}
// with the same columns, Z and domZ to /targets/{Z,domZ}.
void write_hmmsearch_results(h5::File& f, const std::vector<hmm::HitList>& lists, const std::vector<HmmCounts>& counts,
                             bool scan = false);

}  // namespace hpc
