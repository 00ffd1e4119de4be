#pragma once
// The walk back over a traceback rectangle's 4-bit cells, by reference.hpp's tie rules 2 and 3:
// one walk for the scalar reference, the reduced-space aligner and the CPU strip aligner, so
// that they cannot drift apart. A cell's bits 0-1 say where its H came from (Source), bit 2
// that its E was opened there, bit 3 that its F was.
#include <cstdint>
#include <string>

#include "src/core/alignment.hpp"

namespace hpc::traceback {

enum Source : uint8_t { kZero = 0, kDiag = 1, kUp = 2, kLeft = 3 };
constexpr uint8_t kEOpenBit = 4, kFOpenBit = 8;

// In rectangle coordinates: row i is the rectangle's i-th query residue q[i - 1], column j its
// j-th target residue t[j - 1]; row 0 and column 0 are its border.
struct Walk {
  enum State { InH, InE, InF } state = InH;
  uint32_t i = 0, j = 0;
  bool stopped = false;  // local start reached
  std::string ops;       // end to start
  bool active(uint32_t above_row) const { return !stopped && i > above_row && j > 0; }
  // One move from cell (i, j), whose bits are `bits`.
  void step(uint8_t bits, const uint8_t* q, const uint8_t* t) {
    if (state == InH) {
      const uint8_t src = bits & 3;
      if (src == kZero) {  // local start (tie rule 3)
        stopped = true;
      } else if (src == kDiag) {
        ops += q[i - 1] == t[j - 1] ? '=' : 'X';
        --i, --j;
      } else {
        state = src == kUp ? InF : InE;
      }
    } else if (state == InF) {
      ops += 'I';
      --i;
      if (bits & kFOpenBit) state = InH;
    } else {
      ops += 'D';
      --j;
      if (bits & kEOpenBit) state = InH;
    }
  }
  // The walk's alignment into `a`: the rectangle starts at residues (i0, j0) and ends at
  // (end_i, end_j), 1-based; global mode's leading end gap runs along the border as one gap.
  void finish(AlignMode mode, uint32_t i0, uint32_t j0, uint32_t end_i, uint32_t end_j, Alignment& a) {
    if (mode == AlignMode::Global) {
      ops.append(i, 'I');
      ops.append(j, 'D');
      i = j = 0;
    }
    a.cigar = cigar_from_reversed_ops(ops);
    const uint32_t qs = i0 + i, ts = j0 + j;  // first residue consumed, 1-based
    if (end_i >= qs) a.qstart = qs, a.qend = end_i;
    if (end_j >= ts) a.tstart = ts, a.tend = end_j;
  }
};

}  // namespace hpc::traceback
