// Host side of the GPU MSV filter: database upload, striped byte profile, launch, and the
// conversion of the kernel's byte scores to nats (the same float steps as msv_filters.cpp).
#include "kernels/cuda/msv_cuda.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

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
  MsvCodes last;                      // codes()'s answer, over `codes`
  FilterWorkspace ws;
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

float MsvCodes::nats(const MsvProfile& p, size_t k, size_t i) const {
  const int32_t c = code[k * targets + i];
  if (c == kOverflow) return std::numeric_limits<float>::infinity();
  if (c == kOnHost) {
    const size_t at = size_t(std::lower_bound(on_host.begin(), on_host.end(), uint32_t(i)) - on_host.begin());
    return on_host_nats[k * on_host.size() + at];
  }
  return msv_nats(p, c, tjb[k * targets + i]);
}

std::vector<std::vector<float>> MsvCuda::scores(const std::vector<const MsvProfile*>& profiles, uint32_t begin,
                                                uint32_t end) {
  const MsvCodes& c = codes(profiles, begin, end);
  std::vector<std::vector<float>> result(profiles.size(), std::vector<float>(c.targets));
  for (size_t k = 0; k < profiles.size(); ++k)
    for (size_t i = 0; i < c.targets; ++i) result[k][i] = c.nats(*profiles[k], k, i);
  return result;
}

