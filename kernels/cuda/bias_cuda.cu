// The bias filter's Forward on the GPU (bias_cuda.hpp): one thread a pair, the host's float
// steps written as round-to-nearest intrinsics so that nvcc contracts nothing.
#include "kernels/cuda/bias_cuda.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_database.hpp"
#include "kernels/cuda/timed_stream.hpp"

namespace hpc::hmm {

namespace {

// One model's bias-filter HMM: odds[code] = (background, composition) emission odds.
struct BiasModel {
  float2 odds[kHmmerAlphabetSize];
  float t10, t11;
};

// float(log(double(x))), and whether the host's log (within 1 ulp, as CUDA's) might round to
// another float: d within 4 double ulps of the midpoint between its two float neighbours.
__device__ float row_log(float x, bool& unsure) {
  const double d = log(double(x));
  const float lo = __double2float_rd(d), hi = __double2float_ru(d);
  if (lo != hi) {
    const double mid = 0.5 * (double(lo) + double(hi));  // exact: neighbours differ in the last bit
    if (fabs(d - mid) <= fabs(d) * 0x1p-50) unsure = true;
  }
  return __double2float_rn(d);
}

// std::max(a, b) as the host evaluates it, NaN included.
__device__ float host_max(float a, float b) { return a < b ? b : a; }

// BiasFilter::score up to its sum of row logs (the end row's included); NaN where unsure.
__global__ void bias_forward(const BiasModel* __restrict__ models, const uint2* __restrict__ pairs, uint32_t n,
                             const uint8_t* __restrict__ residues, const uint64_t* __restrict__ offsets,
                             float* __restrict__ out) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const uint2 pair = pairs[p];  // (target position, model)
  const BiasModel* m = models + pair.y;
  const uint64_t begin = offsets[pair.x];
  const int L = int(offsets[pair.x + 1] - begin);
  const uint8_t* x = residues + begin;
  const float p1 = __fdiv_rn(float(L), float(L + 1));
  const float t00 = p1, t01 = __fsub_rn(1.0f, p1), t10 = m->t10, t11 = m->t11;
  bool unsure = false;
  float2 o = m->odds[x[0]];
  float dp0 = __fmul_rn(o.x, 0.999f), dp1 = __fmul_rn(o.y, 0.001f);
  float mx = host_max(dp1, host_max(dp0, 0.0f));
  dp0 = __fdiv_rn(dp0, mx);
  dp1 = __fdiv_rn(dp1, mx);
  float logsc = row_log(mx, unsure);
  for (int i = 1; i < L; ++i) {
    o = m->odds[x[i]];
    const float nd0 = __fmul_rn(__fadd_rn(__fmul_rn(dp0, t00), __fmul_rn(dp1, t10)), o.x);
    const float nd1 = __fmul_rn(__fadd_rn(__fmul_rn(dp0, t01), __fmul_rn(dp1, t11)), o.y);
    mx = host_max(nd1, host_max(nd0, 0.0f));
    dp0 = __fdiv_rn(nd0, mx);
    dp1 = __fdiv_rn(nd1, mx);
    logsc = __fadd_rn(logsc, row_log(mx, unsure));
  }
  logsc = __fadd_rn(logsc, row_log(__fadd_rn(dp0, dp1), unsure));
  out[p] = unsure ? NAN : logsc;
}

}  // namespace

struct BiasCuda::Impl {
  Impl(int device, const Database& db) : ts(device), db(db), dbdev(cuda::device_database(db, device)) {}
  cuda::TimedStream ts;
  const Database& db;
  std::shared_ptr<const cuda::DeviceDatabase> dbdev;
  cuda::DeviceBuffer<BiasModel> models;
  cuda::DeviceBuffer<uint2> pairs;
  cuda::DeviceBuffer<float> out;
  uint64_t host_rescored = 0;
};

BiasCuda::BiasCuda(int device, const Database& db) : impl_(std::make_unique<Impl>(device, db)) {}

BiasCuda::~BiasCuda() {
  if (impl_) cudaSetDevice(impl_->ts.device());  // the buffers are freed on their device
}

uint64_t BiasCuda::host_rescored() const { return impl_->host_rescored; }

double BiasCuda::kernel_seconds() const { return impl_->ts.kernel_seconds(); }

std::vector<float> BiasCuda::scores(const std::vector<BiasPair>& pairs) {
  Impl& m = *impl_;
  const size_t n = pairs.size();
  std::vector<float> result(n);
  if (n == 0) return result;
  // The calls' models, each once (a tile's pairs come grouped by model).
  std::vector<const BiasFilter*> filters;
  std::vector<BiasModel> table;
  std::vector<uint2> work(n);
  uint32_t model = 0;
  for (size_t i = 0; i < n; ++i) {
    const BiasFilter* f = pairs[i].filter;
    if (filters.empty() || filters[model] != f) {
      model = uint32_t(std::find(filters.begin(), filters.end(), f) - filters.begin());
      if (model == filters.size()) {
        BiasModel bm;
        for (int c = 0; c < kHmmerAlphabetSize; ++c) bm.odds[c] = make_float2(f->odds()[c][0], f->odds()[c][1]);
        bm.t10 = f->t10();
        bm.t11 = f->t11();
        table.push_back(bm);
        filters.push_back(f);
      }
    }
    work[i] = make_uint2(pairs[i].position, model);
  }
  CUDA_CHECK(cudaSetDevice(m.ts.device()));
  m.models.upload_growing(table.data(), table.size(), m.ts.get());
  m.pairs.upload_growing(work.data(), n, m.ts.get());
  m.out.reserve_growing(n);
  m.ts.kernels_begin();
  constexpr int kThreads = 128;
  bias_forward<<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, m.ts.get()>>>(
      m.models.get(), m.pairs.get(), uint32_t(n), m.dbdev->residues.get(), m.dbdev->offsets.get(), m.out.get());
  CUDA_CHECK(cudaGetLastError());
  m.ts.kernels_end();
  m.ts.copy_results(result.data(), m.out.get(), n * sizeof(float));
  // The host's own score where the GPU's may differ: U/O/J targets (uploaded as '*') and NaN.
  const std::vector<uint32_t>& past = m.dbdev->past_the_rows;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t pos = pairs[i].position;
    const SeqView v = m.db.seqs.view(m.db.by_length[pos]);
    if (std::isnan(result[i]) || std::binary_search(past.begin(), past.end(), pos)) {
      result[i] = pairs[i].filter->score(v.data, int(v.length));
      ++m.host_rescored;
    } else {
      result[i] = BiasFilter::finish(result[i], int(v.length));
    }
  }
  return result;
}

}  // namespace hpc::hmm
