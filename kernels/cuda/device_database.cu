#include "kernels/cuda/device_database.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/core/on_all_cores.hpp"
#include "src/core/stage_clock.hpp"

namespace hpc::cuda {
namespace {

// by_length order, gathered on all cores (the page faults of the new buffer too). Codes past
// the kernels' kAlphabetSize rows (HMMER's U, O, J: msv) go up as '*', so no kernel reads
// past its profile; msv's hosts score those targets themselves (kernels/cuda/msv_cuda.hpp).
void gather_in_length_order(const Database& db, const std::vector<uint64_t>& offsets, uint8_t* out) {
  const size_t n = db.by_length.size();
  const size_t parts = offsets[n] < (size_t(8) << 20) ? 1 : usable_cores();
  run_ranges(n, parts, [&](size_t first, size_t last) {
    for (size_t p = first; p < last; ++p) {
      const SeqView v = db.seqs.view(db.by_length[p]);
      if (v.length) std::memcpy(out + offsets[p], v.data, v.length);
      for (uint32_t i = 0; i < v.length; ++i)
        if (out[offsets[p] + i] >= kAlphabetSize) out[offsets[p] + i] = kCodeStop;
    }
  });
}

void upload(const Database& db, DeviceDatabase& d) {
  StageClock clock;
  const size_t n = db.by_length.size();
  std::vector<uint64_t> offsets(n + 1, 0);
  std::vector<uint32_t> lengths(n);
  for (size_t p = 0; p < n; ++p) {
    lengths[p] = uint32_t(db.seqs.length(db.by_length[p]));
    offsets[p + 1] = offsets[p] + lengths[p];
  }
  // Left uninitialised (no vector): zeroing 207 MB on one thread had cost more than the gather.
  const size_t bytes = std::max<uint64_t>(1, offsets[n]);
  const std::unique_ptr<uint8_t[]> residues(new uint8_t[bytes]);
  gather_in_length_order(db, offsets, residues.get());
  clock.mark("order");
  // The gather above needs no device: it runs while the warm-up thread may still be creating
  // the device's context (~0.2-0.3 s), which this call now waits for.
  CUDA_CHECK(cudaSetDevice(d.device));
  clock.mark("context");
  // Synchronous copies: the buffers are pageable and go out of scope here.
  d.residues.reserve(bytes);
  CUDA_CHECK(cudaMemcpy(d.residues.get(), residues.get(), offsets[n], cudaMemcpyHostToDevice));
  d.offsets.reserve(n + 1);
  CUDA_CHECK(cudaMemcpy(d.offsets.get(), offsets.data(), (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
  d.lengths.reserve(std::max<size_t>(1, n));
  d.file_index.reserve(std::max<size_t>(1, n));
  if (n) {
    CUDA_CHECK(cudaMemcpy(d.lengths.get(), lengths.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.file_index.get(), db.by_length.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
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
