#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/pss_cuda.hpp"
#include "src/core/philox.hpp"

namespace hpc {
namespace {

constexpr int kThreads = 128;

// Copy k of the subject, stored interleaved: residue j of copy k at out[j * count + k].
// The shuffle is shuffle_in_place() of src/core/philox.hpp on a strided view: the same draws
// in the same order, hence the same permutation as the CPU.
__global__ void permute_kernel(const uint8_t* subject, uint32_t n, uint64_t seed, uint32_t subject_index,
                               uint32_t first_k, uint32_t count, uint8_t* out) {
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= count) return;
  for (uint32_t j = 0; j < n; ++j) out[size_t(j) * count + c] = subject[j];
  PermutationStream rng(seed, subject_index, first_k + c);
  for (uint32_t i = n; i > 1; --i) {
    const uint32_t j = rng.below(i);
    uint8_t* a = out + size_t(i - 1) * count + c;
    uint8_t* b = out + size_t(j) * count + c;
    const uint8_t t = *a;
    *a = *b;
    *b = t;
  }
}

// One thread per permuted copy; the recurrence of src/align/profile_reference.cpp, target
// columns outer, query rows inner. H and E of each row live in global memory, interleaved
// per thread (h[i * count + c]) so that a warp's accesses coalesce.
__global__ void score_kernel(const int32_t* profile, uint32_t m, const uint8_t* copies, uint32_t n, uint32_t count,
                             int32_t open_extend, int32_t extend, int32_t* h, int32_t* e, int32_t* best_out) {
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= count) return;
  const int32_t neg = -(1 << 29);
  for (uint32_t i = 0; i < m; ++i) {
    h[size_t(i) * count + c] = 0;
    e[size_t(i) * count + c] = neg;
  }
  int32_t best = 0;
  for (uint32_t j = 0; j < n; ++j) {
    const uint8_t t = copies[size_t(j) * count + c];
    int32_t diag = 0, up = 0, f = neg;
    for (uint32_t i = 0; i < m; ++i) {
      const size_t at = size_t(i) * count + c;
      const int32_t h_left = h[at];
      const int32_t ei = max(e[at] - extend, h_left - open_extend);
      f = max(f - extend, up - open_extend);
      const int32_t cell = max(max(0, diag + profile[size_t(i) * 24 + t]), max(ei, f));
      e[at] = ei;
      diag = h_left;
      h[at] = cell;
      up = cell;
      best = max(best, cell);
    }
  }
  best_out[c] = best;
}

struct DeviceGuard {
  explicit DeviceGuard(int device) { CUDA_CHECK(cudaSetDevice(device)); }
};

void launch_permute(cuda::DeviceBuffer<uint8_t>& d_subject, cuda::DeviceBuffer<uint8_t>& d_copies, SeqView subject,
                    uint64_t seed, uint32_t subject_index, uint32_t first_k, uint32_t count) {
  d_subject.upload(subject.data, subject.length, 0);
  d_copies.reserve(size_t(subject.length) * count);
  const uint32_t blocks = (count + kThreads - 1) / kThreads;
  permute_kernel<<<blocks, kThreads>>>(d_subject.get(), subject.length, seed, subject_index, first_k, count,
                                       d_copies.get());
  CUDA_CHECK_LAUNCH("permute_kernel");
}

}  // namespace

std::vector<uint8_t> pss_cuda_permute(int device, SeqView subject, uint64_t seed, uint32_t subject_index,
                                      uint32_t first_k, uint32_t count) {
  DeviceGuard guard(device);
  std::vector<uint8_t> out(size_t(subject.length) * count);
  if (out.empty()) return out;
  cuda::DeviceBuffer<uint8_t> d_subject, d_copies;
  launch_permute(d_subject, d_copies, subject, seed, subject_index, first_k, count);
  std::vector<uint8_t> interleaved(out.size());
  CUDA_CHECK(cudaMemcpy(interleaved.data(), d_copies.get(), out.size(), cudaMemcpyDeviceToHost));
  for (uint32_t c = 0; c < count; ++c)
    for (uint32_t j = 0; j < subject.length; ++j)
      out[size_t(c) * subject.length + j] = interleaved[size_t(j) * count + c];
  return out;
}

std::vector<int32_t> pss_cuda_score_permutations(int device, const QueryProfile& profile, GapCosts gaps,
                                                 SeqView subject, uint64_t seed, uint32_t subject_index,
                                                 uint32_t count) {
  DeviceGuard guard(device);
  std::vector<int32_t> scores(count, 0);
  if (count == 0 || subject.length == 0 || profile.length == 0) return scores;
  cuda::DeviceBuffer<uint8_t> d_subject, d_copies;
  cuda::DeviceBuffer<int32_t> d_profile, d_h, d_e, d_best;
  launch_permute(d_subject, d_copies, subject, seed, subject_index, 0, count);
  d_profile.upload(profile.scores.data(), profile.scores.size(), 0);
  d_h.reserve(size_t(profile.length) * count);
  d_e.reserve(size_t(profile.length) * count);
  d_best.reserve(count);
  const uint32_t blocks = (count + kThreads - 1) / kThreads;
  score_kernel<<<blocks, kThreads>>>(d_profile.get(), profile.length, d_copies.get(), subject.length, count,
                                     gaps.open + gaps.extend, gaps.extend, d_h.get(), d_e.get(), d_best.get());
  CUDA_CHECK_LAUNCH("score_kernel");
  CUDA_CHECK(cudaMemcpy(scores.data(), d_best.get(), count * sizeof(int32_t), cudaMemcpyDeviceToHost));
  return scores;
}

}  // namespace hpc
