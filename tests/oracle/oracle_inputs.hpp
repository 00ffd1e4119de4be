#pragma once
// Inputs shared by the oracle tests that compare searches with ssearch36 and blastp.
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "oracle/emboss_support.hpp"
#include "src/core/sequence.hpp"
#include "test_support.hpp"

namespace hpc::test {

// All of `set`, named <prefix><index>.
inline void write_renamed(const std::string& path, const SequenceSet& set, const std::string& prefix) {
  write_fasta(path, set, index_range(0, uint32_t(set.size())), prefix);
}

// Seven queries: the 3 of queries3.fa (few or no homologs in balifam2000.fa), then the first
// member of four families of balifam2000.fa (~45 homologs each there, aligned with gaps).
inline SequenceSet oracle_queries() {
  const std::string library_path = data_path("balifam2000.fa");
  const SequenceSet library = read_fasta(library_path);
  const std::vector<std::string> fam = families(library_path);
  SequenceSet q = read_fasta(data_path("queries3.fa"));
  for (const char* wanted : {"PF00202", "PF00051", "PF00505", "PF00084"})
    for (uint32_t k = 0; k < library.size(); ++k)
      if (fam[k] == wanted) {
        q.add(library.ids[k], library.view(k).data, library.length(k));
        break;
      }
  return q;
}

}  // namespace hpc::test
