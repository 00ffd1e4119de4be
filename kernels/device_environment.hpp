#pragma once
// The CUDA driver's settings that this program wants before any CUDA call (they are read when
// the driver starts or a context is made), unless the user set them.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace hpc {

// CUDA_DEVICE_MAX_CONNECTIONS: the hardware work queues that a context's streams map onto
// (8 by default, 32 at most). Each queue is a channel the driver makes with the context, one
// after the other and behind one lock for every GPU and process: a context took 0.07 s with 1
// or 2 queues, 0.10 s with 4, 0.12 s with 8 and 0.58-0.65 s with 32 (2 x H100, a context and
// a stream per GPU; kernels/cuda/NOTES.md), paid once a GPU before its first tile.
// - search: the driver's default. 32 queues (up to 12 workers a GPU with four streams each,
//   so that a worker's alignment kernels never wait behind another worker's score kernel on a
//   shared queue) took the 11,000-domain self-search's phase from 0.733 to 0.723 s on one
//   H100 and 0.608 to 0.585 s on two, but its wall from 1.97 to 2.30 s and 2.15 to 2.97 s:
//   the contexts' channels cost more than the queues save.
// - allvsall --score-only: 2. Its start is the 2-GPU run's serial part: 2 x H100, 20,000
//   balifam1000 sequences, --min-score 50, engines ready 0.13-0.14 s after they began against
//   0.22-0.24 s, wall 1.09-1.13 s against 1.22-1.31 s (1 GPU 1.52 against 1.57), phase unchanged.
//   With alignments 2 queues slowed the phase 7-9% (a worker's alignment kernels on its
//   top-priority stream behind others' score kernels, as the search's): the driver's default.
// - the others: the driver's default.
inline constexpr int kScoreOnlyAllVsAllCudaConnections = 2;

// The queues a command's contexts get (0: the driver's default). `args`: the command's own
// arguments, as typed (an abbreviated --score-only gets the driver's default; no result changes).
inline int cuda_connections_for(const std::string& command, const std::vector<std::string>& args) {
  if (command == "allvsall" && std::find(args.begin(), args.end(), "--score-only") != args.end())
    return kScoreOnlyAllVsAllCudaConnections;
  return 0;
}

// Sets the command's settings where the user set none; call before MPI (which may start CUDA)
// and before any thread.
inline void set_cuda_environment_defaults(const std::string& command, const std::vector<std::string>& args) {
  if (const int queues = cuda_connections_for(command, args); queues > 0)
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(queues).c_str(), /*overwrite=*/0);
}

}  // namespace hpc
