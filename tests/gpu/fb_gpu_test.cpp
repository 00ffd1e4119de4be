// The CUDA parser engine (kernels/cuda/fb_engine_cuda.cu) against its CPU twin
// (kernels/cpu/fb_engine_cpu.cpp, itself equal to HMMER's SSE parsers: FbParserLanes.*):
// Forward scores and both passes' special rows, bit for bit, over random and real models,
// several models per call, long and rescaling-heavy targets. Also the parser's throughput.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "fb_test_support.hpp"
#include "gpu/gpu_test_support.hpp"
#include "kernels/hmm_fb_engine.hpp"

using namespace hpc;
using namespace hpc::hmm;
using namespace hpc::test;

namespace {

struct Batch {
  std::vector<FbLaneProfile> models;
  std::vector<int> lengths;
  std::vector<std::vector<uint8_t>> targets;
  std::vector<FbJob> jobs;
};

// Every model with its own targets, the jobs of all models interleaved (one call).
Batch make_batch(std::mt19937& rng, const std::vector<HmmModel>& models, int n_random) {
  Batch b;
  std::vector<uint32_t> owner;
  for (size_t m = 0; m < models.size(); ++m) {
    b.models.push_back(lane_profile(build_fb_profile(models[m])));
    b.lengths.push_back(models[m].length);
    for (auto& t : fb_targets(rng, models[m], n_random, m % 3 == 0)) b.targets.push_back(std::move(t)), owner.push_back(uint32_t(m));
  }
  std::vector<size_t> order(b.targets.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t i : order) b.jobs.push_back(FbJob{owner[i], SeqView{b.targets[i].data(), uint32_t(b.targets[i].size())}});
  return b;
}

void compare_engines(const Batch& b) {
  const auto cpu = make_fb_engine(BackendKind::Cpu, 0, &b.models);
  const auto gpu = make_fb_engine(BackendKind::Cuda, 0, &b.models);
  const std::vector<float> fc = cpu->forward(b.jobs), fg = gpu->forward(b.jobs);
  ASSERT_EQ(fc.size(), fg.size());
  for (size_t j = 0; j < fc.size(); ++j)
    ASSERT_EQ(float_bits(fc[j]), float_bits(fg[j])) << "job " << j << ": " << fc[j] << " vs " << fg[j];
  // The Forward filter with a threshold that keeps about half the jobs, then the parsers.
  std::vector<float> sorted = fc;
  std::sort(sorted.begin(), sorted.end());
  const float cut = sorted[sorted.size() / 2];
  const auto keep = [&](size_t, float nats) { return nats >= cut; };
  const std::vector<FbParse> pc = cpu->filter_and_parse(b.jobs, keep), pg = gpu->filter_and_parse(b.jobs, keep);
  size_t parsed = 0, own = 0;
  for (size_t j = 0; j < pc.size(); ++j) {
    ASSERT_EQ(parse_difference(pc[j], pg[j]), "") << "job " << j << " (model " << b.jobs[j].model << ", L "
                                                  << b.jobs[j].target.length << ")";
    parsed += pc[j].has_backward, own += pc[j].bck_own_scales;
  }
  std::cout << b.jobs.size() << " jobs over " << b.models.size() << " models, " << parsed
            << " through Backward (" << own << " with Backward's own scales): identical\n";
  EXPECT_GT(parsed, b.jobs.size() / 3);
}

}  // namespace

TEST(FbGpu, RandomModelsEqualTheCpuTwin) {
  REQUIRE_GPU();
  std::mt19937 rng(99);
  std::vector<HmmModel> models;
  for (int i = 0; i < 24; ++i)
    models.push_back(random_hmm(rng, i < 4 ? i + 1 : std::uniform_int_distribution<int>(5, 700)(rng),
                                i % 3 == 0 ? 0.95 : i % 3 == 1 ? 0.5 : 0.0));
  compare_engines(make_batch(rng, models, 12));
}

TEST(FbGpu, DataModelsEqualTheCpuTwin) {
  REQUIRE_GPU();
  std::mt19937 rng(5);
  compare_engines(make_batch(rng, data_models(), 20));
}

TEST(FbGpu, ParserThroughput) {
  REQUIRE_GPU();
  std::mt19937 rng(3);
  const std::vector<HmmModel> all = data_models();
  for (const HmmModel& model : all) {
    if (model.name != "Pkinase" && model.name != "fn3" && model.name != "globins4") continue;
    const std::vector<FbLaneProfile> models{lane_profile(build_fb_profile(model))};
    std::vector<std::vector<uint8_t>> targets;
    std::vector<FbJob> jobs;
    for (int i = 0; i < 20000; ++i) targets.push_back(random_seq(rng, size_t(std::uniform_int_distribution<int>(100, 600)(rng))));
    double cells = 0;
    for (const auto& t : targets) jobs.push_back(FbJob{0, SeqView{t.data(), uint32_t(t.size())}}), cells += double(t.size()) * model.length;
    const auto gpu = make_fb_engine(BackendKind::Cuda, 0, &models);
    gpu->forward({jobs.begin(), jobs.begin() + 64});  // warm-up
    auto t0 = std::chrono::steady_clock::now();
    const std::vector<float> f = gpu->forward(jobs);
    const double fs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
    const std::vector<FbParse> p = gpu->parse({jobs.begin(), jobs.begin() + 5000});
    const double ps = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(p.size(), 5000u);
    double pcells = 0;
    for (size_t j = 0; j < 5000; ++j) pcells += double(jobs[j].target.length) * model.length;
    // The CPU twin on a sample, for scale.
    const auto cpu = make_fb_engine(BackendKind::Cpu, 0, &models);
    t0 = std::chrono::steady_clock::now();
    const std::vector<float> fc = cpu->forward({jobs.begin(), jobs.begin() + 500});
    const double cs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double ccells = 0;
    for (size_t j = 0; j < 500; ++j) ccells += double(jobs[j].target.length) * model.length;
    for (size_t j = 0; j < fc.size(); ++j) ASSERT_EQ(float_bits(fc[j]), float_bits(f[j]));
    std::cout << model.name << " (M " << model.length << "): Forward parser " << jobs.size() / fs << " pairs/s, "
              << cells / fs * 1e-9 << " GCUPS; Forward+Backward with rows " << 5000 / ps << " pairs/s, "
              << 2 * pcells / ps * 1e-9 << " GCUPS; CPU lane twin (1 thread) " << ccells / cs * 1e-9 << " GCUPS\n";
  }
}
