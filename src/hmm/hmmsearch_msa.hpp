#pragma once
// hmmsearch 3.3.2's -A output for one query: the multiple alignment of every included domain of
// every included target (p7_tophits_Alignment with all consensus columns, from the domains'
// alignment displays as p7_alidisplay_Backconvert and p7_tracealign_Seqs build it: inserts
// lower case and split half left, half right between match columns, '.' for insert gaps,
// '-' for deletions, PP per residue and PP_cons, RF 'x' on match columns), written as Easel's
// Stockholm writer does (esl_msafile_stockholm, 200 columns a block; one block, Pfam style,
// when `block_width` is 0). Sequences are named "target/from-to", described "[subseq from] ...".
#include <ostream>
#include <string>

#include "io/hmm_file.hpp"
#include "src/hmm/hmmsearch_hits.hpp"

namespace hpc::hmm {

// Number of sequences written; 0 (nothing written) when no domain is included.
int write_included_msa(std::ostream& out, const HmmModel& query, const HitList& list, const std::string& author,
                       int block_width);

}  // namespace hpc::hmm
