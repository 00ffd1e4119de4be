#include "kernels/cuda/pss_cuda_engine.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/packed_scorer.hpp"
#include "kernels/cuda/pss_strip.hpp"
#include "src/core/error.hpp"
#include "src/core/philox.hpp"
#include "src/core/tuning.hpp"

namespace hpc {
namespace {

constexpr int kThreads = 128;

// Where subject s lives: its residues, and the first element of its copies (and of its
// boundary rows): residue j of copy c at copy_base + j * copies_per_subject + c.
struct SubjectSlot {
  uint64_t residues;
  uint64_t copy_base;
  uint32_t length;
  uint32_t index;  // in the subject file: the permutation stream key
};

// Thread = (subject, copy). Copy c < N is shuffle_in_place() of src/core/philox.hpp on a
// strided view (the CPU's draws in the CPU's order); copy N stays the subject. Interleaved
// layout (the 32-bit profile kernel): residue j of copy c at copy_base + j * (N+1) + c;
// contiguous (the packed kernel, whose threads read their own subjects): copy_base + c * n + j.
__global__ void permute_batch_kernel(const uint8_t* residues, const SubjectSlot* slots, uint32_t n_subjects,
                                     uint32_t permutations, uint64_t seed, bool contiguous, uint8_t* copies) {
  const uint32_t per = permutations + 1;
  const uint64_t tid = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tid >= uint64_t(n_subjects) * per) return;
  const SubjectSlot slot = slots[tid / per];
  const uint32_t c = uint32_t(tid % per), n = slot.length;
  const size_t step = contiguous ? 1 : per;
  uint8_t* out = copies + slot.copy_base + (contiguous ? size_t(c) * n : c);
  for (uint32_t j = 0; j < n; ++j) out[size_t(j) * step] = residues[slot.residues + j];
  if (c == permutations) return;
  PermutationStream rng(seed, slot.index, c);
  for (uint32_t i = n; i > 1; --i) {
    const uint32_t j = rng.below(i);
    uint8_t* a = out + size_t(i - 1) * step;
    uint8_t* b = out + size_t(j) * step;
    const uint8_t t = *a;
    *a = *b;
    *b = t;
  }
}

// One (query, subject) pair of a launch: its profile, its subject's copies, and its own
// boundary rows (pair-local, copy-interleaved like the copies).
struct PairSlot {
  uint64_t profile;   // offset of the transposed profile (24 x pss_profile_stride(m), 16-byte aligned)
  uint64_t copies;    // the subject's copy_base
  uint64_t boundary;  // first boundary element of the pair
  uint32_t m, n;
};

// Thread = (pair, copy); pairs come longest first, so the short ones fill the last wave.
// MinBlocks per SM caps the registers: 7 -> 72 registers, no spills, 896 resident threads
// (the default); 8 -> 64 registers, 1024 threads, but ptxas spills 32 bytes (sm_90, nvcc 13).
// HPCALIGN_PSS_BLOCKS_PER_SM=8 picks the other for an A/B on the GPU.
template <int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) score_pairs_kernel(const int32_t* __restrict__ profiles,
                                                               const uint8_t* __restrict__ copies,
                                                               const PairSlot* __restrict__ pairs, uint32_t n_pairs,
                                                               uint32_t per, int32_t open_extend, int32_t extend,
                                                               int32_t* boundary_h, int32_t* boundary_f,
                                                               int32_t* scores) {
  const uint64_t tid = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tid >= uint64_t(n_pairs) * per) return;
  const PairSlot pair = pairs[tid / per];
  const uint32_t c = uint32_t(tid % per);
  scores[tid] = pss_strip_score(profiles + pair.profile, pair.m, pss_profile_stride(pair.m), copies + pair.copies + c,
                                pair.n, per, open_extend, extend, boundary_h + pair.boundary + c,
                                boundary_f + pair.boundary + c);
}

uint32_t blocks_for(uint64_t threads) { return uint32_t((threads + kThreads - 1) / kThreads); }

using ScoreKernel = void (*)(const int32_t*, const uint8_t*, const PairSlot*, uint32_t, uint32_t, int32_t, int32_t,
                            int32_t*, int32_t*, int32_t*);

ScoreKernel pick_score_kernel() {
  const char* env = tuning_choice(Tunable::kPssBlocksPerSm);
  return env && std::string(env) == "8" ? score_pairs_kernel<8> : score_pairs_kernel<7>;
}

}  // namespace

