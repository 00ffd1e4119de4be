// Host side of the GPU MSV filter: database upload, striped byte profile, launch, and the
// conversion of the kernel's byte scores to nats (the same float steps as msv_filters.cpp).
#include "kernels/cuda/msv_cuda.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_database.hpp"
#include "kernels/cuda/msv16_layout.hpp"
#include "kernels/cuda/msv_kernels.cuh"
#include "kernels/cuda/timed_stream.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/tuning.hpp"

namespace hpc::hmm {

using cuda::DeviceBuffer;

struct MsvCuda::Impl {
  explicit Impl(int device) : ts(device) {}
  cuda::TimedStream ts;
  int sm_count = 1;
  const Database* db = nullptr;
  std::shared_ptr<const cuda::DeviceDatabase> dbdev;
  DeviceBuffer<uint32_t> profile;
  DeviceBuffer<cuda::MsvModelSlot> slots;
  DeviceBuffer<uint8_t> tjb;
  DeviceBuffer<int32_t> out;
  // 16-bit DPX kernel: the packs' w profiles, their descriptors, the models' parameters.
  DeviceBuffer<uint32_t> wprof;
  DeviceBuffer<msv16::Pack> packs;
  DeviceBuffer<msv16::ModelParams> params;
  DeviceBuffer<uint32_t> taken;  // the launch's per-pack target counters
  cuda::PinnedBuffer<int32_t> codes;  // the kernels' results, read back each call
  std::vector<uint8_t> tjb_host;      // the last launch's tjb codes, [k * n + i]
  DeviceBuffer<uint32_t> rank;        // kept_scores' floors
  DeviceBuffer<uint8_t> floors;
  FilterWorkspace ws;

