#pragma once
// The CPU parser engine (kernels/hmm_fb_engine.hpp): the lane parsers job by job on this
// thread, under hmmsearch's float mode; the twin the CUDA engine matches bit for bit.
#include "kernels/hmm_fb_engine.hpp"

namespace hpc {

class CpuFbEngine : public FbEngine {
 public:
  explicit CpuFbEngine(const std::vector<hmm::FbLaneProfile>* models) : models_(*models) {}
  std::vector<float> forward(const std::vector<FbJob>& jobs) override;
  std::vector<hmm::FbParse> parse(const std::vector<FbJob>& jobs) override;

 private:
  const std::vector<hmm::FbLaneProfile>& models_;
  std::vector<hmm::Lanes4> row_;
  std::vector<float> scales_;
};

}  // namespace hpc
