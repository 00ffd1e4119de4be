#pragma once
// What msv and hmmsearch share about their inputs: the models' content fingerprint (a resume
// must match it) and the HDF5 tables of models and targets with the host attribute.
#include <string>
#include <vector>

#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

// The numbers the pipeline reads (parsed, so a re-gzipped file is the same).
std::string models_fingerprint(const std::vector<HmmModel>& models);
// /models/{name,length}, /targets/{id,length} and the 'host' attribute of '/'.
void write_models_and_targets(h5::File& f, const std::vector<HmmModel>& models, const SequenceSet& targets);

}  // namespace hpc
