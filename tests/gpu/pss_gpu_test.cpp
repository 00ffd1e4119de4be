// GPU twin of the PSS CPU path: bit-identical permutations and identical score vectors.
#include <gtest/gtest.h>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/pss_cuda.hpp"
#include "src/pss/permute.hpp"
#include "kernels/cpu/pss_cpu.hpp"
#include "test_support.hpp"

using namespace hpc;

namespace {
SequenceSet pick(const SequenceSet& all, size_t begin, size_t n) {
  SequenceSet s;
  for (size_t i = begin; i < begin + n; ++i) s.add(all.ids[i], all.view(i).data, all.length(i));
  return s;
}
}  // namespace

TEST(PssGpu, PermutationsBitIdenticalToCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  for (uint32_t s : {0u, 7u, 123u})
    for (uint32_t first_k : {0u, 500u}) {
      const auto cpu = permute_subject_batch(db.view(s), 42, s, first_k, 300);
      const auto gpu = pss_cuda_permute(0, db.view(s), 42, s, first_k, 300);
      EXPECT_EQ(cpu, gpu) << "subject " << s << " first_k " << first_k;
    }
}

TEST(PssGpu, SameSeedSameScoresAsCpuDifferentSeedDifferent) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  const SequenceSet q = pick(db, 0, 1), s = pick(db, 40, 3);
  PssParams p;
  p.matrix = load_matrix("BLOSUM62");
  p.permutations = 1000;
  p.seed = 42;
  p.keep_scores = true;
  PssCpuEngine cpu(p, q, s);
  const QueryProfile prof = QueryProfile::from_matrix(q.view(0), p.matrix);
  for (uint32_t subject = 0; subject < 3; ++subject) {
    const auto want = cpu.run({0}, subject)[0].permuted_scores;
    EXPECT_EQ(pss_cuda_score_permutations(0, prof, p.gaps, s.view(subject), 42, subject, 1000), want);
    EXPECT_NE(pss_cuda_score_permutations(0, prof, p.gaps, s.view(subject), 43, subject, 1000), want);
  }
}
