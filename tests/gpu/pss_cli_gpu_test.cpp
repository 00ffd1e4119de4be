// `hpcalign pss --backend cuda` end to end: the same /pss (and /pss_scores) as --backend cpu,
// and the tile size T = floor(SMs x resident threads per SM / N) from the GPU's properties.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "io/fasta.hpp"
#include "io/hdf5_columns.hpp"
#include "io/matrix.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/pss_cuda_engine.hpp"
#include "kernels/cpu/pss_cpu.hpp"
#include "src/plan/pss_plan.hpp"
#include "test_support.hpp"

using namespace hpc;

namespace {

void write_fasta(const std::string& path, const SequenceSet& all, size_t begin, size_t n) {
  std::ofstream f(path);
  for (size_t i = begin; i < begin + n; ++i) f << '>' << all.ids[i] << '\n' << decode(all.view(i).data, all.length(i)) << '\n';
}

// The bytes of one column read as doubles (every /pss column converts): equal bytes mean
// equal values, NaN p-values of failed fits included.
std::string dataset(const std::string& file, const std::string& path) {
  const h5::File f(file, h5::Mode::kReadOnly);
  const std::vector<double> v = h5::read_all<double>(f, path);
  std::string bytes(v.size() * sizeof(double), '\0');
  if (!v.empty()) std::memcpy(&bytes[0], v.data(), bytes.size());
  EXPECT_FALSE(v.empty()) << path;
  return bytes;
}

std::string attribute(const std::string& file, const std::string& name) {
  const h5::File f(file, h5::Mode::kReadOnly);
  return h5::read_string_attribute(f, "", name);
}
int64_t int_attribute(const std::string& file, const std::string& name) {
  const h5::File f(file, h5::Mode::kReadOnly);
  return h5::read_int_attribute(f, "", name);
}

std::string run_pss(const std::string& backend, const std::string& args, const std::string& out) {
  int rc = 0;
  const std::string log =
      test::run_command(test::binary_path() + " pss " + args + " -o " + out + " --backend " + backend + " --verbose 2>&1", &rc);
  EXPECT_EQ(rc, 0) << log;
  return log;
}

const char* kColumns[] = {"query", "target", "score", "mu", "lambda", "K", "pvalue", "log10_pvalue",
                          "converged", "fit_status", "n_perm"};

}  // namespace

TEST(PssCliGpu, CudaBackendWritesTheCpuResults) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  const std::string dir = test::temp_dir();
  write_fasta(dir + "/q.fa", db, 0, 3);
  write_fasta(dir + "/s.fa", db, 100, 45);
  const std::string args = "-q " + dir + "/q.fa -s " + dir + "/s.fa --permutations 300 --keep-scores --query-batch 2";
  run_pss("cpu", args, dir + "/cpu.h5");
  const std::string log = run_pss("cuda", args, dir + "/gpu.h5");
  EXPECT_NE(log.find("GPU score kernels"), std::string::npos) << log;
  EXPECT_NE(attribute(dir + "/gpu.h5", "backend").find("cuda"), std::string::npos);
  for (const char* col : kColumns)
    EXPECT_EQ(dataset(dir + "/gpu.h5", std::string("pss/") + col), dataset(dir + "/cpu.h5", std::string("pss/") + col))
        << col;
  EXPECT_EQ(dataset(dir + "/gpu.h5", "pss_scores/scores"), dataset(dir + "/cpu.h5", "pss_scores/scores"));
  // auto picks the GPU when one is visible.
  run_pss("auto", args, dir + "/auto.h5");
  EXPECT_NE(attribute(dir + "/auto.h5", "backend").find("cuda"), std::string::npos);
  EXPECT_EQ(dataset(dir + "/auto.h5", "pss/pvalue"), dataset(dir + "/cpu.h5", "pss/pvalue"));
}

TEST(PssCliGpu, PssmProfileOnTheGpuMatchesTheCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  const std::string dir = test::temp_dir();
  write_fasta(dir + "/s.fa", db, 300, 20);
  const std::string args = "-q " + test::data_path("pss_query.fa") + " --pssm " + test::data_path("pss_query.pssm") +
                           " -s " + dir + "/s.fa --permutations 200";
  run_pss("cpu", args, dir + "/cpu.h5");
  run_pss("cuda", args, dir + "/gpu.h5");
  for (const char* col : kColumns)
    EXPECT_EQ(dataset(dir + "/gpu.h5", std::string("pss/") + col), dataset(dir + "/cpu.h5", std::string("pss/") + col))
        << col;
}

TEST(PssCliGpu, TileSubjectsFollowTheGpuOccupancy) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  // Plain sequences (no PSSM) run in sequence mode: its packed kernel's occupancy.
  const DeviceCapacity cap = PssCudaScorer(0, load_matrix("BLOSUM62"), {11, 1}).capacity();
  EXPECT_GT(cap.compute_units, 1);
  EXPECT_GE(cap.resident_per_unit, 128);
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  const std::string dir = test::temp_dir();
  write_fasta(dir + "/q.fa", db, 0, 1);
  write_fasta(dir + "/s.fa", db, 0, 600);
  const uint32_t n = 1000;
  run_pss("cuda", "-q " + dir + "/q.fa -s " + dir + "/s.fa --permutations 1000 --quiet", dir + "/gpu.h5");
  // With several GPUs the plan takes the smallest; device 0 stands for all of them here.
  if (cuda_device_count() == 1)
    EXPECT_EQ(uint64_t(int_attribute(dir + "/gpu.h5", "tile_subjects")), pss_tile_subjects(cap.concurrent(), n));
}

