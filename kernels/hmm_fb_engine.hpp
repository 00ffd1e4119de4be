#pragma once
// What runs HMMER's Forward and Backward parsers on hmmsearch's Viterbi survivors: a batch of
// (model, target) jobs, then domain definition on the host (HmmsearchPipeline::score_parsed).
// The CPU twin (kernels/cpu/fb_engine_cpu.cpp) and the CUDA engine
// (kernels/cuda/fb_engine_cuda.cu) run the same lane code (src/hmm/fb_parser_lanes.hpp) and
// return the same bits, which equal the SSE forward()/backward() (src/hmm/forward_backward.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/backend.hpp"
#include "src/core/sequence.hpp"
#include "src/hmm/fb_parser.hpp"

namespace hpc {

// model: index in the engine's models; target: residue codes under HMMER's rules (< 27).
struct FbJob {
  uint32_t model;
  SeqView target;
};

class FbEngine {
 public:
  virtual ~FbEngine() = default;
  // The Forward parser's score (nats) of every job, in order.
  virtual std::vector<float> forward(const std::vector<FbJob>& jobs) = 0;
  // The Forward and Backward parsers of every job: scores and the special rows.
  virtual std::vector<hmm::FbParse> parse(const std::vector<FbJob>& jobs) = 0;
  // hmmsearch's order: forward() on every job, then parse() of those that keep(index, nats)
  // accepts (the Forward filter); the others carry their score only (has_backward false).
  std::vector<hmm::FbParse> filter_and_parse(const std::vector<FbJob>& jobs,
                                             const std::function<bool(size_t, float)>& keep);
};

// Throws hpc::Error for a job whose model is not among `models` or has no profile there (not
// held: M 0), or whose target holds a code past HMMER's rules (the engines' shared input check).
void check_fb_jobs(const std::vector<FbJob>& jobs, const std::vector<hmm::FbLaneProfile>& models);

// CPU (device ignored) or CUDA engine `device` over `*models` (hmm::lane_profile of each
// model's build_fb_profile), which it reads for the life of the engine, only at the models
// its jobs name: hmmsearch's job builds a model's profile only while a tile holds the model
// (HmmsearchJob::lane_profiles). Throws hpc::Error for a kind this build or machine lacks.
std::unique_ptr<FbEngine> make_fb_engine(BackendKind kind, int device, const std::vector<hmm::FbLaneProfile>* models);

}  // namespace hpc
