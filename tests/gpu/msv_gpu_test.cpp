// GPU twin of the HMMER MSV filter: bit-identical scores to the CPU twin on every
// (model, target) pair, the same pipeline results (bits, P, pass flags, Viterbi), overflow of
// the byte range on a long perfect match, and `hpcalign msv --backend cuda` writing the same
// file content as `--backend cpu`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>

#include "gpu/gpu_test_support.hpp"
#include "gpu/vit_test_support.hpp"
#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/alphabet.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/msv_cuda.hpp"
#include "kernels/cuda/vit_cuda.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "test_support.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {


bool same_float(float a, float b) { return test::float_bits(a) == test::float_bits(b) || (std::isnan(a) && std::isnan(b)); }
bool same_double(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Every pair of every model against `db`: GPU MSV scores and the pipeline after them equal the CPU's.
void expect_gpu_equals_cpu(const Database& db) {
  hmm::MsvCuda gpu(0, db);
  hmm::FilterWorkspace ws;
  const hmm::FilterSettings settings;
  for (const char* name : test::kFilterTestModels) {
    for (const HmmModel& model : read_hmm_file(data_path(std::string("hmm/") + name))) {
      const hmm::ModelFilters f(model);
      const std::vector<float> usc = gpu.scores(f.msv, 0, uint32_t(db.by_length.size()));
      ASSERT_EQ(usc.size(), db.by_length.size());
      long mismatches = 0, passed_msv = 0, overflowed = 0;
      for (size_t pos = 0; pos < usc.size(); ++pos) {
        const SeqView v = db.seqs.view(db.by_length[pos]);
        if (v.length == 0) continue;
        const float cpu = hmm::msv_filter_score(f.msv, v.data, int(v.length), ws);
        overflowed += std::isinf(cpu);
        if (!same_float(cpu, usc[pos])) {
          if (++mismatches <= 5)
            ADD_FAILURE() << model.name << " target " << db.seqs.ids[db.by_length[pos]] << " (L=" << v.length
                          << "): cpu " << cpu << " gpu " << usc[pos];
          continue;
        }
        const hmm::PairResult a = hmm::run_filters(f, v.data, int(v.length), settings, ws);
        const hmm::PairResult b = hmm::run_filters_after_msv(f, v.data, int(v.length), usc[pos], settings, ws);
        passed_msv += b.msv_pass;
        EXPECT_TRUE(same_float(a.msv_bits, b.msv_bits) && same_double(a.msv_pvalue, b.msv_pvalue) &&
                    a.msv_pass == b.msv_pass && a.bias_pass == b.bias_pass && same_float(a.vit_bits, b.vit_bits) &&
                    same_double(a.vit_pvalue, b.vit_pvalue) && a.passed == b.passed)
            << model.name << " target " << db.seqs.ids[db.by_length[pos]];
      }
      EXPECT_EQ(mismatches, 0) << model.name;
      std::printf("  %-16s M=%-4d targets %zu, past MSV %ld, overflowed %ld: identical\n", model.name.c_str(),
                  model.length, usc.size(), passed_msv, overflowed);
    }
  }
}

}  // namespace

TEST(MsvGpu, ScoresEqualCpuOnBalifam2000) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  expect_gpu_equals_cpu(load_database(data_path("balifam2000.fa")));
}

TEST(MsvGpu, ScoresEqualCpuOnDb2M) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  expect_gpu_equals_cpu(load_database(data_path("db2M.fa")));
}