  struct Launched {  // what the timing line names
    int max_m = 0;
    const char* kernel = "";
    size_t launches = 0, packs = 0;
  };
  void launch(const std::vector<const MsvProfile*>& profiles, uint32_t begin, uint32_t end, Launched& what);
  std::pair<const uint32_t*, const uint32_t*> twin_targets(uint32_t begin, uint32_t end) const;
  void report(const char* call, size_t nm, uint32_t n, const Launched& what, float ms,
              std::chrono::steady_clock::time_point t_call) const;
};

namespace {

static_assert(cuda::kMsvCodes == kAlphabetSize && hmm::msv16::kCodes == kAlphabetSize,
              "the kernels' profiles hold the first kAlphabetSize rows");

// [code][chunk][lane] words; byte j of a word is node 128*chunk + 4*lane + j + 1. Nodes past M
// cost 255: their cells stay at 0 (full MSV) or below an earlier cell (SSV), so they never
// change a maximum.
std::vector<uint32_t> striped_profile(const MsvProfile& p, int chunks) {
  std::vector<uint32_t> w(size_t(cuda::kMsvCodes) * chunks * 32);
  for (int code = 0; code < cuda::kMsvCodes; ++code)
    for (int c = 0; c < chunks; ++c)
      for (int lane = 0; lane < 32; ++lane) {
        uint32_t word = 0;
        for (int j = 0; j < 4; ++j) {
          const int k = c * cuda::kMsvChunkCells + 4 * lane + j + 1;
          const uint32_t cost = k <= p.M ? p.row(uint8_t(code))[k] : 255u;
          word |= cost << (8 * j);
        }
        w[(size_t(code) * chunks + c) * 32 + lane] = word;
      }
  return w;
}

// msv_filters.cpp's msv_nats: C->T, then the -3 nat approximation of the N/C/J loops.
using msv16::msv_nats;

// Which SSV kernel runs: HPCALIGN_MSV_KERNEL=byte (the byte kernel, msv_kernels.cu), or the
// 16-bit kernel (msv16_kernels.cu) with its w profile in fp16 words on the FMA pipe beside
// signed bytes (f16, the default: 10% faster than w16 on an H200), in int16 pairs for the DPX
// instructions (w16), signed bytes (w8) or a mix of those two (mix; msv16_lane.hpp). All give
// the same scores.
constexpr int kByteKernel = -1;
int ssv_kernel() {
  const char* v = tuning_choice(Tunable::kMsvKernel);  // one of the table's words
  if (!std::strcmp(v, "w16") || !std::strcmp(v, "dpx")) return msv16::kW16;
  if (!std::strcmp(v, "w8")) return msv16::kW8;
  if (!std::strcmp(v, "mix")) return msv16::kMix;
  if (!std::strcmp(v, "byte")) return kByteKernel;
  return msv16::kF16;
}
// HPCALIGN_MSV_Q=q (tuning): every pack of the 16-bit kernel takes q nodes per slot (a
// compiled size; models longer than 64 q are refused) instead of the planner's choice.
int forced_q() {
  return int(*tuning_number(Tunable::kMsvQ));
}
const char* kernel_name(int kernel) {
  return kernel == kByteKernel ? "byte"
         : kernel == msv16::kW8 ? "w8"
         : kernel == msv16::kMix ? "mix"
         : kernel == msv16::kW16 ? "w16"
                                  : "f16";
}

// kept_scores' compare: bit i % 32 of mask[k * words + i / 32] set where model k's code for
// target i is at least its length's floor (or overflowed: certainly passes).
__global__ void msv_keep(const int32_t* __restrict__ codes, uint32_t n, uint32_t models,
                         const uint32_t* __restrict__ rank, const uint8_t* __restrict__ floors, uint32_t lengths,
                         uint32_t* __restrict__ mask) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;  // whole warps reach the ballot
  const uint32_t words = (n + 31) / 32;
  for (uint32_t k = blockIdx.y; k < models; k += gridDim.y) {
    bool keep = false;
    if (i < n) {
      const int32_t c = codes[size_t(k) * n + i];
      keep = c == cuda::kMsvOverflow || c >= int32_t(floors[size_t(k) * lengths + rank[i]]);
    }
    const uint32_t bits = __ballot_sync(0xffffffffu, keep);
    if ((threadIdx.x & 31) == 0 && i < n) mask[size_t(k) * words + i / 32] = bits;
  }
}

void launch_msv_keep(const int32_t* codes, uint32_t n, uint32_t models, const uint32_t* rank, const uint8_t* floors,
                     uint32_t lengths, uint32_t* mask, cudaStream_t stream) {
  constexpr unsigned kThreads = 256;
  const dim3 grid((n + kThreads - 1) / kThreads, std::min<uint32_t>(models, 65535));
  msv_keep<<<grid, kThreads, 0, stream>>>(codes, n, models, rank, floors, lengths, mask);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

MsvCuda::MsvCuda(int device, const Database& db) : impl_(std::make_unique<Impl>(device)) {
  Impl& m = *impl_;
  m.db = &db;
  m.dbdev = cuda::device_database(db, device);  // in length order; shared with this GPU's other workers
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaDeviceGetAttribute(&m.sm_count, cudaDevAttrMultiProcessorCount, device));
}

// The device current while the buffers are freed (the stream and events then go last).
MsvCuda::~MsvCuda() {
  if (impl_) cudaSetDevice(impl_->ts.device());  // no throw from a destructor
}

int MsvCuda::max_model_length() { return cuda::kMsvChunkCells * cuda::kMsvMaxChunks; }

double MsvCuda::kernel_seconds() const { return impl_->ts.kernel_seconds(); }

float MsvCuda::nats(const MsvProfile& p, int code, int L) { return msv_nats(p, code, p.tjb(L)); }

const uint32_t* MsvCuda::lengths() const { return impl_->dbdev->host_lengths.data(); }

std::vector<float> MsvCuda::scores(const MsvProfile& p, uint32_t begin, uint32_t end) {
  return std::move(scores(std::vector<const MsvProfile*>{&p}, begin, end).front());
}

// Checks the call, then uploads the targets' tjb codes and the profiles and queues the SSV
// kernels: their codes in m.out[k * n + i]. What the timing line names goes into `what`.
void MsvCuda::Impl::launch(const std::vector<const MsvProfile*>& profiles, uint32_t begin, uint32_t end,
                           Launched& what) {
  int max_m = 0;
  for (const MsvProfile* p : profiles) {
    if (p->M < 1 || p->M > max_model_length())
      throw Error("GPU MSV: model length " + std::to_string(p->M) + " is outside 1.." +
                  std::to_string(max_model_length()));
    max_m = std::max(max_m, p->M);
  }
  if (begin > end || end > db->by_length.size()) throw Error("GPU MSV: target range out of bounds");
  const uint32_t n = end - begin;
  const size_t nm = profiles.size();
  what.max_m = max_m;
  if (n == 0 || nm == 0) return;
  CUDA_CHECK(cudaSetDevice(ts.device()));
  const int kernel = ssv_kernel();
  what.kernel = kernel_name(kernel);
  tjb_host.resize(nm * n);
  std::vector<uint8_t>& tjb = tjb_host;
  const uint32_t* lengths = dbdev->host_lengths.data() + begin;
  for (size_t k = 0; k < nm; ++k) {
    if (k > 0 && profiles[k]->scale == profiles[0]->scale) {  // tjb(L) depends on the scale alone: a log saved per target
      std::copy(tjb.begin(), tjb.begin() + n, tjb.begin() + ptrdiff_t(k * n));
      continue;
    }
    int length = -1;  // targets come length-sorted: a log a length, not a target
    uint8_t code = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const int L = int(lengths[i]);
      if (L != length) length = L, code = profiles[k]->tjb(L);
      tjb[k * n + i] = code;
    }
  }
  this->tjb.upload(tjb.data(), tjb.size(), ts.get());
  const size_t words = nm * n + nm * ((n + 31) / 32);  // the codes, then kept_scores' masks
  out.reserve(words);
  if (words > codes.capacity()) codes.reserve(std::max(words, 2 * codes.capacity()), true);
  if (kernel == kByteKernel) {
    // One chunk count for the launch: the longest model's (shorter ones pad with cost 255).
    const int chunks = cuda::msv_kernel_chunks((max_m + cuda::kMsvChunkCells - 1) / cuda::kMsvChunkCells);
    std::vector<uint32_t> prof;
    std::vector<cuda::MsvModelSlot> slots_host;
    for (size_t k = 0; k < nm; ++k) {
      const MsvProfile& p = *profiles[k];
      cuda::MsvModelSlot slot;
      slot.profile = prof.size();
      slot.targets = uint64_t(k) * n;
      slot.base = p.base, slot.bias = p.bias, slot.tbm = p.tbm, slot.tec = p.tec;
      slots_host.push_back(slot);
      const std::vector<uint32_t> w = striped_profile(p, chunks);
      prof.insert(prof.end(), w.begin(), w.end());
    }
    profile.upload(prof.data(), prof.size(), ts.get());
    slots.upload(slots_host.data(), slots_host.size(), ts.get());
    cuda::MsvKernelArgs a;
    a.residues = dbdev->residues.get();
    a.offsets = dbdev->offsets.get();
    a.profiles = profile.get();
    a.models = slots.get();
    a.n_models = uint32_t(nm);
    a.tjb = this->tjb.get();
    a.out = out.get();
    a.begin = begin;
    a.end = end;
    ts.kernels_begin();
    cuda::launch_msv_kernel(a, chunks, sm_count, ts.get());
    ts.kernels_end();
    what.launches = 1, what.packs = nm;
  } else {
    // 16-bit DPX SSV: models packed into warps (msv16_layout.hpp), one launch per slot size;
    // fallbacks read each model's own full-MSV profile.
    const msv16::Call c = msv16::plan_call(profiles, kernel, n, forced_q());
    std::vector<uint32_t> fprof(c.full_words);
    for (size_t k = 0; k < nm; ++k) {
      const std::vector<uint32_t> w = msv16::full_profile(*profiles[k], c.models[k].chunks);
      std::copy(w.begin(), w.end(), fprof.begin() + ptrdiff_t(c.models[k].full_profile));
    }
    profile.upload(fprof.data(), fprof.size(), ts.get());
    wprof.upload(c.wprof.data(), c.wprof.size(), ts.get());
    packs.upload(c.packs.data(), c.packs.size(), ts.get());
    params.upload(c.models.data(), c.models.size(), ts.get());
    msv16::Args a;
    a.residues = dbdev->residues.get();
    a.offsets = dbdev->offsets.get();
    a.wprof = wprof.get();
    a.fprof = profile.get();
    a.models = params.get();
    a.tjb = this->tjb.get();
    a.out = out.get();
    a.begin = begin;
    a.end = end;
    what.launches = c.launches.size(), what.packs = c.packs.size();
    taken.reserve(c.packs.size());
    CUDA_CHECK(cudaMemsetAsync(taken.get(), 0, c.packs.size() * sizeof(uint32_t), ts.get()));
    ts.kernels_begin();
    for (const msv16::Call::Launch& l : c.launches) {
      a.packs = packs.get() + l.first;
      a.n_packs = l.count;
      a.taken = taken.get() + l.first;
      cuda::launch_msv16_kernel(a, l.q, kernel, sm_count, ts.get());
    }
    ts.kernels_end();
  }
}

