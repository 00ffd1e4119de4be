#include "src/hmm/trace.hpp"

#include <algorithm>

namespace hpc::hmm {

void Trace::append(uint8_t s, int kk, int ii) {
  int ti = 0, tk = 0;
  switch (s) {
    case kStN: case kStC: case kStJ:  // emit on transition: only the second of a pair emits
      ti = (!st.empty() && st.back() == s) ? ii : 0;
      break;
    case kStD: tk = kk; break;
    case kStM: case kStI: ti = ii, tk = kk; break;
    default: break;
  }
  st.push_back(s), k.push_back(tk), i.push_back(ti);
}

void Trace::reverse() {
  // Built backwards, N/C/J runs read C-,Cx,Cx; pull residues back by one so they read Cx,Cx,C-.
  const int N = size();
  for (int z = 0; z + 1 < N; ++z)
    if ((st[z] == kStN || st[z] == kStC || st[z] == kStJ) && st[z + 1] == st[z] && i[z] == 0 && i[z + 1] > 0)
      i[z] = i[z + 1], i[z + 1] = 0;
  std::reverse(st.begin(), st.end());
  std::reverse(k.begin(), k.end());
  std::reverse(i.begin(), i.end());
}

void Trace::index() {
  domains.clear();
  TraceDomain cur;
  for (int z = 0; z < size(); ++z) {
    if (st[z] == kStB) {
      cur = TraceDomain{};
      cur.tfrom = z;
    } else if (st[z] == kStM) {
      if (cur.sqfrom == 0) cur.sqfrom = i[z];
      if (cur.hmmfrom == 0) cur.hmmfrom = k[z];
      cur.sqto = i[z], cur.hmmto = k[z];
    } else if (st[z] == kStE) {
      cur.tto = z;
      domains.push_back(cur);
    }
  }
}

}  // namespace hpc::hmm