const MsvCodes& MsvCuda::codes(const std::vector<const MsvProfile*>& profiles, uint32_t begin, uint32_t end) {
  Impl& m = *impl_;
  int max_m = 0;
  for (const MsvProfile* p : profiles) {
    if (p->M < 1 || p->M > max_model_length())
      throw Error("GPU MSV: model length " + std::to_string(p->M) + " is outside 1.." +
                  std::to_string(max_model_length()));
    max_m = std::max(max_m, p->M);
  }
  if (begin > end || end > m.db->by_length.size()) throw Error("GPU MSV: target range out of bounds");
  const uint32_t n = end - begin;
  const size_t nm = profiles.size();
  MsvCodes& result = m.last;
  result.targets = n;
  result.on_host.clear(), result.on_host_nats.clear();
  std::vector<uint8_t>& tjb = result.tjb;
  tjb.resize(nm * n);
  result.code = m.codes.get();  // again after the reserve below, which may move the codes
  if (n == 0 || nm == 0) return result;
  const auto t_call = std::chrono::steady_clock::now();
  CUDA_CHECK(cudaSetDevice(m.ts.device()));
  if (nm * n > m.codes.capacity()) m.codes.reserve(std::max(nm * n, 2 * m.codes.capacity()), true);
  result.code = m.codes.get();
  const int kernel = ssv_kernel();
  size_t launches = 1, packs = nm;
  const uint32_t* lengths = m.dbdev->host_lengths.data() + begin;
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
  m.tjb.upload(tjb.data(), tjb.size(), m.ts.get());
  m.out.reserve(nm * n);
  if (kernel == kByteKernel) {
    // One chunk count for the launch: the longest model's (shorter ones pad with cost 255).
    const int chunks = cuda::msv_kernel_chunks((max_m + cuda::kMsvChunkCells - 1) / cuda::kMsvChunkCells);
    std::vector<uint32_t> prof;
    std::vector<cuda::MsvModelSlot> slots;
    for (size_t k = 0; k < nm; ++k) {
      const MsvProfile& p = *profiles[k];
      cuda::MsvModelSlot slot;
      slot.profile = prof.size();
      slot.targets = uint64_t(k) * n;
      slot.base = p.base, slot.bias = p.bias, slot.tbm = p.tbm, slot.tec = p.tec;
      slots.push_back(slot);
      const std::vector<uint32_t> words = striped_profile(p, chunks);
      prof.insert(prof.end(), words.begin(), words.end());
    }
    m.profile.upload(prof.data(), prof.size(), m.ts.get());
    m.slots.upload(slots.data(), slots.size(), m.ts.get());
    cuda::MsvKernelArgs a;
    a.residues = m.dbdev->residues.get();
    a.offsets = m.dbdev->offsets.get();
    a.profiles = m.profile.get();
    a.models = m.slots.get();
    a.n_models = uint32_t(nm);
    a.tjb = m.tjb.get();
    a.out = m.out.get();
    a.begin = begin;
    a.end = end;
    m.ts.kernels_begin();
    cuda::launch_msv_kernel(a, chunks, m.sm_count, m.ts.get());
    m.ts.kernels_end();
  } else {
    // 16-bit DPX SSV: models packed into warps (msv16_layout.hpp), one launch per slot size;
    // fallbacks read each model's own full-MSV profile.
    const msv16::Call c = msv16::plan_call(profiles, kernel, n, forced_q());
    std::vector<uint32_t> fprof(c.full_words);
    for (size_t k = 0; k < nm; ++k) {
      const std::vector<uint32_t> words = msv16::full_profile(*profiles[k], c.models[k].chunks);
      std::copy(words.begin(), words.end(), fprof.begin() + ptrdiff_t(c.models[k].full_profile));
    }
    m.profile.upload(fprof.data(), fprof.size(), m.ts.get());
    m.wprof.upload(c.wprof.data(), c.wprof.size(), m.ts.get());
    m.packs.upload(c.packs.data(), c.packs.size(), m.ts.get());
    m.params.upload(c.models.data(), c.models.size(), m.ts.get());
    msv16::Args a;
    a.residues = m.dbdev->residues.get();
    a.offsets = m.dbdev->offsets.get();
    a.wprof = m.wprof.get();
    a.fprof = m.profile.get();
    a.models = m.params.get();
    a.tjb = m.tjb.get();
    a.out = m.out.get();
    a.begin = begin;
    a.end = end;
    launches = c.launches.size(), packs = c.packs.size();
    m.taken.reserve(c.packs.size());
    CUDA_CHECK(cudaMemsetAsync(m.taken.get(), 0, c.packs.size() * sizeof(uint32_t), m.ts.get()));
    m.ts.kernels_begin();
    for (const msv16::Call::Launch& l : c.launches) {
      a.packs = m.packs.get() + l.first;
      a.n_packs = l.count;
      a.taken = m.taken.get() + l.first;
      cuda::launch_msv16_kernel(a, l.q, kernel, m.sm_count, m.ts.get());
    }
    m.ts.kernels_end();
  }
  // Into pinned memory (reserved above): a pageable destination costs the host a staging copy of every code.
  int32_t* codes = m.codes.get();
  const float ms = m.ts.copy_results(codes, m.out.get(), nm * n * sizeof(int32_t));
  static_assert(MsvCodes::kOverflow == cuda::kMsvOverflow, "the kernels' overflow code is the callers'");
  // Targets with U, O or J (rare: selenoproteins, say): the CPU twin, the same scores.
  const std::vector<uint32_t>& on_host = m.dbdev->past_the_rows;
  for (auto p = std::lower_bound(on_host.begin(), on_host.end(), begin); p != on_host.end() && *p < end; ++p)
    result.on_host.push_back(*p - begin);
  result.on_host_nats.resize(nm * result.on_host.size());
  for (size_t j = 0; j < result.on_host.size(); ++j) {
    const uint32_t i = result.on_host[j];
    const SeqView v = m.db->seqs.view(m.db->by_length[begin + i]);
    for (size_t k = 0; k < nm; ++k) {
      result.on_host_nats[k * result.on_host.size() + j] = msv_filter_score(*profiles[k], v.data, int(v.length), m.ws);
      codes[k * n + i] = MsvCodes::kOnHost;
    }
  }
  if (tuning_flag(Tunable::kCudaTiming))  // tuning aid: kernel against the whole call
    std::fprintf(stderr,
                 "msv %zu model(s), longest M=%d, targets=%u, %s kernel (%zu pack(s), %zu launch(es)): kernel %.3f ms, "
                 "call %.3f ms\n",
                 nm, max_m, n, kernel_name(kernel), packs, launches, ms,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_call).count());
  return result;
}

}  // namespace hpc::hmm
