#pragma once
// A state path through the profile (P7_TRACE): states with their model node k and target
// position i, built backwards by a traceback and reversed (p7_trace_Append / Reverse), then
// indexed into domains (p7_trace_Index).
#include <cstdint>
#include <stdexcept>
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

// The traceback both tracers share (p7_StochasticTrace, p7_OATrace): from T back to S,
// `select` choosing each state's predecessor (select_m(i, k), ..., select_e(i, &k)).
template <class Selector>
void trace_back(Selector& select, int L, Trace& tr) {
  tr.clear();
  int i = L, k = 0;
  tr.append(kStT, k, i);
  tr.append(kStC, k, i);
  int s0 = kStC;
  while (s0 != kStS) {
    int s1 = -1;
    switch (s0) {
      case kStM: s1 = select.select_m(i, k); --k; --i; break;
      case kStD: s1 = select.select_d(i, k); --k; break;
      case kStI: s1 = select.select_i(i, k); --i; break;
      case kStN: s1 = i == 0 ? kStS : kStN; break;
      case kStC: s1 = select.select_c(i); break;
      case kStJ: s1 = select.select_j(i); break;
      case kStE: s1 = select.select_e(i, &k); break;
      case kStB: s1 = select.select_b(i); break;
      default: break;
    }
    if (s1 == -1) throw std::runtime_error("traceback: no predecessor state");
    tr.append(uint8_t(s1), k, i);
    if ((s1 == kStN || s1 == kStJ || s1 == kStC) && s1 == s0) --i;  // N/C/J emit on their loops
    s0 = s1;
  }
  tr.reverse();
}

}  // namespace hpc::hmm
