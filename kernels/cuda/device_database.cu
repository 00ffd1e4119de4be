#include "kernels/cuda/device_database.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/core/stage_clock.hpp"

namespace hpc::cuda {
namespace {

// Target p of the length order from the file-order copy `src` (its residues at from[p]) to
// `out` at offsets[p], a warp a target; codes past the kernels' kAlphabetSize rows (HMMER's U,
// O, J: msv) become '*', so no kernel reads past its profile; msv's hosts score those targets
// themselves (kernels/cuda/msv_cuda.hpp).
// past[p] becomes 1 where target p had such a code.
__global__ void gather_in_length_order(const uint8_t* src, const uint64_t* from, const uint64_t* offsets, uint32_t n,
                                       uint8_t* out, uint8_t* past) {
  const uint32_t lane = threadIdx.x % 32, warps = gridDim.x * blockDim.x / 32;
  for (uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) / 32; p < n; p += warps) {
    const uint64_t s = from[p], o = offsets[p], length = offsets[p + 1] - o;
    for (uint64_t i = lane; i < length; i += 32) {
      const uint8_t c = src[s + i];
      if (c >= kAlphabetSize) past[p] = 1;
      out[o + i] = c >= kAlphabetSize ? uint8_t(kCodeStop) : c;
    }
  }
}

// The residues go up in file order, straight from the loaded database, and the GPU puts them
// in length order: a host gather (207 M residues, all cores, the new buffer's page faults) had
// cost 0.2 s before the copy could start.
void upload(const Database& db, DeviceDatabase& d) {
  StageClock clock;
  const size_t n = db.by_length.size();
  std::vector<uint64_t> offsets(n + 1, 0), from(std::max<size_t>(1, n));
  std::vector<uint32_t> lengths(n);
  for (size_t p = 0; p < n; ++p) {
    lengths[p] = uint32_t(db.seqs.length(db.by_length[p]));
    from[p] = db.seqs.offsets[db.by_length[p]];
    offsets[p + 1] = offsets[p] + lengths[p];
  }
  clock.mark("order");
  // The warm-up thread may still be creating the device's context (~0.2-0.3 s): this waits for it.
  CUDA_CHECK(cudaSetDevice(d.device));
  clock.mark("context");
  // Synchronous copies: the host buffers are pageable and go out of scope here.
  const std::vector<uint8_t>& file_order = db.seqs.residues;
  DeviceBuffer<uint8_t> src;
  DeviceBuffer<uint64_t> src_from;
  src.reserve(std::max<size_t>(1, file_order.size()));
  if (!file_order.empty())
    CUDA_CHECK(cudaMemcpy(src.get(), file_order.data(), file_order.size(), cudaMemcpyHostToDevice));
  src_from.reserve(from.size());
  CUDA_CHECK(cudaMemcpy(src_from.get(), from.data(), from.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  d.residues.reserve(std::max<uint64_t>(1, offsets[n]));
  d.offsets.reserve(n + 1);
  CUDA_CHECK(cudaMemcpy(d.offsets.get(), offsets.data(), (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
  d.lengths.reserve(std::max<size_t>(1, n));
  d.file_index.reserve(std::max<size_t>(1, n));
  if (n) {
    CUDA_CHECK(cudaMemcpy(d.lengths.get(), lengths.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.file_index.get(), db.by_length.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    DeviceBuffer<uint8_t> past;
    past.reserve(n);
    CUDA_CHECK(cudaMemset(past.get(), 0, n));
    gather_in_length_order<<<1024, 256>>>(src.get(), src_from.get(), d.offsets.get(), uint32_t(n), d.residues.get(),
                                          past.get());
    CUDA_CHECK(cudaGetLastError());
    std::vector<uint8_t> flags(n);
    CUDA_CHECK(cudaMemcpy(flags.data(), past.get(), n, cudaMemcpyDeviceToHost));
    for (uint32_t p = 0; p < n; ++p)
      if (flags[p]) d.past_the_rows.push_back(p);
  }
  clock.mark("copy");
  clock.report("device database");
}

// One entry per (database, device): its own lock, so that GPUs upload at the same time while
// a second worker of one GPU waits for the first's upload.
struct Entry {
  std::mutex mu;
  std::weak_ptr<DeviceDatabase> copy;
};

}  // namespace

DeviceDatabase::~DeviceDatabase() {
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  cudaSetDevice(device);  // the last holder may run on another device's thread
  residues.release(), offsets.release(), lengths.release(), file_index.release();
  cudaSetDevice(current);
}

std::shared_ptr<const DeviceDatabase> device_database(const Database& db, int device) {
  static std::mutex mu;
  // Keyed by the residues' address and size as well: a later database may reuse the address.
  static std::map<std::tuple<const Database*, const uint8_t*, size_t, int>, std::shared_ptr<Entry>> entries;
  std::shared_ptr<Entry> e;
  {
    std::lock_guard<std::mutex> lk(mu);
    auto& slot = entries[{&db, db.seqs.residues.data(), db.seqs.residues.size(), device}];
    if (!slot) slot = std::make_shared<Entry>();
    e = slot;
  }
  std::lock_guard<std::mutex> lk(e->mu);
  if (auto copy = e->copy.lock()) return copy;
  auto copy = std::make_shared<DeviceDatabase>();
  copy->device = device;
  upload(db, *copy);
  e->copy = copy;
  return copy;
}

}  // namespace hpc::cuda
