#pragma once
// The CUDA driver's settings that this program wants before any CUDA call (they are read when
// the driver starts or a context is made), unless the user set them.
#include <cstdlib>

namespace hpc {

// CUDA_DEVICE_MAX_CONNECTIONS: the hardware work queues that a context's streams map onto
// (8 by default, 32 at most). A search runs up to 12 workers a GPU with four streams each (the
// backend's, the all-vs-all engine's and its two scorers'); with 8 queues streams share one,
// and a worker's alignment kernels on the top-priority stream wait behind whatever another
// worker queued before them there, such as its next tile's persistent score kernel. One H100,
// 11,000 balifam1000 domains against themselves: search phase 0.786-0.824 s with 32 against
// 0.818-0.885 s (kernels/cuda/NOTES.md).
inline void set_cuda_environment_defaults() {
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
}

}  // namespace hpc
