#pragma once
// One pairwise alignment and the hit records built from it.
#include <cstdint>
#include <string>
#include <string_view>

namespace hpc {

// Coordinates are 1-based and inclusive (as BLAST prints them); an empty alignment
// (score 0 in local mode) has all coordinates 0 and an empty CIGAR.
// CIGAR ops (the target is the reference, as in SAM):
//   '=' residues identical, 'X' residues differ, 'I' query residue against a gap,
//   'D' target residue against a gap. Example: "12=1X3=2I40=".
struct Alignment {
  int32_t score = 0;
  uint32_t qstart = 0, qend = 0, tstart = 0, tend = 0;
  std::string cigar;
};

// Figures derived from a CIGAR (for BLAST tabular output and identity).
struct CigarStats {
  uint32_t length = 0;      // columns of the alignment
  uint32_t matches = 0;     // '=' columns
  uint32_t mismatches = 0;  // 'X' columns
  uint32_t gap_opens = 0;   // runs of I or D
  uint32_t query_span = 0;  // residues of the query consumed (= X I)
  uint32_t target_span = 0; // residues of the target consumed (= X D)
  double identity() const { return length ? double(matches) / length : 0.0; }
};
CigarStats cigar_stats(std::string_view cigar);  // throws hpc::Error on a malformed CIGAR
// A traceback collects one op per column from the end to the start; this turns such a list
// into the CIGAR, which runs start to end ("DDI=" reversed -> "1=1I2D").
std::string cigar_from_reversed_ops(const char* ops, size_t count);
inline std::string cigar_from_reversed_ops(const std::string& ops) { return cigar_from_reversed_ops(ops.data(), ops.size()); }

struct Hit {
  uint32_t query = 0;   // index into the query set (file order)
  uint32_t target = 0;  // index into the target set / database (file order)
  double bits = 0, evalue = 0;
  Alignment aln;        // aln.score is the raw score
};

// The one ordering of hits everywhere: query, then score descending, then target index.
inline bool hit_order(const Hit& a, const Hit& b) {
  if (a.query != b.query) return a.query < b.query;
  if (a.aln.score != b.aln.score) return a.aln.score > b.aln.score;
  return a.target < b.target;
}

}  // namespace hpc
