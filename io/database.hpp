#pragma once
// A target database: the sequences in file order plus a length-sorted order used to
// cut partitions of similar length (sorting alone is worth +129% in CUDASW++'s measurements).
// `hpcalign makedb` stores it in HDF5 so later runs skip FASTA parsing.
#include <cstdint>
#include <string>
#include <vector>

#include "src/core/sequence.hpp"

namespace hpc {

struct Database {
  SequenceSet seqs;                 // file order; hit target indices refer to it
  std::vector<uint32_t> by_length;  // indices, ascending length, ties by index
  std::string path;
};

Database make_database(SequenceSet seqs);
// FASTA (plain or .gz) or a makedb HDF5 file (recognised by its signature).
Database load_database(const std::string& path);
// Writes /db/{residues,offsets,ids,by_length} and attributes (sequences, residues, format version).
void write_database(const Database& db, const std::string& path);
bool is_hdf5_file(const std::string& path);

}  // namespace hpc
