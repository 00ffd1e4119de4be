#include "kernels/cpu/fb_engine_cpu.hpp"

#include "src/hmm/hmmer_float_mode.hpp"

namespace hpc {

std::vector<float> CpuFbEngine::forward(const std::vector<FbJob>& jobs) {
  check_fb_jobs(jobs, models_);
  const hmm::HmmerFloatMode mode;
  std::vector<float> out;
  out.reserve(jobs.size());
  for (const FbJob& j : jobs)
    out.push_back(hmm::forward_parser_nats(j.target.data, int(j.target.length), models_[j.model], row_, scales_));
  return out;
}

std::vector<hmm::FbParse> CpuFbEngine::parse(const std::vector<FbJob>& jobs) {
  check_fb_jobs(jobs, models_);
  const hmm::HmmerFloatMode mode;
  std::vector<hmm::FbParse> out;
  out.reserve(jobs.size());
  for (const FbJob& j : jobs)
    out.push_back(hmm::parse_target(j.target.data, int(j.target.length), models_[j.model], true, row_));
  return out;
}

}  // namespace hpc