// A long perfect match overflows the byte range (+infinity, "certainly passes"); partial
// matches of several strengths exercise the SSV fallback to the full MSV.
TEST(MsvGpu, OverflowAndFullMsvPathsEqualCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const HmmModel model = read_hmm_file(data_path("hmm/Pkinase.hmm")).at(0);
  const hmm::ModelFilters f(model);
  using Codes = std::vector<uint8_t>;
  Codes consensus;  // the cheapest standard residue at every node
  for (int k = 1; k <= f.msv.M; ++k) {
    uint8_t best = 0;
    for (uint8_t code = 1; code < 20; ++code)
      if (f.msv.row(code)[k] < f.msv.row(best)[k]) best = code;
    consensus.push_back(best);
  }
  SequenceSet seqs;
  auto add = [&](const std::string& id, const Codes& c) { seqs.add(id, c.data(), c.size()); };
  Codes repeated;
  for (int i = 0; i < 20; ++i) repeated.insert(repeated.end(), consensus.begin(), consensus.end());
  add("perfect_x20", repeated);
  add("perfect_x1", consensus);
  const uint8_t W = encode_residue('W'), P = encode_residue('P'), G = encode_residue('G');
  for (int stride : {2, 3, 4, 6, 10}) {  // every stride-th residue mutated: weaker and weaker matches
    Codes s = consensus;
    for (size_t i = 0; i < s.size(); i += size_t(stride)) s[i] = s[i] == W ? P : W;
    add("mutated_every_" + std::to_string(stride), s);
    Codes twice = s;
    twice.insert(twice.end(), 10, G);
    twice.insert(twice.end(), s.begin(), s.end());
    add("mutated_twice_" + std::to_string(stride), twice);
  }
  for (size_t n : {1, 5, 40, 120}) add("prefix_" + std::to_string(n), Codes(consensus.begin(), consensus.begin() + n));
  const Database db = make_database(std::move(seqs));
  hmm::MsvCuda gpu(0, db);
  const std::vector<float> usc = gpu.scores(f.msv, 0, uint32_t(db.by_length.size()));
  hmm::FilterWorkspace ws;
  bool saw_overflow = false;
  for (size_t pos = 0; pos < usc.size(); ++pos) {
    const SeqView v = db.seqs.view(db.by_length[pos]);
    const float cpu = hmm::msv_filter_score(f.msv, v.data, int(v.length), ws);
    EXPECT_TRUE(same_float(cpu, usc[pos])) << db.seqs.ids[db.by_length[pos]] << ": cpu " << cpu << " gpu " << usc[pos];
    if (db.seqs.ids[db.by_length[pos]] == "perfect_x20") {
      EXPECT_TRUE(std::isinf(usc[pos]) && usc[pos] > 0) << "a long perfect match must overflow";
      saw_overflow = true;
    }
  }
  EXPECT_TRUE(saw_overflow);
}

// Sub-ranges of the length order score the same as the whole range (launch offsets).
TEST(MsvGpu, PartitionsScoreLikeTheWholeDatabase) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Database db = load_database(data_path("balifam2000.fa"));
  const hmm::ModelFilters f(read_hmm_file(data_path("hmm/fn3.hmm")).at(0));
  hmm::MsvCuda gpu(0, db);
  const auto all = gpu.scores(f.msv, 0, uint32_t(db.by_length.size()));
  const auto part = gpu.scores(f.msv, 100, 777);
  ASSERT_EQ(part.size(), 677u);
  for (size_t i = 0; i < part.size(); ++i) EXPECT_TRUE(same_float(part[i], all[100 + i])) << i;
  EXPECT_GT(gpu.kernel_seconds(), 0.0);
}