TEST(PssCliGpu, ScorerLaunchesOfMixedPairsMatchTheCpuEngine) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  SequenceSet queries, subjects;
  for (size_t i : {5u, 6u, 900u}) queries.add(db.ids[i], db.view(i).data, db.length(i));
  for (size_t i = 200; i < 207; ++i) subjects.add(db.ids[i], db.view(i).data, db.length(i));
  PssParams p;
  p.matrix = load_matrix("BLOSUM62");
  p.permutations = 100;
  p.keep_scores = true;
  PssCpuEngine cpu(p, queries, subjects);
  PssCudaScorer gpu(0);
  std::vector<SeqView> views;
  std::vector<uint32_t> indices;
  for (uint32_t s = 2; s < 7; ++s) views.push_back(subjects.view(s)), indices.push_back(s);
  gpu.load_subjects(views, indices, p.seed, p.permutations);
  std::vector<QueryProfile> profiles;
  for (uint32_t q = 0; q < 3; ++q) profiles.push_back(QueryProfile::from_matrix(queries.view(q), p.matrix));
  gpu.set_queries(profiles);
  // Two launches, pairs in no particular order: each pair's scores stand on their own.
  const std::vector<std::vector<PssPairJob>> launches = {{{2, 4}, {0, 0}, {1, 3}}, {{0, 4}, {2, 0}, {1, 1}, {1, 2}}};
  for (const auto& jobs : launches) {
    gpu.launch(jobs, p.gaps);
    const std::vector<int32_t> scores = gpu.wait();
    ASSERT_EQ(scores.size(), jobs.size() * 101);
    for (size_t k = 0; k < jobs.size(); ++k) {
      const PssPairResult want = cpu.run({jobs[k].query}, indices[jobs[k].subject])[0];
      const std::vector<int32_t> got(scores.begin() + k * 101, scores.begin() + k * 101 + 100);
      EXPECT_EQ(got, want.permuted_scores) << "pair " << k;
      EXPECT_EQ(scores[k * 101 + 100], want.score) << "pair " << k;
    }
  }
  EXPECT_GT(gpu.kernel_seconds(), 0.0);
}

// Sequence mode (the packed 16-bit kernel): every query against every subject, the CPU's
// exact scores, including a real score past the 16-bit lanes (an 8,000-aa self match,
// rescored in 32-bit) next to permuted scores that stay packed.
TEST(PssCliGpu, SequenceModeMatchesTheCpuEngineIncludingOverflow) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  SequenceSet queries, subjects;
  std::vector<uint8_t> longseq;
  for (size_t i = 0; longseq.size() < 8000; ++i) longseq.insert(longseq.end(), db.view(i).data, db.view(i).data + db.length(i));
  for (size_t i : {5u, 6u, 900u}) queries.add(db.ids[i], db.view(i).data, db.length(i));
  queries.add("long", longseq.data(), uint32_t(longseq.size()));
  for (size_t i = 200; i < 206; ++i) subjects.add(db.ids[i], db.view(i).data, db.length(i));
  subjects.add("long", longseq.data(), uint32_t(longseq.size()));
  PssParams p;
  p.matrix = load_matrix("BLOSUM62");
  p.permutations = 60;
  p.keep_scores = true;
  PssCpuEngine cpu(p, queries, subjects);
  PssCudaScorer gpu(0, p.matrix, p.gaps);
  EXPECT_GE(gpu.capacity().resident_per_unit, 256);  // two copies per thread
  std::vector<SeqView> views, qviews;
  std::vector<uint32_t> indices;
  for (uint32_t s = 0; s < subjects.size(); ++s) views.push_back(subjects.view(s)), indices.push_back(s);
  gpu.load_subjects(views, indices, p.seed, p.permutations);
  EXPECT_THROW(gpu.launch({{0, 0}}, p.gaps), Error);  // profile-mode call on a sequence-mode scorer
  // Two launches (queries 1..3, then 0): each query's scores stand on their own.
  for (const std::vector<uint32_t>& group : {std::vector<uint32_t>{1, 2, 3}, std::vector<uint32_t>{0}}) {
    qviews.clear();
    for (uint32_t q : group) qviews.push_back(queries.view(q));
    gpu.launch_queries(qviews);
    const std::vector<int32_t> scores = gpu.wait();
    const size_t per = p.permutations + 1;
    ASSERT_EQ(scores.size(), group.size() * subjects.size() * per);
    for (size_t k = 0; k < group.size(); ++k)
      for (uint32_t s = 0; s < subjects.size(); ++s) {
        const PssPairResult want = cpu.run({group[k]}, s)[0];
        const size_t at = (k * subjects.size() + s) * per;
        const std::vector<int32_t> got(scores.begin() + at, scores.begin() + at + p.permutations);
        EXPECT_EQ(got, want.permuted_scores) << "query " << group[k] << " subject " << s;
        EXPECT_EQ(scores[at + p.permutations], want.score) << "query " << group[k] << " subject " << s;
        if (group[k] == 3 && s == 6) EXPECT_GT(want.score, 32767);  // the overflow case is real
      }
  }
  EXPECT_GT(gpu.kernel_seconds(), 0.0);
}
