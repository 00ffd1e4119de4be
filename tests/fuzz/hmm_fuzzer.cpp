// libFuzzer target for the HMMER3 text parser (io/hmm_file.cpp): parse or throw hpc::Error;
// parsed models must have per-node arrays of length LENG+1 and probabilities in [0, 1].
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/hmm_file.hpp"
#include "src/core/error.hpp"

namespace {
template <typename Rows>
void check_probabilities(const Rows& rows) {
  for (const auto& row : rows)
    for (float p : row)
      if (!(p >= 0.0f && p <= 1.0f)) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto models = hpc::parse_hmm_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.hmm");
    for (const hpc::HmmModel& m : models) {
      const size_t nodes = size_t(m.length) + 1;
      if (m.length <= 0 || m.mat.size() != nodes || m.ins.size() != nodes || m.t.size() != nodes ||
          m.map.size() != nodes || m.consensus.size() != nodes)
        std::abort();
      check_probabilities(m.mat);
      check_probabilities(m.ins);
      check_probabilities(m.t);
    }
  } catch (const hpc::Error&) {
  }
  return 0;
}
