// src/core/cpu_budget: the CPU count comes from the job's allocation (affinity mask, cgroup
// quota, OMP_NUM_THREADS), not from the machine; src/core/on_all_cores splits work over them.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "src/core/cpu_budget.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"
#include "src/core/chunk_pool.hpp"

namespace hpc {
namespace {

TEST(CpuBudget, ParsesCgroupCpuMax) {
  EXPECT_EQ(parse_cpu_max("max 100000\n"), std::nullopt);
  EXPECT_EQ(parse_cpu_max("200000 100000\n"), 2);
  EXPECT_EQ(parse_cpu_max("150000 100000"), 2);  // 1.5 CPUs: rounded up
  EXPECT_EQ(parse_cpu_max("5000 100000"), 1);    // a twentieth: still one thread
  EXPECT_THROW(parse_cpu_max(""), Error);
  EXPECT_THROW(parse_cpu_max("lots 100000"), Error);
  EXPECT_THROW(parse_cpu_max("200000 0"), Error);
  EXPECT_THROW(parse_cpu_max("200000"), Error);
}

TEST(CpuBudget, ParsesOmpNumThreads) {
  EXPECT_EQ(parse_omp_num_threads(nullptr), std::nullopt);
  EXPECT_EQ(parse_omp_num_threads(""), std::nullopt);
  EXPECT_EQ(parse_omp_num_threads("6"), 6);
  EXPECT_EQ(parse_omp_num_threads("8,2"), 8);  // nested levels: the outer one
  EXPECT_THROW(parse_omp_num_threads("0"), Error);
  EXPECT_THROW(parse_omp_num_threads("-3"), Error);
  EXPECT_THROW(parse_omp_num_threads("four"), Error);
  EXPECT_THROW(parse_omp_num_threads("4x"), Error);
}

TEST(CpuBudget, PrecedenceOmpThenTightestLimitThenHardware) {
  const auto check = [](CpuBudget b, int cpus, const char* source) {
    EXPECT_EQ(b.cpus, cpus);
    EXPECT_EQ(b.source, source);
  };
  check(choose_cpu_budget(3, 8, 2, 64), 3, "OMP_NUM_THREADS");
  check(choose_cpu_budget(std::nullopt, 8, 2, 64), 2, "cgroup cpu.max");
  check(choose_cpu_budget(std::nullopt, 8, 16, 64), 8, "affinity mask");
  check(choose_cpu_budget(std::nullopt, 8, std::nullopt, 64), 8, "affinity mask");
  check(choose_cpu_budget(std::nullopt, 0, 4, 64), 4, "cgroup cpu.max");
  check(choose_cpu_budget(std::nullopt, 0, std::nullopt, 64), 64, "hardware");
  check(choose_cpu_budget(std::nullopt, 0, std::nullopt, 0), 1, "hardware");
}

// This thread: narrowing its affinity mask to one CPU narrows the budget to one;
// OMP_NUM_THREADS then overrides the mask.
TEST(CpuBudget, FollowsTheAffinityMaskAndOmpNumThreads) {
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const std::string omp_saved = omp ? omp : "";
  unsetenv("OMP_NUM_THREADS");
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  EXPECT_LE(usable_cpus().cpus, CPU_COUNT(&saved));
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) {
      CPU_SET(c, &one);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const CpuBudget narrowed = usable_cpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(narrowed.cpus, 1);
  setenv("OMP_NUM_THREADS", "5", 1);
  const CpuBudget from_env = usable_cpus();
  if (omp_saved.empty())
    unsetenv("OMP_NUM_THREADS");
  else
    setenv("OMP_NUM_THREADS", omp_saved.c_str(), 1);
  EXPECT_EQ(from_env.cpus, 5);
  EXPECT_EQ(from_env.source, "OMP_NUM_THREADS");
}

}  // namespace
}  // namespace hpc

// run_parts carries a part's exception to its caller once every part has ended (one escaping
// a thread would end the process), the lowest failed part's when several fail.
TEST(OnAllCores, RunPartsRethrowsTheLowestFailedPartAfterAllEnded) {
  std::vector<int> ran(6, 0);
  try {
    hpc::run_parts(ran.size(), [&](size_t k) {
      ran[k] = 1;
      if (k == 2 || k == 4) throw std::runtime_error("part " + std::to_string(k));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "part 2");
  }
  EXPECT_EQ(ran, std::vector<int>(6, 1));
}

TEST(OnAllCores, RunRangesCoversEveryIndexOnce) {
  std::vector<int> seen(1001, 0);
  hpc::run_ranges(seen.size(), 7, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) ++seen[i];
  });
  EXPECT_EQ(seen, std::vector<int>(1001, 1));
}

// A pool's rounds run every part once, whatever the parts against its threads, round after
// round, and carry the lowest failed part's exception to the caller once all have ended.
TEST(ChunkPool, RunsEveryItemOnceALoopAndRethrowsTheLowestFailedChunk) {
  for (size_t width : {1, 3, 16}) {
    hpc::ChunkPool pool(width);
    for (size_t n : {0, 1, 2, 5, 17, 1000}) {
      for (int round = 0; round < 20; ++round) {
        std::vector<std::atomic<int>> ran(n);
        std::atomic<size_t> calls{0};
        pool.run(n, [&](size_t begin, size_t end) {
          ASSERT_LT(begin, end);
          ASSERT_LE(end, n);
          ++calls;
          for (size_t k = begin; k < end; ++k) ++ran[k];
        });
        for (size_t k = 0; k < n; ++k) ASSERT_EQ(ran[k].load(), 1) << width << " threads, item " << k << " of " << n;
        // Small chunks: a thread the host runs late holds at most one of them.
        if (n >= 4 * width) EXPECT_GE(calls.load(), 4 * width);
      }
    }
    // Items 30 and 70 fail: the chunk holding 30 comes first, whichever thread ran it.
    std::vector<std::atomic<int>> ran(100);
    try {
      pool.run(ran.size(), [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) {
          ++ran[k];
          if (k == 30 || k == 70) throw std::runtime_error("item " + std::to_string(k));
        }
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 30");
    }
    EXPECT_EQ(ran[30].load(), 1);
    EXPECT_EQ(ran[70].load(), 1);
    EXPECT_EQ(ran[99].load(), 1);  // the other chunks still ran
    int after = 0;  // the pool still runs loops after a failed one
    pool.run(1, [&](size_t, size_t) { ++after; });
    EXPECT_EQ(after, 1);
  }
}

TEST(ChunkPool, RunPartsRunsEveryPartOnceARoundAndRethrowsTheLowestFailedPart) {
  for (size_t width : {1, 3, 8}) {
    hpc::ChunkPool pool(width);
    for (size_t parts : {0, 1, 2, 5, 17}) {
      for (int round = 0; round < 20; ++round) {
        std::vector<int> ran(parts, 0);
        pool.run_parts(parts, [&](size_t k) { ++ran[k]; });
        EXPECT_EQ(ran, std::vector<int>(parts, 1)) << width << " threads, " << parts << " parts";
      }
    }
    std::vector<int> ran(9, 0);
    try {
      pool.run_parts(ran.size(), [&](size_t k) {
        ran[k] = 1;
        if (k == 3 || k == 7) throw std::runtime_error("part " + std::to_string(k));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "part 3");
    }
    EXPECT_EQ(ran, std::vector<int>(9, 1));
    int after = 0;  // the pool still runs rounds after a failed one
    pool.run_parts(1, [&](size_t) { ++after; });
    EXPECT_EQ(after, 1);
  }
}