// The workload: --backend cuda writes the same rows and pipeline counts as --backend cpu, with
// --all (every pair) and without (survivors only: the GPU worker skips the pairs below its
// MSV cut, which must never drop a pair that passes).
TEST(MsvGpu, CommandCudaEqualsCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::string dir = temp_dir();
  const std::string models = dir + "/models.hmm";
  int status = 0;
  for (const char* name : test::kFilterTestModels) {
    run_command("zcat -f " + data_path(std::string("hmm/") + name) + " >> " + models, &status);
    ASSERT_EQ(status, 0);
  }
  ASSERT_EQ(status, 0);
  for (const std::string rows : {" --all", ""}) {  // the second pass replaces the first's files (--force)
    SCOPED_TRACE(rows.empty() ? "survivors" : "--all");
    for (const char* backend : {"cpu", "cuda"}) {
      const std::string out = run_command(binary_path() + " msv -m " + models + " -d " + data_path("db2M.fa") +
                                              " -o " + dir + "/" + backend + ".h5 --force --quiet --backend " + backend + rows +
                                              " 2>&1",
                                          &status);
      ASSERT_EQ(status, 0) << out;
    }
    h5::File cpu(dir + "/cpu.h5", h5::Mode::kReadOnly), gpu(dir + "/cuda.h5", h5::Mode::kReadOnly);
    EXPECT_EQ(h5::read_string_attribute(gpu, "", "backend"), "cuda");
    EXPECT_GT(h5::read_all<uint64_t>(gpu, "msv/target").size(), 0u);
    for (const char* col : {"msv/model", "msv/target", "pipeline/past_msv", "pipeline/past_bias", "pipeline/past_vit"})
      EXPECT_EQ(h5::read_all<uint64_t>(cpu, col), h5::read_all<uint64_t>(gpu, col)) << col;
    for (const char* col : {"msv/msv_bits", "msv/vit_bits", "msv/msv_pvalue", "msv/vit_pvalue"}) {
      const auto a = h5::read_all<double>(cpu, col), b = h5::read_all<double>(gpu, col);
      ASSERT_EQ(a.size(), b.size()) << col;
      for (size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(same_double(a[i], b[i])) << col << " row " << i;
    }
    for (const char* col : {"msv/bias_pass", "msv/passed"})
      EXPECT_EQ(h5::read_all<int>(cpu, col), h5::read_all<int>(gpu, col)) << col;
  }
}

// Several models in one launch (the msv worker's tiles): each model's scores equal its own launch.
TEST(MsvGpu, ModelsSharingALaunchScoreLikeSeparateLaunches) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Database db = load_database(data_path("balifam2000.fa"));
  std::vector<hmm::ModelFilters> filters;
  for (const char* name : {"fn3.hmm", "Pkinase.hmm", "globins4.hmm", "LuxC.hmm.gz", "M1.hmm"})
    filters.emplace_back(read_hmm_file(data_path(std::string("hmm/") + name)).at(0));
  std::vector<const hmm::MsvProfile*> profiles;
  for (const auto& f : filters) profiles.push_back(&f.msv);
  hmm::MsvCuda gpu(0, db);
  const auto together = gpu.scores(profiles, 50, 1900);
  ASSERT_EQ(together.size(), profiles.size());
  for (size_t k = 0; k < profiles.size(); ++k) {
    const auto alone = gpu.scores(*profiles[k], 50, 1900);
    ASSERT_EQ(together[k].size(), alone.size());
    for (size_t i = 0; i < alone.size(); ++i) ASSERT_TRUE(same_float(together[k][i], alone[i])) << k << " " << i;
  }
}

namespace {

// Sets HPCALIGN_MSV_KERNEL (which SSV kernel msv_cuda.cu runs) for one scope.
struct KernelVariant : ScopedTunable {
  explicit KernelVariant(const char* v) : ScopedTunable(Tunable::kMsvKernel, v) {}
};

const char* kVariants[] = {"byte", "f16", "w16", "mix", "w8"};

}  // namespace

// Every SSV kernel (the byte kernel; the 16-bit kernel with fp16-and-byte, int16, mixed or
// signed-byte w profiles) equals the CPU on every test model and on spliced models up to 4,096 nodes, all
// in one call (the DPX kernel packs them into warps), against
// balifam2000 plus consensus runs (overflow, fallback to the full MSV after best >= T, growth
// past the threshold over 8,000 rows), single-residue runs and length-1 targets.
TEST(MsvGpu, EveryKernelVariantEqualsCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<hmm::MsvProfile> owned;
  for (const HmmModel& m : test::vit::test_models()) owned.push_back(hmm::build_msv_profile(m));
  const std::vector<HmmModel> parts = test::vit::splice_parts();
  for (int M : {65, 641, 2048, 4096})
    owned.push_back(hmm::build_msv_profile(test::vit::splice_models(parts, M)));
  std::vector<const hmm::MsvProfile*> profiles;
  for (const auto& p : owned) profiles.push_back(&p);
  const Database bali = load_database(data_path("balifam2000.fa"));
  SequenceSet seqs;
  for (size_t t = 0; t < bali.seqs.size(); ++t) {
    const SeqView v = bali.seqs.view(t);
    seqs.add(bali.seqs.ids[t], v.data, v.length);
  }
  for (const auto& p : owned) {  // the consensus of each model, once and as an 8,000-residue run
    std::vector<uint8_t> cons;
    for (int k = 1; k <= p.M; ++k) {
      uint8_t best = 0;
      for (uint8_t code = 1; code < 20; ++code)
        if (p.row(code)[k] < p.row(best)[k]) best = code;
      cons.push_back(best);
    }
    seqs.add("cons" + std::to_string(p.M), cons.data(), cons.size());
    std::vector<uint8_t> run;
    while (run.size() < 8000) run.insert(run.end(), cons.begin(), cons.end());
    seqs.add("run" + std::to_string(p.M), run.data(), 8000);
  }
  for (uint8_t code = 0; code < 24; ++code) {
    seqs.add("one" + std::to_string(code), &code, 1);
    const std::vector<uint8_t> same(3000, code);
    seqs.add("same" + std::to_string(code), same.data(), same.size());
  }
  const Database db = make_database(std::move(seqs));
  const uint32_t n = uint32_t(db.by_length.size());
  hmm::FilterWorkspace ws;
  std::vector<std::vector<float>> cpu(profiles.size(), std::vector<float>(n));
  for (size_t k = 0; k < profiles.size(); ++k)
    for (uint32_t i = 0; i < n; ++i) {
      const SeqView v = db.seqs.view(db.by_length[i]);
      cpu[k][i] = hmm::msv_filter_score(*profiles[k], v.data, int(v.length), ws);
    }
  for (const char* variant : kVariants) {
    KernelVariant kv(variant);
    hmm::MsvCuda gpu(0, db);
    const auto got = gpu.scores(profiles, 0, n);
    long bad = 0, inf = 0;
    for (size_t k = 0; k < profiles.size(); ++k)
      for (uint32_t i = 0; i < n; ++i) {
        inf += std::isinf(cpu[k][i]);
        if (!same_float(cpu[k][i], got[k][i]) && ++bad <= 5)
          ADD_FAILURE() << variant << ": M=" << profiles[k]->M << " target " << db.seqs.ids[db.by_length[i]]
                        << ": cpu " << cpu[k][i] << " gpu " << got[k][i];
      }
    EXPECT_EQ(bad, 0) << variant;
    std::printf("  %-4s kernel: %zu models x %u targets identical to the CPU (%ld +inf), kernel %.3f ms\n", variant,
                profiles.size(), n, inf, gpu.kernel_seconds() * 1e3);
  }
}

