// GPU twin of the bias filter (kernels/cuda/bias_cuda.hpp): BiasFilter::score's bits for every
// (model, target) pair of real and random databases, degenerate and HMMER-only letters
// included, and few pairs sent back to the host (the rows near a float rounding midpoint).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "gpu/gpu_test_support.hpp"
#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/hmm_file.hpp"
#include "kernels/cuda/bias_cuda.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "test_support.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {


// Every model against every non-empty target of `db`, all pairs in one call; returns the pairs.
size_t expect_gpu_equals_cpu(const Database& db, uint64_t& rescored) {
  std::vector<hmm::ModelFilters> filters;
  for (const char* name : test::kFilterTestModels)
    for (const HmmModel& m : read_hmm_file(data_path(std::string("hmm/") + name))) filters.emplace_back(m);
  std::vector<hmm::BiasPair> pairs;
  for (const hmm::ModelFilters& f : filters)
    for (uint32_t pos = 0; pos < db.by_length.size(); ++pos)
      if (db.seqs.length(db.by_length[pos]) > 0) pairs.push_back({&f.bias, pos});
  hmm::BiasCuda gpu(0, db);
  const std::vector<float> got = gpu.scores(pairs);
  EXPECT_EQ(got.size(), pairs.size());
  long mismatches = 0;
  for (size_t i = 0; i < pairs.size() && i < got.size(); ++i) {
    const SeqView v = db.seqs.view(db.by_length[pairs[i].position]);
    const float want = pairs[i].filter->score(v.data, int(v.length));
    if (test::float_bits(want) != test::float_bits(got[i]) && ++mismatches <= 5)
      ADD_FAILURE() << "pair " << i << " (L=" << v.length << "): cpu " << want << " gpu " << got[i];
  }
  EXPECT_EQ(mismatches, 0);
  rescored = gpu.host_rescored();
  std::printf("  %zu pairs, %llu rescored on the host: identical\n", pairs.size(), (unsigned long long)rescored);
  return pairs.size();
}

}  // namespace

TEST(BiasGpu, ScoresEqualCpuOnRealDatabases) {
  REQUIRE_GPU();
  for (const char* name : {"balifam2000.fa", "db2M.fa"}) {
    uint64_t rescored = 0;
    const size_t pairs = expect_gpu_equals_cpu(load_database(data_path(name)), rescored);
    EXPECT_GT(pairs, 10000u) << name;
    EXPECT_LT(rescored, pairs / 1000 + 1) << name << ": the midpoint test should send back few pairs";
  }
}

// Random targets of 1 to 3,000 residues over the 20 standard letters and the degenerate
// ones (B, Z, X), and targets with U, O, J and '*' (uploaded as '*': scored on the host).
TEST(BiasGpu, ScoresEqualCpuOnRandomAndHmmerOnlyLetters) {
  REQUIRE_GPU();
  std::mt19937 rng(25);
  std::uniform_int_distribution<size_t> length(1, 3000);
  std::string text;
  for (int t = 0; t < 3000; ++t) {
    const std::string letters = t % 3 == 0 ? "ARNDCQEGHILKMFPSTWYVBZX" : t % 7 == 0 ? "ACDUOJ*" : "ARNDCQEGHILKMFPSTWYV";
    text += ">r" + std::to_string(t) + "\n" + random_protein(rng, length(rng), letters) + "\n";
  }
  const Database db = make_database(parse_fasta_text(text.data(), text.size(), "random.fa", nullptr, ResidueRules::kHmmer));
  uint64_t rescored = 0;
  const size_t pairs = expect_gpu_equals_cpu(db, rescored);
  EXPECT_GT(rescored, 0u) << "targets with U, O or J are the host's";
  EXPECT_LT(rescored, pairs / 5);
}
