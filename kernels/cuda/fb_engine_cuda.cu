// The CUDA parser engine: upload, the Forward parser a block per job (fb_forward_block.cuh) and
// Forward with Backward one thread per job, download, nats on the host. This file is built
// with -ftz=true (hmmsearch's FTZ/DAZ float mode); the lane code's _rn intrinsics are never
// fused into multiply-adds.
#include "kernels/cuda/fb_engine_cuda.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/fb_forward_block.cuh"
#include "src/hmm/fb_parser_lanes.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

namespace hpc {
namespace {

using cuda::DeviceBuffer;
using cuda::PinnedBuffer;
using hmm::Lanes4;

struct ModelDesc {
  int M, Q;
  uint64_t rfv, tfv;  // offsets in the profile array
};
struct JobDesc {
  uint32_t model, L;
  uint64_t seq;  // offset of the residues
  uint64_t out;  // offset of the special rows (or scale factors)
};

// Row vector j of this thread: rows[j * stride + thread] (coalesced across a warp).
struct InterleavedRow {
  Lanes4* base;
  size_t stride;
  __device__ __forceinline__ Lanes4 get(int j) const { return base[size_t(j) * stride]; }
  __device__ __forceinline__ void set(int j, const Lanes4& v) const { base[size_t(j) * stride] = v; }
};

// kParse false: Forward, scale factors to out[job.out + i], xC to ends[t].
// kParse true: Forward rows then Backward rows (kFbXCells each) from out[job.out]; xC, xN to
// ends[2t], ends[2t + 1]; Backward's own-scales flag to own[t].
template <bool kParse>
__global__ void __launch_bounds__(128) fb_parser_kernel(const ModelDesc* __restrict__ models,
                                                        const Lanes4* __restrict__ prof,
                                                        const uint8_t* __restrict__ seqs,
                                                        const JobDesc* __restrict__ jobs, int njobs, Lanes4* rows,
                                                        float* out, float* ends, uint8_t* own) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= njobs) return;
  const JobDesc job = jobs[t];
  const ModelDesc md = models[job.model];
  const hmm::FbLanesView p{md.M, md.Q, prof + md.rfv, prof + md.tfv};
  const uint8_t* seq = seqs + job.seq;
  const int L = int(job.L);
  const hmm::FbSpecialOdds xf = hmm::fb_special_odds(L, true);
  InterleavedRow row{rows + t, size_t(njobs)};
  if (!kParse) {
    hmm::FbScaleSink sink{out + job.out};
    ends[t] = hmm::fb_forward_parser(seq, L, p, xf, row, sink);
    return;
  }
  float* fwd = out + job.out;
  hmm::FbRowsSink fsink{fwd};
  ends[2 * t] = hmm::fb_forward_parser(seq, L, p, xf, row, fsink);
  if (L < 1) return;
  hmm::FbRowsSink bsink{fwd + size_t(L + 1) * hmm::kFbXCells};
  const hmm::FbBackwardEnd end = hmm::fb_backward_parser(seq, L, p, xf, hmm::FbRowsScale{fwd}, row, bsink);
  ends[2 * t + 1] = end.xN;
  own[t] = end.has_own_scales;
}

// The Forward parser, a block per job: scale factors to out[job.out + i], xC to ends[job].
__global__ void __launch_bounds__(cuda::kFbForwardThreads) fb_forward_block_kernel(const ModelDesc* __restrict__ models,
                                                             const Lanes4* __restrict__ prof,
                                                             const uint8_t* __restrict__ seqs,
                                                             const JobDesc* __restrict__ jobs, float* out,
                                                             float* ends) {
  extern __shared__ float smem[];
  const JobDesc job = jobs[blockIdx.x];
  const ModelDesc md = models[job.model];
  const hmm::FbLanesView p{md.M, md.Q, prof + md.rfv, prof + md.tfv};
  cuda::fb_forward_block(seqs + job.seq, int(job.L), p, smem, out + job.out, ends + blockIdx.x);
}

