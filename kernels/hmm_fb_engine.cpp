// The parser engine's shared filter step and its factory.
#include "kernels/hmm_fb_engine.hpp"

#include <algorithm>
#include <string>

#include "kernels/cpu/fb_engine_cpu.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/fb_engine_cuda.hpp"
#endif

namespace hpc {

void check_fb_jobs(const std::vector<FbJob>& jobs, const std::vector<hmm::FbLaneProfile>& models) {
  for (size_t j = 0; j < jobs.size(); ++j) {
    const FbJob& job = jobs[j];
    if (job.model >= models.size())
      throw Error("parser engine: job " + std::to_string(j) + " names model " + std::to_string(job.model) + " of " +
                  std::to_string(models.size()));
    if (models[job.model].M < 1)
      throw Error("parser engine: job " + std::to_string(j) + "'s model " + std::to_string(job.model) +
                  " has no profile (not held)");
    const uint8_t* end = job.target.data + job.target.length;
    if (std::find_if(job.target.data, end, [](uint8_t c) { return c >= kHmmerAlphabetSize; }) != end)
      throw Error("parser engine: job " + std::to_string(j) + "'s target holds a code outside HMMER's residues");
  }
}

std::vector<hmm::FbParse> FbEngine::filter_and_parse(const std::vector<FbJob>& jobs,
                                                     const std::function<bool(size_t, float)>& keep) {
  const std::vector<float> nats = forward(jobs);
  std::vector<hmm::FbParse> out(jobs.size());
  std::vector<FbJob> kept;
  std::vector<size_t> where;
  for (size_t j = 0; j < jobs.size(); ++j) {
    out[j].fwd_nats = nats[j];
    if (keep(j, nats[j])) kept.push_back(jobs[j]), where.push_back(j);
  }
  std::vector<hmm::FbParse> parsed = parse(kept);
  for (size_t k = 0; k < kept.size(); ++k) out[where[k]] = std::move(parsed[k]);
  return out;
}

std::unique_ptr<FbEngine> make_fb_engine(BackendKind kind, int device, const std::vector<hmm::FbLaneProfile>* models) {
  backend_device_count(kind);  // cuda without a GPU or without CUDA: the backend's clear error
#ifdef HPCALIGN_HAVE_CUDA
  if (kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available()))
    return make_cuda_fb_engine(device, models);
#else
  (void)device;
#endif
  return std::make_unique<CpuFbEngine>(models);
}

}  // namespace hpc
