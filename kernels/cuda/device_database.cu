#include "kernels/cuda/device_database.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/core/stage_clock.hpp"

namespace hpc::cuda {
namespace {

// File-order targets [first, first + count) from the staging copy `chunk` (holding residues
// from file offset `base` on) to their length-order place position[t] in `out`, a warp a
// target; codes past the kernels' kAlphabetSize rows (HMMER's U, O, J: msv) become '*', so no
// kernel reads past its profile; msv's hosts score those targets themselves
// (kernels/cuda/msv_cuda.hpp). past[p] becomes 1 where target p had such a code.
__global__ void scatter_in_length_order(const uint8_t* chunk, uint64_t base, const uint64_t* file_offsets,
                                        const uint32_t* position, uint32_t first, uint32_t count,
                                        const uint64_t* offsets, uint8_t* out, uint8_t* past) {
  const uint32_t lane = threadIdx.x % 32, warps = gridDim.x * blockDim.x / 32;
  for (uint32_t k = (blockIdx.x * blockDim.x + threadIdx.x) / 32; k < count; k += warps) {
    const uint32_t t = first + k, p = position[t];
    const uint64_t s = file_offsets[t] - base, o = offsets[p], length = offsets[p + 1] - o;
    for (uint64_t i = lane; i < length; i += 32) {
      const uint8_t c = chunk[s + i];
      if (c >= kAlphabetSize) past[p] = 1;
      out[o + i] = c >= kAlphabetSize ? uint8_t(kCodeStop) : c;
    }
  }
}

// Residues staged on the device at a time: the database itself may fill most of the card.
constexpr uint64_t kStagingBytes = uint64_t(256) << 20;

// The residues go up in file order, straight from the loaded database, in chunks of whole
// targets, and the GPU puts them in length order: a host gather (207 M residues, all cores,
// the new buffer's page faults) had cost 0.2 s before the copy could start.
void upload(const Database& db, DeviceDatabase& d) {
  StageClock clock;
  const size_t n = db.by_length.size();
  std::vector<uint64_t> offsets(n + 1, 0);
  std::vector<uint32_t> lengths(n), position(std::max<size_t>(1, n));
  uint64_t longest = 0;
  for (size_t p = 0; p < n; ++p) {
    lengths[p] = uint32_t(db.seqs.length(db.by_length[p]));
    position[db.by_length[p]] = uint32_t(p);
    offsets[p + 1] = offsets[p] + lengths[p];
    longest = std::max<uint64_t>(longest, lengths[p]);
  }
  clock.mark("order");
  // The warm-up thread may still be creating the device's context (~0.2-0.3 s): this waits for it.
  CUDA_CHECK(cudaSetDevice(d.device));
  clock.mark("context");
  // Synchronous copies: the host buffers are pageable and go out of scope here.
  d.residues.reserve(std::max<uint64_t>(1, offsets[n]));
  d.offsets.reserve(n + 1);
  CUDA_CHECK(cudaMemcpy(d.offsets.get(), offsets.data(), (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
  d.lengths.reserve(std::max<size_t>(1, n));
  d.file_index.reserve(std::max<size_t>(1, n));
  if (n) {
    CUDA_CHECK(cudaMemcpy(d.lengths.get(), lengths.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.file_index.get(), db.by_length.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    const std::vector<uint64_t>& file_offsets = db.seqs.offsets;
    DeviceBuffer<uint64_t> file_offsets_d;
    DeviceBuffer<uint32_t> position_d;
    DeviceBuffer<uint8_t> chunk, past;
    file_offsets_d.reserve(n + 1);
    CUDA_CHECK(cudaMemcpy(file_offsets_d.get(), file_offsets.data(), (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    position_d.reserve(n);
    CUDA_CHECK(cudaMemcpy(position_d.get(), position.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    const uint64_t staging = std::max(std::min(kStagingBytes, offsets[n]), std::max<uint64_t>(1, longest));
    chunk.reserve(staging);
    past.reserve(n);
    CUDA_CHECK(cudaMemset(past.get(), 0, n));
    for (size_t first = 0; first < n;) {
      size_t last = first + 1;  // a chunk: whole targets within the staging size
      while (last < n && file_offsets[last + 1] - file_offsets[first] <= staging) ++last;
      const uint64_t base = file_offsets[first], bytes = file_offsets[last] - base;
      if (bytes) CUDA_CHECK(cudaMemcpy(chunk.get(), db.seqs.residues.data() + base, bytes, cudaMemcpyHostToDevice));
      scatter_in_length_order<<<1024, 256>>>(chunk.get(), base, file_offsets_d.get(), position_d.get(),
                                             uint32_t(first), uint32_t(last - first), d.offsets.get(),
                                             d.residues.get(), past.get());
      CUDA_CHECK(cudaGetLastError());
      first = last;
    }
    std::vector<uint8_t> flags(n);
    CUDA_CHECK(cudaMemcpy(flags.data(), past.get(), n, cudaMemcpyDeviceToHost));  // waits for the kernels
    for (uint32_t p = 0; p < n; ++p)
      if (flags[p]) d.past_the_rows.push_back(p);
  }
  d.host_lengths = std::move(lengths);
  clock.mark("copy");
  if (clock.on())
    clock.report(("device database of GPU " + std::to_string(d.device) + ", ready " +
                  std::to_string(process_seconds()) + " s after the process")
                     .c_str());
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
