// Host side of the GPU Viterbi filter: plan (vit_layout.hpp), one upload of it from pinned
// memory, one launch per segment size over the resident database, download, and the
// conversion to nats shared with the CPU twin.
#include "kernels/cuda/vit_cuda.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_database.hpp"
#include "kernels/cuda/timed_stream.hpp"
#include "kernels/cuda/vit_kernels.cuh"
#include "src/core/alphabet.hpp"

namespace hpc::hmm {

using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

static_assert(vit::kCodes == kAlphabetSize, "the kernel's profile has the first kAlphabetSize emission rows");
static_assert(sizeof(vit::GroupParams) % 8 == 0, "GroupParams is copied as is to the device");

struct VitCuda::Impl {
  Impl(int device, const Database& db) : ts(device), db(db), dbdev(cuda::device_database(db, device)) {}
  cuda::TimedStream ts;
  const Database& db;
  std::shared_ptr<const cuda::DeviceDatabase> dbdev;
  PinnedBuffer<uint8_t> plan_host;  // a call's plan (profiles, groups, blocks, targets), one copy
  DeviceBuffer<uint8_t> plan;
  PinnedBuffer<int32_t> raw;        // the kernels' results
  DeviceBuffer<int32_t> out;
  FilterWorkspace ws;  // the host's Viterbi filter, for targets with U, O or J
};

namespace {

// A pinned buffer grown by doubling, its smaller ones kept (cudaFreeHost waits for the device).
template <class T>
void reserve_pinned(PinnedBuffer<T>& b, size_t n) {
  if (n > b.capacity()) b.reserve(std::max(n, 2 * b.capacity()), true);
}

}  // namespace

VitCuda::VitCuda(int device, const Database& db) : impl_(std::make_unique<Impl>(device, db)) {}

// The device current while the buffers are freed (the stream and events then go last).
VitCuda::~VitCuda() {
  if (impl_) cudaSetDevice(impl_->ts.device());  // no throw from a destructor
}

int VitCuda::max_model_length() { return vit::kMaxModelLength; }

double VitCuda::kernel_seconds() const { return impl_->ts.kernel_seconds(); }

std::vector<float> VitCuda::scores(const VitProfile& p, const std::vector<uint32_t>& positions) {
  std::vector<VitGroup> groups(1);
  groups[0].profile = &p;
  groups[0].positions = positions;
  return std::move(scores(groups)[0]);
}

std::vector<std::vector<float>> VitCuda::scores(const std::vector<VitGroup>& all) {
  Impl& m = *impl_;
  // Targets with U, O or J (rare: selenoproteins, say; uploaded as '*'): the CPU twin.
  const std::vector<uint32_t>& past = m.dbdev->past_the_rows;
  if (past.empty()) return device_scores(all);
  auto on_host = [&](const VitGroup& g, uint32_t p) {  // a bad profile or position: the plan's error
    return g.profile && p < m.db.by_length.size() && std::binary_search(past.begin(), past.end(), p);
  };
  std::vector<VitGroup> groups(all.size());
  std::vector<std::vector<float>> result(all.size());
  for (size_t g = 0; g < all.size(); ++g) {
    groups[g].profile = all[g].profile;
    result[g].assign(all[g].positions.size(), 0.0f);
    for (size_t i = 0; i < all[g].positions.size(); ++i) {
      const uint32_t p = all[g].positions[i];
      if (on_host(all[g], p)) {
        const SeqView v = m.db.seqs.view(m.db.by_length[p]);
        result[g][i] = viterbi_filter_score(*all[g].profile, v.data, int(v.length), m.ws);
      } else {
        groups[g].positions.push_back(p);
      }
    }
  }
  const std::vector<std::vector<float>> gpu = device_scores(groups);
  for (size_t g = 0; g < all.size(); ++g)
    for (size_t i = 0, j = 0; i < all[g].positions.size(); ++i)
      if (!on_host(all[g], all[g].positions[i])) result[g][i] = gpu[g][j++];
  return result;
}

std::vector<std::vector<float>> VitCuda::device_scores(const std::vector<VitGroup>& groups) {
  Impl& m = *impl_;
  const vit::Batch b = vit::plan_batch(groups, m.dbdev->host_lengths);
  const size_t n = b.targets();
  if (n == 0) return vit::finish(b, groups, nullptr);
  // The plan's arrays in one pinned buffer, each at a 256-byte boundary, for one copy.
  size_t bytes = 0;
  auto place = [&](size_t size) {
    const size_t at = bytes;
    bytes += (size + 255) / 256 * 256;
    return at;
  };
  const size_t at_profiles = place(b.profiles.size() * sizeof(uint32_t));
  const size_t at_groups = place(b.groups.size() * sizeof(vit::GroupParams));
  const size_t at_work = place(b.work.size() * sizeof(vit::Work));
  const size_t at_refs = place(n * sizeof(vit::TargetRef));
  CUDA_CHECK(cudaSetDevice(m.ts.device()));
  reserve_pinned(m.plan_host, bytes);
  uint8_t* h = m.plan_host.get();
  std::memcpy(h + at_profiles, b.profiles.data(), b.profiles.size() * sizeof(uint32_t));
  std::memcpy(h + at_groups, b.groups.data(), b.groups.size() * sizeof(vit::GroupParams));
  std::memcpy(h + at_work, b.work.data(), b.work.size() * sizeof(vit::Work));
  std::memcpy(h + at_refs, b.refs.data(), n * sizeof(vit::TargetRef));
  reserve_pinned(m.raw, n);
  m.plan.reserve_growing(bytes);
  CUDA_CHECK(cudaMemcpyAsync(m.plan.get(), h, bytes, cudaMemcpyHostToDevice, m.ts.get()));
  m.out.reserve_growing(n);

  const uint8_t* d = m.plan.get();  // cudaMalloc: 256-byte aligned, as every section
  cuda::VitKernelArgs a;
  a.profiles = reinterpret_cast<const uint4*>(d + at_profiles);
  a.groups = reinterpret_cast<const vit::GroupParams*>(d + at_groups);
  a.residues = m.dbdev->residues.get();
  a.offsets = m.dbdev->offsets.get();
  a.refs = reinterpret_cast<const vit::TargetRef*>(d + at_refs);
  a.out = m.out.get();
  m.ts.kernels_begin();
  for (const vit::Batch::Launch& l : b.launches) {
    a.work = reinterpret_cast<const vit::Work*>(d + at_work) + l.work_begin;
    a.blocks = l.work_end - l.work_begin;
    cuda::launch_vit_kernel(a, l.segment, m.ts.get());
  }
  m.ts.kernels_end();
  m.ts.copy_results(m.raw.get(), m.out.get(), n * sizeof(int32_t));
  return vit::finish(b, groups, m.raw.get());
}

}  // namespace hpc::hmm