// A/B of the SSV kernels on a larger database (db2M x 16, ~32 M residues) with the protein test
// models in one call: identical scores, and the cells per second of each (sum of M x residues /
// kernel time; best of 3 calls after a warm-up).
TEST(MsvGpu, KernelVariantsThroughput) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<hmm::MsvProfile> owned;
  for (const HmmModel& m : test::vit::test_models()) owned.push_back(hmm::build_msv_profile(m));
  std::vector<const hmm::MsvProfile*> profiles;
  double nodes = 0;
  for (const auto& p : owned) profiles.push_back(&p), nodes += p.M;
  const Database small = load_database(data_path("db2M.fa"));
  SequenceSet seqs;
  for (int copy = 0; copy < 16; ++copy)
    for (size_t t = 0; t < small.seqs.size(); ++t) {
      const SeqView v = small.seqs.view(t);
      seqs.add(small.seqs.ids[t] + "_" + std::to_string(copy), v.data, v.length);
    }
  const double residues = double(seqs.total_residues());
  const Database db = make_database(std::move(seqs));
  const uint32_t n = uint32_t(db.by_length.size());
  std::vector<std::vector<float>> first;
  for (const char* variant : kVariants) {
    KernelVariant kv(variant);
    hmm::MsvCuda gpu(0, db);
    auto got = gpu.scores(profiles, 0, n);  // warm-up
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      const double before = gpu.kernel_seconds();
      got = gpu.scores(profiles, 0, n);
      best = std::min(best, gpu.kernel_seconds() - before);
    }
    std::printf("  %-4s kernel: %.0f nodes x %.0f residues in %.3f ms = %.2f TCUPS\n", variant, nodes, residues,
                best * 1e3, nodes * residues / best / 1e12);
    if (first.empty()) {
      first = std::move(got);
      continue;
    }
    for (size_t k = 0; k < profiles.size(); ++k)
      for (uint32_t i = 0; i < n; ++i)
        ASSERT_TRUE(same_float(first[k][i], got[k][i])) << variant << " " << k << " " << i;
  }
}

namespace {
// balifam2000 with U, O, J (and other letters) in every third sequence, read under HMMER's rules.
Database hmmer_letters_database() {
  std::ifstream in(data_path("balifam2000.fa"));
  std::string text, line;
  for (size_t n = 0; std::getline(in, line);) {
    if (!line.empty() && line[0] != '>' && ++n % 3 == 0)
      for (size_t i = 5; i < line.size(); i += 17) line[i] = "UOJuoj*~B"[(n + i) % 9];
    text += line + "\n";
  }
  return make_database(parse_fasta_text(text.data(), text.size(), "rich.fa", nullptr, ResidueRules::kHmmer));
}
}  // namespace

