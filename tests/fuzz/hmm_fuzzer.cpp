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
      // The annotation strings: M+1 where the header flag says yes, else empty.
      const auto sized = [&](const std::string& s, bool flag) { return s.size() == (flag ? nodes : 0); };
      if (m.length <= 0 || m.mat.size() != nodes || m.t.size() != nodes || !sized(m.consensus, m.has_cons) ||
          !sized(m.rf, m.has_rf) || !sized(m.cs, m.has_cs))
        std::abort();
      check_probabilities(m.mat);
      check_probabilities(m.t);
    }
  } catch (const hpc::Error&) {
  }
  return 0;
}
