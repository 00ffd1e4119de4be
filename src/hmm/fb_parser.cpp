#include "src/hmm/fb_parser.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "src/core/error.hpp"
#include "src/hmm/fb_matrix.hpp"

namespace hpc::hmm {
namespace {

static_assert(kFbXCells == kXCells && sizeof(Lanes4) == sizeof(__m128), "lane layout of FbMatrix and FbProfile");

struct HostRow {
  Lanes4* v;
  Lanes4 get(int j) const { return v[j]; }
  void set(int j, const Lanes4& x) { v[j] = x; }
};

std::vector<Lanes4> to_lanes(const std::vector<__m128>& v) {
  std::vector<Lanes4> out(v.size());
  if (!v.empty()) std::memcpy(out.data(), v.data(), v.size() * sizeof(Lanes4));
  return out;
}

HostRow host_row(std::vector<Lanes4>& row, int Q) {
  if (row.size() < size_t(3) * Q) row.resize(size_t(3) * Q);
  return HostRow{row.data()};
}

float add_log(float total, float scale) { return scale > 1.0f ? float(total + std::log(double(scale))) : total; }

void check_range(float last, int L, const char* pass) {
  if (std::isnan(last) || (L > 0 && last == 0.0f) || std::isinf(last))
    throw Error(std::string(pass) + " score out of range (NaN, 0 or infinity) on a target of " + std::to_string(L) +
                " residues");
}

}  // namespace

FbLaneProfile lane_profile(const FbProfile& p) {
  FbLaneProfile lp;
  lp.M = p.M, lp.Q = p.Q;
  lp.rfv = to_lanes(p.rfv), lp.tfv = to_lanes(p.tfv);
  return lp;
}

float fb_forward_nats(const float* scale, size_t stride, int L, float xC, const FbSpecialOdds& xf) {
  float total = 0.0f;
  for (int i = 1; i <= L; ++i) total = add_log(total, scale[size_t(i) * stride]);
  check_range(xC, L, "Forward");
  return float(total + std::log(double(xC * xf.x[kXC][kMove])));
}

float fb_backward_nats(const float* scale, size_t stride, int L, float xN) {
  float total = 0.0f;
  for (int i = L; i >= 1; --i) total = add_log(total, scale[size_t(i) * stride]);
  check_range(xN, L, "Backward");
  return float(total + std::log(double(xN)));
}

float forward_parser_nats(const uint8_t* seq, int L, const FbLaneProfile& p, std::vector<Lanes4>& row,
                          std::vector<float>& scales) {
  HostRow r = host_row(row, p.Q);
  scales.resize(size_t(L) + 1);
  FbScaleSink sink{scales.data()};
  const FbSpecialOdds xf = fb_special_odds(L, true);
  const float xC = fb_forward_parser(seq, L, p.view(), xf, r, sink);
  return fb_forward_nats(scales.data(), 1, L, xC, xf);
}

FbParse parse_target(const uint8_t* seq, int L, const FbLaneProfile& p, bool backward, std::vector<Lanes4>& row) {
  HostRow r = host_row(row, p.Q);
  const FbSpecialOdds xf = fb_special_odds(L, true);
  FbParse out;
  out.fwd_x.resize((size_t(L) + 1) * kFbXCells);
  FbRowsSink fwd{out.fwd_x.data()};
  const float xC = fb_forward_parser(seq, L, p.view(), xf, r, fwd);
  out.fwd_nats = fb_forward_nats(out.fwd_x.data() + kFbXCells - 1, kFbXCells, L, xC, xf);
  if (!backward || L < 1) return out;
  out.bck_x.resize(out.fwd_x.size());
  FbRowsSink bck{out.bck_x.data()};
  const FbBackwardEnd end = fb_backward_parser(seq, L, p.view(), xf, FbRowsScale{out.fwd_x.data()}, r, bck);
  out.bck_nats = fb_backward_nats(out.bck_x.data() + kFbXCells - 1, kFbXCells, L, end.xN);
  out.has_backward = true;
  out.bck_own_scales = end.has_own_scales;
  return out;
}

}  // namespace hpc::hmm