// The engine cuts by the kernels' codes (msv_engine_cuda.cpp): codes() must give each pair the
// score scores() gives it (CPU-twin targets and overflows marked), and at every target length a
// code's score, and so whether it passes the MSV filter, must never fall as the code rises.
TEST(MsvGpu, CodesGiveTheScoresAndPassingRisesWithTheCode) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Database db = hmmer_letters_database();
  std::vector<hmm::ModelFilters> filters;
  for (const char* name : test::kFilterTestModels)
    for (const HmmModel& model : read_hmm_file(data_path(std::string("hmm/") + name))) filters.emplace_back(model);
  std::vector<const hmm::MsvProfile*> profiles;
  for (const hmm::ModelFilters& f : filters) profiles.push_back(&f.msv);
  const uint32_t n = uint32_t(db.by_length.size());
  hmm::MsvCuda gpu(0, db);
  std::vector<float> via_codes;
  size_t on_host = 0, overflowed = 0;
  {
    const hmm::MsvCodes& c = gpu.codes(profiles, 0, n);
    ASSERT_EQ(c.targets, n);
    for (size_t k = 0; k < profiles.size(); ++k)
      for (uint32_t i = 0; i < n; ++i) {
        const int32_t code = c.code[k * n + i];
        ASSERT_TRUE(code == hmm::MsvCodes::kOverflow || code == hmm::MsvCodes::kOnHost || (code >= 0 && code < 256))
            << code;
        on_host += code == hmm::MsvCodes::kOnHost, overflowed += code == hmm::MsvCodes::kOverflow;
        via_codes.push_back(c.nats(*profiles[k], k, i));
      }
  }
  EXPECT_GT(on_host, 1000u);
  const std::vector<std::vector<float>> scores = gpu.scores(profiles, 0, n);
  long mismatches = 0;
  for (size_t k = 0; k < profiles.size(); ++k)
    for (uint32_t i = 0; i < n; ++i) mismatches += !same_float(via_codes[k * n + i], scores[k][i]);
  EXPECT_EQ(mismatches, 0);
  const hmm::FilterSettings settings;
  std::vector<int> lengths;
  for (uint32_t p = 0; p < n; ++p) lengths.push_back(int(db.seqs.length(db.by_length[p])));
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  size_t passing_codes = 0;
  for (const hmm::ModelFilters& f : filters)
    for (int L : lengths) {
      float last = -INFINITY;
      bool passed = false;
      for (int code = 0; code < 256; ++code) {
        const float nats = hmm::MsvCuda::nats(f.msv, code, L);
        const bool passes = hmm::msv_filter_passes(f, L, nats, settings);
        ASSERT_GE(nats, last) << f.name << " L=" << L << " code " << code;
        ASSERT_TRUE(passes || !passed) << f.name << " L=" << L << " code " << code;
        last = nats, passed = passes, passing_codes += passes;
      }
    }
  EXPECT_GT(passing_codes, 0u);
  std::printf("  %zu models x %u targets: %zu pairs scored on the host, %zu overflowed; %zu lengths\n",
              profiles.size(), n, on_host, overflowed, lengths.size());
}

// msv reads targets under HMMER's rules: U, O and J have codes past the kernels' 24 rows, so
// those targets are scored by the CPU twin inside MsvCuda and VitCuda, and the others on the
// GPU, in one call: every score equals the CPU's.
TEST(MsvGpu, TargetsWithHmmerOnlyLettersEqualCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Database db = hmmer_letters_database();
  size_t special = 0;
  for (uint8_t c : db.seqs.residues) special += c >= kAlphabetSize;
  ASSERT_GT(special, 1000u);
  expect_gpu_equals_cpu(db);
  hmm::VitCuda vit(0, db);
  hmm::FilterWorkspace ws;
  std::vector<uint32_t> positions(db.by_length.size());
  std::iota(positions.begin(), positions.end(), 0u);
  for (const char* name : {"globins4.hmm", "Pkinase.hmm"}) {
    const hmm::ModelFilters f(read_hmm_file(data_path(std::string("hmm/") + name)).at(0));
    const std::vector<float> gpu = vit.scores(f.vit, positions);
    ASSERT_EQ(gpu.size(), positions.size());
    long mismatches = 0;
    for (size_t p = 0; p < positions.size(); ++p) {
      const SeqView v = db.seqs.view(db.by_length[p]);
      mismatches += !same_float(gpu[p], hmm::viterbi_filter_score(f.vit, v.data, int(v.length), ws));
    }
    EXPECT_EQ(mismatches, 0) << name;
  }
}
