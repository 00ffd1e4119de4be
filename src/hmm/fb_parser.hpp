#pragma once
// Host side of the lane parsers (fb_parser_lanes.hpp): a profile in lane form, the parsers
// run on this thread, and the nats from their special rows. What one target's parsers hand
// to hmmsearch's post-filter stages (FbParse) is the same whether the GPU
// (kernels/hmm_fb_engine.hpp) or this code produced it; HmmsearchPipeline::score_parsed
// consumes it. Run under HmmerFloatMode, as hmmsearch does.
#include <cstdint>
#include <vector>

#include "src/hmm/fb_parser_lanes.hpp"
#include "src/hmm/fb_profile.hpp"

namespace hpc::hmm {

// FbProfile's rfv and tfv as plain floats (the layout the GPU receives).
struct FbLaneProfile {
  int M = 0, Q = 0;
  std::vector<Lanes4> rfv, tfv;
  FbLanesView view() const { return FbLanesView{M, Q, rfv.data(), tfv.data()}; }
};
FbLaneProfile lane_profile(const FbProfile& p);

// One target's parser results: the Forward score and, when Backward ran, both special rows
// (L+1 rows of kFbXCells: E, N, J, B, C, scale, as FbMatrix::xmx) and Backward's own-scales flag.
struct FbParse {
  float fwd_nats = 0.0f, bck_nats = 0.0f;
  bool has_backward = false;
  bool bck_own_scales = false;
  std::vector<float> fwd_x, bck_x;
};

// The scores in nats, as forward()/backward() compute them: the logs (double, libm) of the
// scale factors > 1 summed in float in the parsers' row order (Forward 1..L, Backward L..1),
// plus the log of the last cell. `scale(i)` is row i's factor, `stride` floats apart.
// Throws hpc::Error where forward()/backward() do (NaN, 0 or infinity).
float fb_forward_nats(const float* scale, size_t stride, int L, float xC, const FbSpecialOdds& xf);
float fb_backward_nats(const float* scale, size_t stride, int L, float xN);

// The parsers on this thread. `row` is scratch (grown as needed).
float forward_parser_nats(const uint8_t* seq, int L, const FbLaneProfile& p, std::vector<Lanes4>& row,
                          std::vector<float>& scales);
// Forward, then (backward) Backward: the rows domain definition reads.
FbParse parse_target(const uint8_t* seq, int L, const FbLaneProfile& p, bool backward, std::vector<Lanes4>& row);

}  // namespace hpc::hmm
