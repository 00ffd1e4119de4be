#include "mpi/large_message.hpp"

#include <mpi.h>

#include "src/core/error.hpp"

namespace hpc {

MessageShape message_shape(uint64_t bytes, const MessageLimits& limits) {
  if (limits.max_count > uint64_t(INT_MAX) || limits.block < 2 || limits.block > uint64_t(INT_MAX))
    throw Error("internal: MPI message limits out of range");
  if (bytes <= limits.max_count) return {1, int(bytes)};
  const uint64_t blocks = bytes / limits.block + (bytes % limits.block != 0);
  if (blocks > limits.max_count)
    throw Error("a message of " + std::to_string(bytes) + " bytes is too large for one MPI message");
  return {limits.block, int(blocks)};
}

namespace {

// f(datatype) with the shape's element type, a contiguous type of its block freed after.
template <class F>
void with_element_type(const MessageShape& shape, F&& f) {
  if (shape.block == 1) return f(MPI_BYTE);
  MPI_Datatype block;
  MPI_Type_contiguous(int(shape.block), MPI_BYTE, &block);
  MPI_Type_commit(&block);
  f(block);
  MPI_Type_free(&block);
}

}  // namespace

void send_message(std::string bytes, int dest, int tag, const MessageLimits& limits) {
  const MessageShape shape = message_shape(bytes.size(), limits);
  bytes.resize(shape.bytes(), '\0');
  with_element_type(shape, [&](MPI_Datatype type) {
    MPI_Send(bytes.data(), shape.count, type, dest, tag, MPI_COMM_WORLD);
  });
}

std::string receive_message(int source, int tag, int* from, const MessageLimits& limits) {
  MPI_Message handle;
  MPI_Status st;
  MPI_Mprobe(source, tag, MPI_COMM_WORLD, &handle, &st);
  MPI_Count n = 0;  // bytes, whatever the elements they came in (MPI_Get_count's int cannot hold them all)
  MPI_Get_elements_x(&st, MPI_BYTE, &n);
  const MessageShape shape = message_shape(uint64_t(n), limits);
  if (n < 0 || shape.bytes() != uint64_t(n))
    throw Error("an MPI message of " + std::to_string(n) + " bytes is not in whole blocks");
  std::string bytes(size_t(n), '\0');
  with_element_type(shape, [&](MPI_Datatype type) {
    MPI_Mrecv(bytes.data(), shape.count, type, &handle, MPI_STATUS_IGNORE);
  });
  if (from) *from = st.MPI_SOURCE;
  return bytes;
}

}  // namespace hpc