constexpr int kBlock = 128;
constexpr size_t kRowBytesBudget = size_t(2) << 30;  // the launches' vector rows together

class CudaFbEngine : public FbEngine {
 public:
  CudaFbEngine(int device, const std::vector<hmm::FbLaneProfile>* models) : device_(device), host_models_(*models) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    int optin = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    max_smem_ = size_t(optin);
    CUDA_CHECK(cudaFuncSetAttribute(fb_forward_block_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventBlockingSync | cudaEventDisableTiming));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  ~CudaFbEngine() override {
    cudaSetDevice(device_);  // no throw from a destructor
    if (done_) cudaEventDestroy(done_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  // A block a job where both its rows fit the shared memory of a block, else a thread a job.
  std::vector<float> forward(const std::vector<FbJob>& jobs) override {
    check_fb_jobs(jobs, host_models_);
    std::vector<float> nats(jobs.size());
    std::vector<size_t> block, thread;
    for (size_t j = 0; j < jobs.size(); ++j)
      (cuda::fb_forward_block_smem(host_models_[jobs[j].model].Q) <= max_smem_ ? block : thread).push_back(j);
    forward_blocks(jobs, block, nats);
    std::vector<FbJob> rest;
    for (size_t j : thread) rest.push_back(jobs[j]);
    run(rest, false, [&](size_t k, const float* out, const float* ends, const uint8_t*) {
      const int L = int(rest[k].target.length);
      nats[thread[k]] = hmm::fb_forward_nats(out, 1, L, ends[0], hmm::fb_special_odds(L, true));
    });
    return nats;
  }

  std::vector<hmm::FbParse> parse(const std::vector<FbJob>& jobs) override {
    std::vector<hmm::FbParse> res(jobs.size());
    run(jobs, true, [&](size_t j, const float* out, const float* ends, const uint8_t* own) {
      const int L = int(jobs[j].target.length);
      const size_t n = (size_t(L) + 1) * hmm::kFbXCells;
      hmm::FbParse& r = res[j];
      r.fwd_x.assign(out, out + n);
      r.fwd_nats = hmm::fb_forward_nats(r.fwd_x.data() + hmm::kFbXCells - 1, hmm::kFbXCells, L, ends[0],
                                        hmm::fb_special_odds(L, true));
      if (L < 1) return;
      r.bck_x.assign(out + n, out + 2 * n);
      r.bck_nats = hmm::fb_backward_nats(r.bck_x.data() + hmm::kFbXCells - 1, hmm::kFbXCells, L, ends[1]);
      r.has_backward = true;
      r.bck_own_scales = *own != 0;
    });
    return res;
  }

 private:
  // The Forward parser of jobs[which[..]] in one launch, the longest (residues x segments)
  // first so that they do not finish last; nats[j] for each.
  void forward_blocks(const std::vector<FbJob>& jobs, std::vector<size_t> which, std::vector<float>& nats) {
    if (which.empty()) return;
    CUDA_CHECK(cudaSetDevice(device_));
    const hmm::HmmerFloatMode mode;
    const std::vector<uint32_t> local = upload_models(jobs);
    const auto cost = [&](size_t j) { return uint64_t(jobs[j].target.length) * uint64_t(host_models_[jobs[j].model].Q); };
    std::stable_sort(which.begin(), which.end(), [&](size_t a, size_t b) { return cost(a) > cost(b); });
    const size_t n = which.size();
    std::vector<JobDesc> desc(n);
    size_t residues = 0, outs = 0;
    int qmax = 1;
    for (size_t i = 0; i < n; ++i) {
      const FbJob& j = jobs[which[i]];
      desc[i] = JobDesc{local[which[i]], j.target.length, residues, outs};
      residues += j.target.length;
      outs += size_t(j.target.length) + 1;
      qmax = std::max(qmax, host_models_[j.model].Q);
    }
    grow(seq_host_, std::max<size_t>(residues, 1)), grow(seqs_, residues), grow(jobs_, n);
    grow(out_, outs), grow(ends_, n), grow(out_host_, outs), grow(ends_host_, n);
    for (size_t i = 0; i < n; ++i) {
      const SeqView v = jobs[which[i]].target;
      std::copy(v.data, v.data + v.length, seq_host_.get() + desc[i].seq);
    }
    seqs_.upload(seq_host_.get(), residues, stream_);
    jobs_.upload(desc.data(), n, stream_);
    fb_forward_block_kernel<<<unsigned(n), cuda::kFbForwardThreads, cuda::fb_forward_block_smem(qmax), stream_>>>(
        models_.get(), prof_.get(), seqs_.get(), jobs_.get(), out_.get(), ends_.get());
    CUDA_CHECK_LAUNCH("fb_forward_block_kernel");
    CUDA_CHECK(cudaMemcpyAsync(out_host_.get(), out_.get(), outs * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaMemcpyAsync(ends_host_.get(), ends_.get(), n * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    wait();
    for (size_t i = 0; i < n; ++i) {
      const int L = int(desc[i].L);
      nats[which[i]] = hmm::fb_forward_nats(out_host_.get() + desc[i].out, 1, L, ends_host_[i], hmm::fb_special_odds(L, true));
    }
  }

  // The profiles of the jobs' models, uploaded for this call: the job that owns them holds a
  // model's profile only while a tile holds the model (HmmsearchJob::lane_profiles), not every
  // model's for the run. local[j]: job j's model's index among them.
  std::vector<uint32_t> upload_models(const std::vector<FbJob>& jobs) {
    std::vector<uint32_t> local(jobs.size());
    std::unordered_map<uint32_t, uint32_t> index;
    model_desc_.clear(), model_prof_.clear();
    for (size_t j = 0; j < jobs.size(); ++j) {
      const auto at = index.emplace(jobs[j].model, uint32_t(model_desc_.size()));
      if (at.second) {
        const hmm::FbLaneProfile& m = host_models_[jobs[j].model];
        model_desc_.push_back(ModelDesc{m.M, m.Q, model_prof_.size(), model_prof_.size() + m.rfv.size()});
        model_prof_.insert(model_prof_.end(), m.rfv.begin(), m.rfv.end());
        model_prof_.insert(model_prof_.end(), m.tfv.begin(), m.tfv.end());
      }
      local[j] = at.first->second;
    }
    models_.upload_growing(model_desc_.data(), model_desc_.size(), stream_);
    prof_.upload_growing(model_prof_.data(), model_prof_.size(), stream_);
    return local;
  }

  // Waits for the stream's work asleep (a blocking event), as the filters' waits do: a spinning
  // wait would take a core from the other workers sharing the GPU, whose host stages need them.
  void wait() {
    CUDA_CHECK(cudaEventRecord(done_, stream_));
    CUDA_CHECK(cudaEventSynchronize(done_));
  }

  // Room for n elements, at least doubling: a new allocation or a free of device or pinned
  // memory waits for the whole device, and so for the kernels of the GPU's other workers.
  template <class Buffer>
  static void grow(Buffer& b, size_t n) {
    if (n > b.capacity()) b.reserve(std::max({n, 2 * b.capacity(), size_t(1) << 16}));
  }

  // Runs the jobs in launches sorted by (model, length), calling take(job, its output, its
  // ends, its flag) for each, under hmmsearch's float mode.
  template <class Take>
  void run(const std::vector<FbJob>& jobs, bool parse, Take take) {
    check_fb_jobs(jobs, host_models_);
    if (jobs.empty()) return;
    CUDA_CHECK(cudaSetDevice(device_));
    const hmm::HmmerFloatMode mode;
    const std::vector<uint32_t> local = upload_models(jobs);
    std::vector<size_t> order(jobs.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (jobs[a].model != jobs[b].model) return jobs[a].model < jobs[b].model;
      return jobs[a].target.length > jobs[b].target.length;
    });
    const size_t per_residue = parse ? 2 * hmm::kFbXCells : 1;
    const int ends_per_job = parse ? 2 : 1;
    for (size_t begin = 0; begin < order.size();) {
      // As many jobs as the row budget allows for the widest model among them.
      size_t end = begin, qmax = 0;
      while (end < order.size()) {
        const size_t q = size_t(host_models_[jobs[order[end]].model].Q);
        const size_t n = end - begin + 1;
        if (n > 1 && n * 3 * std::max(qmax, q) * sizeof(Lanes4) > kRowBytesBudget) break;
        qmax = std::max(qmax, q), ++end;
      }
      const int n = int(end - begin);
      std::vector<JobDesc> desc(n);
      size_t residues = 0, outs = 0;
      for (int i = 0; i < n; ++i) {
        const FbJob& j = jobs[order[begin + i]];
        desc[i] = JobDesc{local[order[begin + i]], j.target.length, residues, outs};
        residues += j.target.length;
        outs += (size_t(j.target.length) + 1) * per_residue;
      }
      seq_host_.reserve(std::max<size_t>(residues, 1));
      for (int i = 0; i < n; ++i) {
        const SeqView v = jobs[order[begin + i]].target;
        std::copy(v.data, v.data + v.length, seq_host_.get() + desc[i].seq);
      }
      seqs_.upload(seq_host_.get(), residues, stream_);
      jobs_.upload(desc.data(), desc.size(), stream_);
      rows_.reserve(size_t(n) * 3 * qmax);
      out_.reserve(outs);
      ends_.reserve(size_t(n) * ends_per_job);
      own_.reserve(size_t(n));
      const int blocks = (n + kBlock - 1) / kBlock;
      if (parse)
        fb_parser_kernel<true><<<blocks, kBlock, 0, stream_>>>(models_.get(), prof_.get(), seqs_.get(), jobs_.get(), n,
                                                               rows_.get(), out_.get(), ends_.get(), own_.get());
      else
        fb_parser_kernel<false><<<blocks, kBlock, 0, stream_>>>(models_.get(), prof_.get(), seqs_.get(), jobs_.get(),
                                                                n, rows_.get(), out_.get(), ends_.get(), own_.get());
      CUDA_CHECK_LAUNCH("fb_parser_kernel");
      out_host_.reserve(outs), ends_host_.reserve(size_t(n) * ends_per_job), own_host_.reserve(size_t(n));
      CUDA_CHECK(cudaMemcpyAsync(out_host_.get(), out_.get(), outs * sizeof(float), cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaMemcpyAsync(ends_host_.get(), ends_.get(), size_t(n) * ends_per_job * sizeof(float),
                                 cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaMemcpyAsync(own_host_.get(), own_.get(), size_t(n), cudaMemcpyDeviceToHost, stream_));
      wait();
      for (int i = 0; i < n; ++i)
        take(order[begin + i], out_host_.get() + desc[i].out, ends_host_.get() + size_t(i) * ends_per_job,
             own_host_.get() + i);
      begin = end;
    }
  }

  int device_;
  size_t max_smem_ = 0;  // a block's dynamic shared memory, opted in
  cudaStream_t stream_ = nullptr;
  cudaEvent_t done_ = nullptr;  // wait()'s
  const std::vector<hmm::FbLaneProfile>& host_models_;  // read at the jobs' models only
  std::vector<ModelDesc> model_desc_;                   // upload_models' staging
  std::vector<Lanes4> model_prof_;
  DeviceBuffer<ModelDesc> models_;
  DeviceBuffer<Lanes4> prof_, rows_;
  DeviceBuffer<uint8_t> seqs_, own_;
  DeviceBuffer<JobDesc> jobs_;
  DeviceBuffer<float> out_, ends_;
  PinnedBuffer<uint8_t> seq_host_, own_host_;
  PinnedBuffer<float> out_host_, ends_host_;
};

}  // namespace

std::unique_ptr<FbEngine> make_cuda_fb_engine(int device, const std::vector<hmm::FbLaneProfile>* models) {
  return std::make_unique<CudaFbEngine>(device, models);
}

}  // namespace hpc
