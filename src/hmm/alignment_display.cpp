#include "src/hmm/alignment_display.hpp"

#include <cctype>

#include "src/core/alphabet.hpp"
#include "src/hmm/sse_expf.hpp"
#include "src/hmm/striped_cells.hpp"

namespace hpc::hmm {

char encode_posterior(float p) { return (p + 0.05 >= 1.0) ? '*' : char((p + 0.05) * 10.0) + '0'; }

float decode_posterior(char c) {
  if (c == '0') return 0.01f;
  if (c == '*') return 1.0f;
  if (c == '.') return 0.0f;
  return float(float(c - '0') / 10.);
}

std::string model_consensus(const HmmModel& m) {
  if (m.has_cons) return m.consensus;
  std::string c(size_t(m.length) + 1, ' ');
  for (int k = 1; k <= m.length; ++k) {
    int x = 0;
    for (int a = 1; a < kHmmAlphabet; ++a)
      if (m.mat[k][a] > m.mat[k][x]) x = a;
    const char r = kHmmResidues[x];
    c[k] = m.mat[k][x] >= 0.5f ? r : char(std::tolower(static_cast<unsigned char>(r)));
  }
  return c;
}

AlignmentDisplay make_alignment_display(const Trace& tr, int z1, int z2, const FbProfile& p, const FbMatrix& pp,
                                        const uint8_t* seq) {
  AlignmentDisplay a;
  const int n = z2 - z1 + 1;
  a.model.resize(n), a.mline.resize(n), a.aseq.resize(n), a.pp.resize(n);
  for (int z = z1; z <= z2; ++z) {
    const int c = z - z1, k = tr.k[z], i = tr.i[z];
    const StripedCell cell(k, p.Q);
    if (tr.st[z] == kStD) {
      a.model[c] = p.consensus[k], a.mline[c] = ' ', a.aseq[c] = '-', a.pp[c] = '.';
      continue;
    }
    const uint8_t x = seq[i - 1];
    const char residue = decode_residue(x);
    if (tr.st[z] == kStM) {
      const char cons = p.consensus[k];
      a.model[c] = cons;
      if (std::toupper(static_cast<unsigned char>(cons)) == residue) a.mline[c] = cons;
      else a.mline[c] = lane(p.emit(x)[cell.q], cell.r) > 1.0f ? '+' : ' ';
      a.aseq[c] = residue;
      a.pp[c] = encode_posterior(lane(mmo(pp.row(i), cell.q), cell.r));
    } else {
      a.model[c] = '.', a.mline[c] = ' ';
      a.aseq[c] = char(std::tolower(static_cast<unsigned char>(residue)));
      a.pp[c] = encode_posterior(lane(imo(pp.row(i), cell.q), cell.r));
    }
  }
  return a;
}

}  // namespace hpc::hmm
