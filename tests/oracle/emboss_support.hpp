#pragma once
// Helpers for the tests that compare with EMBOSS water/needle.
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/core/sequence.hpp"
#include "test_support.hpp"

namespace hpc::test {

// Path of EMBOSS's EBLOSUM62, as `embossdata -filename` reports it ("File <path> Exists").
inline std::string emboss_matrix_path() {
  std::istringstream out(run_command("embossdata -filename EBLOSUM62 -auto 2>/dev/null"));
  for (std::string line; std::getline(out, line);) {
    std::istringstream words(line);
    std::string file, path, state;
    if (words >> file >> path >> state && file == "File" && state == "Exists") return path;
  }
  return "";
}

// The pfam=... family of each record, in file order (our reader keeps only the id).
inline std::vector<std::string> families(const std::string& fasta) {
  std::ifstream in(fasta);
  std::vector<std::string> fam;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '>') continue;
    const size_t p = line.find("pfam=");
    fam.push_back(p == std::string::npos ? "" : line.substr(p + 5));
  }
  return fam;
}

// Writes sequences `which` of `set` named <prefix><index>, so the peers' output names them
// back to us (without the ambiguity of ids that repeat).
inline void write_fasta(const std::string& path, const SequenceSet& set, const std::vector<uint32_t>& which,
                        const std::string& prefix = "s") {
  std::ofstream out(path);
  for (uint32_t k : which) {
    const SeqView v = set.view(k);
    out << ">" << prefix << k << "\n" << decode(v.data, v.length) << "\n";
  }
}

inline std::vector<uint32_t> index_range(uint32_t begin, uint32_t end) {
  std::vector<uint32_t> v(end - begin);
  std::iota(v.begin(), v.end(), begin);
  return v;
}

}  // namespace hpc::test
