#pragma once
// HMMER's table-driven log(e^a + e^b) (logsum.c, p7_FLogsum): 16,000 entries in steps of
// 0.001 nats; the null2 bias corrections go through it, so its steps show in printed scores.
namespace hpc::hmm {

float flogsum(float a, float b);

}  // namespace hpc::hmm
