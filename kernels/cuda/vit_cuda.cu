// Host side of the GPU Viterbi filter: plan (vit_layout.hpp), upload, one launch per segment
// size, download, and the conversion to nats shared with the CPU twin.
#include "kernels/cuda/vit_cuda.hpp"

#include <algorithm>

#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/timed_stream.hpp"
#include "kernels/cuda/vit_kernels.cuh"
#include "src/core/alphabet.hpp"

namespace hpc::hmm {

using cuda::DeviceBuffer;

static_assert(vit::kCodes == kAlphabetSize, "the kernel's profile has the first kAlphabetSize emission rows");
static_assert(sizeof(vit::GroupParams) % 8 == 0, "GroupParams is copied as is to the device");

struct VitCuda::Impl {
  explicit Impl(int device) : ts(device) {}
  cuda::TimedStream ts;
  DeviceBuffer<uint32_t> profiles;
  DeviceBuffer<vit::GroupParams> groups;
  DeviceBuffer<vit::Work> work;
  DeviceBuffer<uint8_t> residues;
  DeviceBuffer<uint64_t> offsets;
  DeviceBuffer<int32_t> moves, out;
  FilterWorkspace ws;  // the host's Viterbi filter, for targets with U, O or J
};

namespace {

// Targets with a code past the kernel's rows (HMMER's U, O, J) are scored on the host.
bool on_host(const SeqView& v) {
  uint8_t largest = 0;  // a max over every residue, no early exit: the compiler vectorizes it
  for (size_t i = 0; i < v.length; ++i) largest = std::max(largest, v.data[i]);
  return largest >= vit::kCodes;
}

}  // namespace

VitCuda::VitCuda(int device) : impl_(std::make_unique<Impl>(device)) {}

// The device current while the buffers are freed (the stream and events then go last).
VitCuda::~VitCuda() {
  if (impl_) cudaSetDevice(impl_->ts.device());  // no throw from a destructor
}

int VitCuda::max_model_length() { return vit::kMaxModelLength; }

double VitCuda::kernel_seconds() const { return impl_->ts.kernel_seconds(); }

std::vector<float> VitCuda::scores(const VitProfile& p, const std::vector<SeqView>& targets) {
  std::vector<VitGroup> groups(1);
  groups[0].profile = &p;
  groups[0].targets = targets;
  return std::move(scores(groups)[0]);
}

std::vector<std::vector<float>> VitCuda::scores(const std::vector<VitGroup>& all) {
  Impl& m = *impl_;
  // Targets with U, O or J (rare: selenoproteins, say): the CPU twin, the same scores.
  std::vector<VitGroup> groups(all.size());
  std::vector<std::vector<float>> result(all.size());
  bool any_on_host = false;
  for (size_t g = 0; g < all.size(); ++g) {
    groups[g].profile = all[g].profile;
    result[g].assign(all[g].targets.size(), 0.0f);
    for (size_t i = 0; i < all[g].targets.size(); ++i) {
      const SeqView v = all[g].targets[i];
      if (all[g].profile && on_host(v)) {
        result[g][i] = viterbi_filter_score(*all[g].profile, v.data, int(v.length), m.ws);
        any_on_host = true;
      } else {
        groups[g].targets.push_back(v);
      }
    }
  }
  if (!any_on_host) return device_scores(all);
  const std::vector<std::vector<float>> gpu = device_scores(groups);
  for (size_t g = 0; g < all.size(); ++g)
    for (size_t i = 0, j = 0; i < all[g].targets.size(); ++i)
      if (!on_host(all[g].targets[i])) result[g][i] = gpu[g][j++];
  return result;
}

std::vector<std::vector<float>> VitCuda::device_scores(const std::vector<VitGroup>& groups) {
  Impl& m = *impl_;
  const vit::Batch b = vit::plan_batch(groups);
  const size_t n = b.targets();
  std::vector<int32_t> raw(n);
  if (n == 0) return vit::finish(b, groups, raw);
  CUDA_CHECK(cudaSetDevice(m.ts.device()));
  m.profiles.upload(b.profiles.data(), b.profiles.size(), m.ts.get());
  m.groups.upload(b.groups.data(), b.groups.size(), m.ts.get());
  m.work.upload(b.work.data(), b.work.size(), m.ts.get());
  m.residues.reserve(std::max<size_t>(1, b.residues.size()));
  m.residues.upload(b.residues.data(), b.residues.size(), m.ts.get());
  m.offsets.upload(b.offsets.data(), b.offsets.size(), m.ts.get());
  m.moves.upload(b.moves.data(), n, m.ts.get());
  m.out.reserve(n);

  cuda::VitKernelArgs a;
  a.profiles = reinterpret_cast<const uint4*>(m.profiles.get());  // cudaMalloc: 256-byte aligned
  a.groups = m.groups.get();
  a.residues = m.residues.get();
  a.offsets = m.offsets.get();
  a.moves = m.moves.get();
  a.out = m.out.get();
  m.ts.kernels_begin();
  for (const vit::Batch::Launch& l : b.launches) {
    a.work = m.work.get() + l.work_begin;
    a.blocks = l.work_end - l.work_begin;
    cuda::launch_vit_kernel(a, l.segment, m.ts.get());
  }
  m.ts.kernels_end();
  m.ts.copy_results(raw.data(), m.out.get(), n * sizeof(int32_t));
  return vit::finish(b, groups, raw);
}

}  // namespace hpc::hmm
