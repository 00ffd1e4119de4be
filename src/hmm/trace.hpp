#pragma once
// A state path through the profile (P7_TRACE): states with their model node k and target
// position i, built backwards by a traceback and reversed (p7_trace_Append / Reverse), then
// indexed into domains (p7_trace_Index).
#include <cstdint>
#include <vector>

namespace hpc::hmm {

enum TraceState : uint8_t { kStM = 1, kStD, kStI, kStS, kStN, kStB, kStE, kStC, kStT, kStJ };

struct TraceDomain {
  int tfrom = 0, tto = 0, sqfrom = 0, sqto = 0, hmmfrom = 0, hmmto = 0;
};

struct Trace {
  std::vector<uint8_t> st;
  std::vector<int> k, i;
  std::vector<TraceDomain> domains;
  void clear() { st.clear(), k.clear(), i.clear(), domains.clear(); }
  void append(uint8_t s, int kk, int ii);
  void reverse();
  void index();
  int size() const { return int(st.size()); }
};

}  // namespace hpc::hmm
