#pragma once
// CUDA twin of the bias filter (hmm::BiasFilter::score, HMMER's p7_bg_FilterScore; built only
// with CUDA), for the pairs past the MSV filter: one GPU thread a (model, target) pair runs the
// two-state scaled Forward in the host's float steps (no fused multiply-adds, IEEE division)
// over the device database (kernels/cuda/device_database.hpp), and the host finishes each sum
// with BiasFilter::finish. Bit for bit: each row adds float(log(double(max))); CUDA's double
// log is within 1 ulp and the host's (glibc) within 1, so a row whose double log lies within 4
// double ulps of a float rounding midpoint may round the other way there: the kernel marks its
// pair and the host rescores it, as it does the targets uploaded with '*' for U, O or J.
#include <cstdint>
#include <memory>
#include <vector>

#include "io/database.hpp"
#include "src/hmm/null_model.hpp"

namespace hpc::hmm {

struct BiasPair {
  const BiasFilter* filter;
  uint32_t position;  // the target db.by_length[position]
};

class BiasCuda {
 public:
  // Shares `device`'s copy of `db` (uploaded by the first user; `db` must outlive this).
  BiasCuda(int device, const Database& db);
  ~BiasCuda();
  BiasCuda(const BiasCuda&) = delete;
  BiasCuda& operator=(const BiasCuda&) = delete;

  // pairs[i].filter->score(target) for every pair, in order (targets of at least one residue).
  std::vector<float> scores(const std::vector<BiasPair>& pairs);
  // Pairs scored on the host so far: U/O/J targets and rows near a rounding midpoint.
  uint64_t host_rescored() const;
  double kernel_seconds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpc::hmm