// Targets with U, O or J (rare: selenoproteins, say) in [begin, end): the CPU twin scores them.
std::pair<const uint32_t*, const uint32_t*> MsvCuda::Impl::twin_targets(uint32_t begin, uint32_t end) const {
  const std::vector<uint32_t>& on_host = dbdev->past_the_rows;
  const uint32_t* first = std::lower_bound(on_host.data(), on_host.data() + on_host.size(), begin);
  const uint32_t* last = std::lower_bound(first, on_host.data() + on_host.size(), end);
  return {first, last};
}

void MsvCuda::Impl::report(const char* call, size_t nm, uint32_t n, const Launched& what, float ms,
                           std::chrono::steady_clock::time_point t_call) const {
  if (tuning_flag(Tunable::kCudaTiming))  // tuning aid: kernel against the whole call
    std::fprintf(stderr,
                 "%s %zu model(s), longest M=%d, targets=%u, %s kernel (%zu pack(s), %zu launch(es)): kernel %.3f ms, "
                 "call %.3f ms\n",
                 call, nm, what.max_m, n, what.kernel, what.packs, what.launches, ms,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_call).count());
}

std::vector<std::vector<float>> MsvCuda::scores(const std::vector<const MsvProfile*>& profiles, uint32_t begin,
                                                uint32_t end) {
  Impl& m = *impl_;
  const auto t_call = std::chrono::steady_clock::now();
  Impl::Launched what;
  m.launch(profiles, begin, end, what);
  const uint32_t n = end - begin;
  const size_t nm = profiles.size();
  std::vector<std::vector<float>> result(nm, std::vector<float>(n));
  if (n == 0 || nm == 0) return result;
  // Into pinned memory: a pageable destination costs the host a staging copy of every code.
  const int32_t* codes = m.codes.get();
  const float ms = m.ts.copy_results(m.codes.get(), m.out.get(), nm * n * sizeof(int32_t));
  for (size_t k = 0; k < nm; ++k)
    for (uint32_t i = 0; i < n; ++i) {
      const int32_t c = codes[k * n + i];
      result[k][i] = c == cuda::kMsvOverflow ? std::numeric_limits<float>::infinity()
                                             : msv_nats(*profiles[k], c, m.tjb_host[k * n + i]);
    }
  const auto [first, last] = m.twin_targets(begin, end);
  for (const uint32_t* p = first; p != last; ++p) {
    const SeqView v = m.db->seqs.view(m.db->by_length[*p]);
    for (size_t k = 0; k < nm; ++k) result[k][*p - begin] = msv_filter_score(*profiles[k], v.data, int(v.length), m.ws);
  }
  m.report("msv", nm, n, what, ms, t_call);
  return result;
}

