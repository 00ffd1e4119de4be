#pragma once
// The two gapped rows of an alignment, rebuilt from its CIGAR and the sequences' residues
// (BLAST's qseq/sseq, the pairwise display). A CIGAR that does not fit the sequences (an '='
// over different residues, a span past the end) is an error: the sequences are not the ones
// the run aligned.
#include <string>

#include "src/core/alignment.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

struct AlignedPair {
  std::string query, target;  // equal lengths, '-' for gaps, residues as letters
};

// Throws hpc::Error (naming `what`, e.g. "query q1 / target t2") when the CIGAR does not fit.
AlignedPair aligned_pair(const Alignment& aln, SeqView query, SeqView target, const std::string& what);

}  // namespace hpc