struct PssCudaScorer::Impl {
  int device = 0;
  ScoreKernel score_kernel = pick_score_kernel();
  cudaDeviceProp props{};
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  int blocks_per_sm = 0;
  double kernel_seconds = 0;
  uint32_t n_subjects = 0, per = 0;
  std::vector<SubjectSlot> host_slots;
  std::vector<uint64_t> profile_offsets;
  std::vector<uint32_t> profile_lengths;
  uint64_t launched_threads = 0;
  cuda::DeviceBuffer<uint8_t> residues, copies;
  cuda::DeviceBuffer<SubjectSlot> slots;
  cuda::DeviceBuffer<PairSlot> pairs;
  cuda::DeviceBuffer<int32_t> profiles, boundary_h, boundary_f, scores;
  // Sequence mode: the packed 16-bit scorer and the copies as its database (one entry per copy).
  std::unique_ptr<cuda::PackedScorer> packed;
  cuda::DeviceBuffer<uint64_t> copy_offsets;
  cuda::DeviceBuffer<uint32_t> copy_lengths;
  std::vector<uint32_t> host_copy_lengths;

  void check(bool sequence_mode, const char* what) const {
    if (sequence_mode != bool(packed))
      throw Error(std::string("pss: ") + what + " belongs to the " + (packed ? "profile" : "sequence") +
                  " mode of the CUDA scorer");
  }
};

PssCudaScorer::PssCudaScorer(int device) : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.device = device;
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaGetDeviceProperties(&im.props, device));
  CUDA_CHECK(cudaStreamCreateWithFlags(&im.stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&im.start));
  CUDA_CHECK(cudaEventCreate(&im.stop));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&im.blocks_per_sm, im.score_kernel, kThreads, 0));
  if (im.blocks_per_sm < 1) throw Error("pss: the CUDA score kernel cannot run on " + std::string(im.props.name));
}

PssCudaScorer::PssCudaScorer(int device, const ScoreMatrix& matrix, GapCosts gaps) : PssCudaScorer(device) {
  impl_->packed = std::make_unique<cuda::PackedScorer>(matrix, gaps, impl_->stream, impl_->props);
}

PssCudaScorer::~PssCudaScorer() {
  cudaSetDevice(impl_->device);
  cudaEventDestroy(impl_->start);
  cudaEventDestroy(impl_->stop);
  cudaStreamDestroy(impl_->stream);
}

DeviceCapacity PssCudaScorer::capacity() const {
  const Impl& im = *impl_;
  CUDA_CHECK(cudaSetDevice(im.device));
  DeviceCapacity c;
  c.name = std::string("cuda: ") + im.props.name;
  c.compute_units = im.props.multiProcessorCount;
  // Copies in flight per SM: one per thread (profile kernel) or two (packed lanes).
  c.resident_per_unit = im.packed ? im.packed->resident_per_sm() : im.blocks_per_sm * kThreads;
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  c.memory_bytes = free_b;
  return c;
}

void PssCudaScorer::load_subjects(const std::vector<SeqView>& subjects, const std::vector<uint32_t>& indices,
                                  uint64_t seed, uint32_t permutations) {
  Impl& im = *impl_;
  if (subjects.size() != indices.size()) throw Error("pss: load_subjects needs one index per subject");
  CUDA_CHECK(cudaSetDevice(im.device));
  im.n_subjects = uint32_t(subjects.size());
  im.per = permutations + 1;
  std::vector<uint8_t> residues;
  std::vector<SubjectSlot> slots;
  uint64_t copy_base = 0;
  for (size_t s = 0; s < subjects.size(); ++s) {
    slots.push_back({residues.size(), copy_base, subjects[s].length, indices[s]});
    residues.insert(residues.end(), subjects[s].data, subjects[s].data + subjects[s].length);
    copy_base += uint64_t(subjects[s].length) * im.per;
  }
  im.host_slots = slots;
  im.residues.upload(residues.data(), residues.size(), im.stream);
  im.slots.upload(slots.data(), slots.size(), im.stream);
  im.copies.reserve(std::max<uint64_t>(copy_base, 1));
  if (im.packed) {  // the copies as a database: copy c of subject s at copy_base + c * n
    std::vector<uint64_t> offsets;
    im.host_copy_lengths.clear();
    for (const SubjectSlot& slot : slots)
      for (uint32_t c = 0; c < im.per; ++c) {
        offsets.push_back(slot.copy_base + uint64_t(c) * slot.length);
        im.host_copy_lengths.push_back(slot.length);
      }
    im.copy_offsets.upload(offsets.data(), offsets.size(), im.stream);
    im.copy_lengths.upload(im.host_copy_lengths.data(), im.host_copy_lengths.size(), im.stream);
  }
  if (im.n_subjects == 0) return;
  permute_batch_kernel<<<blocks_for(uint64_t(im.n_subjects) * im.per), kThreads, 0, im.stream>>>(
      im.residues.get(), im.slots.get(), im.n_subjects, permutations, seed, bool(im.packed), im.copies.get());
  CUDA_CHECK_LAUNCH("permute_batch_kernel");
  CUDA_CHECK(cudaStreamSynchronize(im.stream));
}

