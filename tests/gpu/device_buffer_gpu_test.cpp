// The device buffers' growth where the memory pool still holds what a stream-ordered free gave
// back: the allocation gives the pool's freed memory back and tries again instead of throwing
// hpc::OutOfMemory (which made the run driver split a tile).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "kernels/cuda/device_buffer.hpp"
#include "gpu/gpu_test_support.hpp"

namespace hpc::cuda {
namespace {

bool has_memory_pools() {
  int pools = 0;
  return cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && pools;
}

// Grown from 0.5 to 0.7 of the free memory on one stream: the first buffer's stream-ordered free
// leaves it in the pool, so the larger one fits only once the pool gave it back.
TEST(DeviceBufferGpu, StreamBufferGrowsPastMemoryThePoolStillHolds) {
  REQUIRE_GPU();
  if (!has_memory_pools()) GTEST_SKIP() << "no memory pools: cudaMalloc and cudaFree";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  const size_t first = free_bytes / 2, second = free_bytes / 10 * 7;
  {
    StreamBuffer<char> buffer;
    buffer.use_stream(stream, 0);
    buffer.reserve(first);
    ASSERT_EQ(cudaMemsetAsync(buffer.get(), 1, first, stream), cudaSuccess);
    buffer.reserve(second);  // throws hpc::OutOfMemory where the retry is missing and needed
    ASSERT_EQ(buffer.capacity(), second);
    ASSERT_EQ(cudaMemsetAsync(buffer.get(), 7, second, stream), cudaSuccess);
    char last = 0;
    ASSERT_EQ(cudaMemcpyAsync(&last, buffer.get() + second - 1, 1, cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(last, 7);
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
}  // namespace hpc::cuda
