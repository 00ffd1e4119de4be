#pragma once
// HMMER 3.3.2's clustering of sampled domains (p7_spensemble.c with Easel's single-linkage
// clustering, esl_cluster_SingleLinkage): domains from many sampled traces are linked when
// they overlap by >= 80% of the smaller in both sequence and model and lie within 4
// diagonals at one end; clusters found in >= 25% of the samples become envelopes, their
// ends the outermost coordinates reached by >= 2% of the cluster's samples.
#include <vector>

namespace hpc::hmm {

struct SampledDomain {
  int idx = 0;           // sample number
  int i = 0, j = 0;      // sequence coordinates
  int k = 0, m = 0;      // model coordinates
  float prob = 0.0f;     // for clusters: fraction of samples in the cluster
};

// Clusters `sp` (in the order added) from `nsamples` samples; returns the significant
// clusters ordered by start (ties in the order found, as glibc's stable qsort leaves them).
std::vector<SampledDomain> cluster_sampled_domains(const std::vector<SampledDomain>& sp, int nsamples);

}  // namespace hpc::hmm
