// libFuzzer target for the NCBI matrix parser (io/matrix.cpp): parse or throw hpc::Error;
// a parsed matrix must have every score within the documented range.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "io/matrix.hpp"
#include "src/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const hpc::ScoreMatrix m = hpc::parse_ncbi_matrix(in, "fuzz.mat");
    for (int a = 0; a < hpc::kAlphabetSize; ++a)
      for (int b = 0; b < hpc::kAlphabetSize; ++b)
        if (m.score[a][b] < -1000 || m.score[a][b] > 1000) std::abort();
  } catch (const hpc::Error&) {
  }
  return 0;
}
