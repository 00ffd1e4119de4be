// libFuzzer target for the PSI-BLAST ASCII PSSM parser (io/pssm.cpp): parse or throw
// hpc::Error; a parsed profile has length x 24 scores and one residue per row.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/pssm.hpp"
#include "src/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const hpc::Pssm p = hpc::parse_ascii_pssm(std::string(reinterpret_cast<const char*>(data), size), "fuzz.pssm");
    if (p.profile.length == 0 || p.residues.size() != p.profile.length ||
        p.profile.scores.size() != size_t(p.profile.length) * hpc::kAlphabetSize)
      std::abort();
    for (int32_t s : p.profile.scores)
      if (s < -1000 || s > 1000) std::abort();
  } catch (const hpc::Error&) {
  }
  return 0;
}