std::vector<MsvCuda::Kept> MsvCuda::kept_scores(const std::vector<const MsvProfile*>& profiles, uint32_t begin,
                                                uint32_t end, const Floors& floors) {
  Impl& m = *impl_;
  const auto t_call = std::chrono::steady_clock::now();
  Impl::Launched what;
  m.launch(profiles, begin, end, what);
  const uint32_t n = end - begin;
  const size_t nm = profiles.size();
  std::vector<Kept> kept(nm);
  if (n == 0 || nm == 0) return kept;
  if (floors.rank.size() != n || floors.codes.size() != nm * floors.lengths)
    throw Error("GPU MSV: floors of " + std::to_string(floors.rank.size()) + " targets, " +
                std::to_string(floors.codes.size()) + " codes for " + std::to_string(n) + " targets, " +
                std::to_string(nm) + " models");
  m.rank.upload_growing(floors.rank.data(), n, m.ts.get());
  m.floors.upload_growing(floors.codes.data(), floors.codes.size(), m.ts.get());
  const uint32_t words = (n + 31) / 32;
  uint32_t* mask_dev = reinterpret_cast<uint32_t*>(m.out.get() + nm * n);
  launch_msv_keep(m.out.get(), n, uint32_t(nm), m.rank.get(), m.floors.get(), uint32_t(floors.lengths),
                        mask_dev, m.ts.get());
  // The codes and the masks after them in one copy (pinned memory).
  const float ms = m.ts.copy_results(m.codes.get(), m.out.get(), (nm * n + nm * words) * sizeof(int32_t));
  const int32_t* codes = m.codes.get();
  uint32_t* mask = reinterpret_cast<uint32_t*>(m.codes.get() + nm * n);
  const auto [first, last] = m.twin_targets(begin, end);
  for (const uint32_t* p = first; p != last; ++p)  // kept whatever the kernel's code
    for (size_t k = 0; k < nm; ++k) mask[k * words + (*p - begin) / 32] |= 1u << ((*p - begin) % 32);
  for (size_t k = 0; k < nm; ++k) {
    Kept& out = kept[k];
    const uint32_t* twin = first;
    for (uint32_t w = 0; w < words; ++w)
      for (uint32_t bits = mask[k * words + w]; bits; bits &= bits - 1) {
        const uint32_t i = 32 * w + uint32_t(__builtin_ctz(bits));
        while (twin != last && *twin - begin < i) ++twin;
        float nats;
        if (twin != last && *twin - begin == i) {
          const SeqView v = m.db->seqs.view(m.db->by_length[*twin]);
          nats = msv_filter_score(*profiles[k], v.data, int(v.length), m.ws);
        } else {
          const int32_t c = codes[k * n + i];
          nats = c == cuda::kMsvOverflow ? std::numeric_limits<float>::infinity()
                                         : msv_nats(*profiles[k], c, m.tjb_host[k * n + i]);
        }
        out.index.push_back(i);
        out.nats.push_back(nats);
      }
  }
  m.report("msv kept", nm, n, what, ms, t_call);
  return kept;
}

}  // namespace hpc::hmm