void PssCudaScorer::set_queries(const std::vector<QueryProfile>& profiles) {
  Impl& im = *impl_;
  im.check(false, "set_queries()");
  CUDA_CHECK(cudaSetDevice(im.device));
  std::vector<int32_t> transposed;
  im.profile_offsets.clear();
  im.profile_lengths.clear();
  for (const QueryProfile& p : profiles) {
    im.profile_offsets.push_back(transposed.size());
    im.profile_lengths.push_back(p.length);
    const size_t at = transposed.size();
    const uint32_t stride = pss_profile_stride(p.length);  // a multiple of 16 rows: every column 16-byte aligned
    transposed.resize(at + size_t(stride) * kAlphabetSize, 0);
    for (uint32_t i = 0; i < p.length; ++i)
      for (int c = 0; c < kAlphabetSize; ++c) transposed[at + size_t(c) * stride + i] = p(i, uint8_t(c));
  }
  im.profiles.upload(transposed.data(), transposed.size(), im.stream);
  CUDA_CHECK(cudaStreamSynchronize(im.stream));  // the host vector dies here
}

void PssCudaScorer::launch(const std::vector<PssPairJob>& jobs, GapCosts gaps) {
  Impl& im = *impl_;
  im.check(false, "launch()");
  CUDA_CHECK(cudaSetDevice(im.device));
  std::vector<PairSlot> slots;
  uint64_t boundary = 0;
  for (const PssPairJob& job : jobs) {
    if (job.query >= im.profile_offsets.size() || job.subject >= im.n_subjects)
      throw Error("pss: a launch names a query or subject that is not loaded");
    const SubjectSlot& sub = im.host_slots[job.subject];
    const uint32_t m = im.profile_lengths[job.query];
    slots.push_back({im.profile_offsets[job.query], sub.copy_base, boundary, m, sub.length});
    // Boundary rows only exist between strips: queries of one strip need none.
    if (m > uint32_t(kPssStripRows)) boundary += uint64_t(sub.length) * im.per;
  }
  im.launched_threads = uint64_t(slots.size()) * im.per;
  if (im.launched_threads == 0) return;
  im.pairs.upload(slots.data(), slots.size(), im.stream);
  im.boundary_h.reserve(std::max<uint64_t>(1, boundary));
  im.boundary_f.reserve(std::max<uint64_t>(1, boundary));
  im.scores.reserve(im.launched_threads);
  CUDA_CHECK(cudaEventRecord(im.start, im.stream));
  im.score_kernel<<<blocks_for(im.launched_threads), kThreads, 0, im.stream>>>(
      im.profiles.get(), im.copies.get(), im.pairs.get(), uint32_t(slots.size()), im.per, gaps.open + gaps.extend,
      gaps.extend, im.boundary_h.get(), im.boundary_f.get(), im.scores.get());
  CUDA_CHECK_LAUNCH("score_pairs_kernel");
  CUDA_CHECK(cudaEventRecord(im.stop, im.stream));
  // `slots` may go now: a pageable upload is staged before cudaMemcpyAsync returns.
}

void PssCudaScorer::launch_queries(const std::vector<SeqView>& queries) {
  Impl& im = *impl_;
  im.check(true, "launch_queries()");
  CUDA_CHECK(cudaSetDevice(im.device));
  const uint32_t copies = uint32_t(im.host_copy_lengths.size());
  im.launched_threads = uint64_t(queries.size()) * copies;
  if (im.launched_threads == 0) return;
  const cuda::DeviceDb db{im.copies.get(), im.copy_offsets.get(), im.copy_lengths.get(), nullptr};
  CUDA_CHECK(cudaEventRecord(im.start, im.stream));
  im.packed->launch(db, {0, copies}, queries, [&](uint32_t p) { return im.host_copy_lengths[p]; });
}

std::vector<int32_t> PssCudaScorer::wait() {
  Impl& im = *impl_;
  CUDA_CHECK(cudaSetDevice(im.device));
  std::vector<int32_t> out(im.launched_threads);
  if (out.empty()) return out;
  const int32_t* scores = im.scores.get();
  if (im.packed) {  // sequence mode: rescore the overflowing lanes, then the same event/copy
    im.packed->finish();
    CUDA_CHECK(cudaEventRecord(im.stop, im.stream));
    scores = im.packed->scores();
  }
  CUDA_CHECK(cudaMemcpyAsync(out.data(), scores, out.size() * sizeof(int32_t), cudaMemcpyDeviceToHost, im.stream));
  CUDA_CHECK(cudaStreamSynchronize(im.stream));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, im.start, im.stop));
  im.kernel_seconds += ms / 1000.0;
  im.launched_threads = 0;
  return out;
}

std::vector<int32_t> PssCudaScorer::score(const QueryProfile& profile, GapCosts gaps) {
  impl_->check(false, "score()");
  set_queries({profile});
  std::vector<PssPairJob> jobs;
  for (uint32_t s = 0; s < impl_->n_subjects; ++s) jobs.push_back({0, s});
  launch(jobs, gaps);
  return wait();
}
double PssCudaScorer::kernel_seconds() const { return impl_->kernel_seconds; }

}  // namespace hpc
