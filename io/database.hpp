#pragma once
// A target database: the sequences in file order plus a length-sorted order used to
// cut partitions of similar length (sorting alone is worth +129% in CUDASW++'s measurements).
// `hpcalign makedb` stores it in HDF5 so later runs skip FASTA parsing.
#include <cstdint>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

struct Database {
  SequenceSet seqs;                 // file order; hit target indices refer to it
  std::vector<uint32_t> by_length;  // indices in length order (before_in_length_order)
  std::string path;
};

// by_length's order: ascending length, ties by index. Workers that list a tile's targets in
// database position order (hmmsearch's survivors, hmmscan's passes) sort by this same rule.
inline bool before_in_length_order(const SequenceSet& s, uint32_t a, uint32_t b) {
  const size_t la = s.length(a), lb = s.length(b);
  return la != lb ? la < lb : a < b;
}

Database make_database(SequenceSet seqs);
// FASTA (plain or .gz) or a makedb HDF5 file (recognised by its signature). A FASTA file is
// read under `rules`; a makedb file holds what makedb read under BLAST's rules (U/O/J as X,
// a final '*' dropped), which a caller asking for HMMER's rules is warned of on stderr.
// `report` (FASTA only; left as it is for a makedb file) counts the U/O/J read as X.
// `header_lines` as read_fasta's (a makedb file keeps none: left empty).
Database load_database(const std::string& path, ResidueRules rules = ResidueRules::kBlast,
                       FastaReport* report = nullptr, std::vector<std::string>* header_lines = nullptr);
// Writes /db/{residues,offsets,ids,by_length} and attributes (sequences, residues, format version).
void write_database(const Database& db, const std::string& path);
bool is_hdf5_file(const std::string& path);

}  // namespace hpc
