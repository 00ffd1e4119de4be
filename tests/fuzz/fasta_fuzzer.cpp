// libFuzzer target for the FASTA parser (io/fasta.cpp). Any input must either parse into a
// well-formed SequenceSet or throw hpc::Error; anything else (crash, sanitizer report,
// other exception, broken invariant) is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/fasta.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const hpc::SequenceSet set = hpc::parse_fasta_text(reinterpret_cast<const char*>(data), size, "fuzz.fa");
    // Invariants the rest of the pipeline relies on.
    if (set.empty() || set.offsets.size() != set.size() + 1 || set.offsets.back() != set.residues.size()) std::abort();
    for (size_t i = 0; i < set.size(); ++i)
      if (set.length(i) == 0 || set.ids[i].empty()) std::abort();
    for (uint8_t code : set.residues)
      if (code >= hpc::kAlphabetSize) std::abort();
  } catch (const hpc::Error&) {
    // Rejected input with a message: the expected outcome for garbage.
  }
  return 0;
}
