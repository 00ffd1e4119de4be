#pragma once
// Deterministic synthetic protein database, the benchmarks' target set
// (`hpcalign makedb --synthetic --residues 207e6 --seed 1`). Statistics like UniProtKB/Swiss-Prot:
// lengths log-normal with median 290 and log-sd 0.62 (mean ~350), drawn as 290 * e^(0.62 z)
// with z the sum of 12 uniforms minus 6 (Irwin-Hall: mean 0, variance 1, |z| <= 6, so
// lengths lie in 8..11,960); residues i.i.d. with Swiss-Prot's amino-acid frequencies.
// Irwin-Hall's tails are thinner than a normal's beyond ~3 sd: --residues 207e6 --seed 1 gives
// 589,963 sequences, the longest 3,743 (a Gaussian z would reach ~6,400; Swiss-Prot's true
// tail goes on to titin's ~35,000).
// Identical on every machine and compiler: Philox4x32-10 streams (src/core/philox.hpp) and
// integer arithmetic only (no std:: distributions, no floating point). Sequence i, "syn<i>",
// is a pure function of (seed, i); sequences are added until the total reaches `residues`.
#include <array>
#include <cstdint>

#include "src/core/sequence.hpp"

namespace hpc {

// Swiss-Prot amino-acid frequencies in units of 0.01 %, in alphabet code order A R N D C Q E
// G H I L K M F P S T W Y V (UniProtKB/Swiss-Prot release statistics); they sum to 9989.
constexpr std::array<uint32_t, 20> kSwissProtFrequency = {825, 553, 406, 545, 137, 393, 675, 707, 227, 596,
                                                          966, 584, 242, 386, 470, 656, 534, 108, 292, 687};
constexpr uint32_t kSyntheticMedianLength = 290;
constexpr uint32_t kSyntheticMinLength = 8;

// 2^(f / 2^32) in Q31 fixed point (2^31 = 1.0), f in [0, 2^32); within 1e-7 (relative; the
// top 24 bits of f are used), integers only.
uint32_t exp2_fraction_q31(uint32_t f);
// The length of a sequence from its 12 Irwin-Hall words (the first 12 words of its stream).
uint32_t synthetic_length(const std::array<uint32_t, 12>& words);
// At least `residues` residues (the last sequence crosses the total), seed chooses the database.
SequenceSet synthetic_database(uint64_t residues, uint64_t seed);

}  // namespace hpc
