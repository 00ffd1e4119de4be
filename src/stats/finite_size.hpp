#pragma once
// BLAST's finite-size-corrected E-value of one pair (Spouge's FSC, blastp's E-value since
// BLAST+ 2.2.26): the search space m*n of Karlin-Altschul is replaced by the expected area
// left once the edge effect of an alignment of score y is taken off both sequences, with
// Gaussian spread of that length (Park Y, Sheetlin S, Ma N, Madden TL, Spouge JL. New
// finite-size correction for local alignment score distributions. BMC Res Notes 2012;5:286),
// then scaled from the pair to the database by db_residues / n (BLAST_SpougeStoE).
#include "src/stats/karlin.hpp"

namespace hpc {

// E-value of score y (may be fractional: a composition-adjusted score) for a query of length m
// against a subject of length n in a database of db_residues residues.
double finite_size_evalue(const FiniteSizeParams& p, double y, double m, double n, double db_residues);

}  // namespace hpc
