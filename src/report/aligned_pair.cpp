#include "src/report/aligned_pair.hpp"

#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"

namespace hpc {

AlignedPair aligned_pair(const Alignment& aln, SeqView query, SeqView target, const std::string& what) {
  AlignedPair out;
  if (aln.cigar.empty()) return out;
  auto misfit = [&](const std::string& why) {
    return Error(what + ": the alignment (CIGAR " + aln.cigar + ") does not fit the sequences read (" + why +
                 "); they are not the ones the run aligned");
  };
  if (aln.qstart == 0 || aln.tstart == 0) throw misfit("coordinates start at 0");
  size_t qi = aln.qstart - 1, ti = aln.tstart - 1;
  uint64_t count = 0;
  for (char c : aln.cigar) {
    if (c >= '0' && c <= '9') {
      count = count * 10 + uint64_t(c - '0');
      continue;
    }
    for (uint64_t k = 0; k < count; ++k) {
      const bool uses_q = c != 'D', uses_t = c != 'I';
      if ((uses_q && qi >= query.length) || (uses_t && ti >= target.length)) throw misfit("it runs past a sequence's end");
      const uint8_t a = uses_q ? query.data[qi++] : 0, b = uses_t ? target.data[ti++] : 0;
      if (c == '=' && a != b) throw misfit("an identity over different residues");
      if (c != '=' && c != 'X' && c != 'I' && c != 'D') throw misfit(std::string("unknown op '") + c + "'");
      out.query += uses_q ? decode_residue(a) : '-';
      out.target += uses_t ? decode_residue(b) : '-';
    }
    count = 0;
  }
  if (qi != aln.qend || ti != aln.tend) throw misfit("its ends differ from the stored coordinates");
  return out;
}

}  // namespace hpc
