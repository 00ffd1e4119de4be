#pragma once
// HMMER 3.3.2's alignment display of one domain (p7_alidisplay_Create): one column per M, D or
// I state of the envelope's optimal accuracy trace, from its first M to its last M:
//   model  the model's consensus residue ('.' at an insert)
//   mline  the residue where it is the consensus residue, '+' where its match emission odds
//          are > 1, else ' '
//   aseq   the target residue (upper case at M, lower case at I), '-' at D
//   pp     the posterior probability of the state, 0-9 or '*' (p7_alidisplay_EncodePostProb),
//          '.' at D
// Built where the posteriors are (the worker of a tile); the report and -A need nothing else.
#include <cstdint>
#include <string>

#include "io/hmm_file.hpp"
#include "src/hmm/fb_matrix.hpp"
#include "src/hmm/fb_profile.hpp"
#include "src/hmm/trace.hpp"

namespace hpc::hmm {

struct AlignmentDisplay {
  std::string model, mline, aseq, pp;
  int columns() const { return int(model.size()); }
};

// tr: the optimal accuracy trace of an envelope, z1..z2 its first and last M; seq: the
// envelope's residues (trace position 1 is seq[0]); pp: the envelope's posterior matrix.
AlignmentDisplay make_alignment_display(const Trace& tr, int z1, int z2, const FbProfile& p, const FbMatrix& pp,
                                        const uint8_t* seq);

// The model's consensus line (index 1..M, index 0 a space): the file's CONS column, or for
// formats without one (before 3/e) HMMER's p7_hmm_SetConsensus (the most probable residue,
// upper case when its probability is >= 0.5).
std::string model_consensus(const HmmModel& m);

// p7_alidisplay_EncodePostProb and DecodePostProb.
char encode_posterior(float p);
float decode_posterior(char c);

}  // namespace hpc::hmm
