#pragma once
// The CPUs this process may use: what the job was given, not what the machine has.
// Under Slurm (cgroup cpusets, srun's binding), taskset or numactl the affinity mask is
// smaller than the machine; a container may be limited by a CPU quota instead.
//
// Precedence (the first that applies):
//   1. OMP_NUM_THREADS, a positive integer (the first entry of a list such as "8,2"): the
//      user's explicit per-process choice, as an OpenMP program would take it;
//   2. the smaller of the affinity mask's CPU count (sched_getaffinity) and the cgroup v2
//      quota (cpu.max "quota period", rounded up; "max" is no limit) of this process's
//      cgroup and its parents;
//   3. std::thread::hardware_concurrency(), where neither can be read; at least 1.
// A command's --threads option overrides all of these.
#include <optional>
#include <string>

namespace hpc {

struct CpuBudget {
  int cpus = 1;
  std::string source;  // where the count came from: "OMP_NUM_THREADS", "affinity mask", "cgroup cpu.max", "hardware"
};

// Reads the environment, the affinity mask and the cgroup files on every call.
CpuBudget usable_cpus();

// The parts of usable_cpus(), separated so that tests can feed them.
// OMP_NUM_THREADS's value: nullopt when unset or empty; throws hpc::Error when malformed.
std::optional<int> parse_omp_num_threads(const char* value);
// A cgroup v2 cpu.max file's contents: the quota in CPUs (rounded up, at least 1), or
// nullopt for "max"; throws hpc::Error when malformed.
std::optional<int> parse_cpu_max(const std::string& text);
// Combines the parts by the precedence above; affinity 0 = unknown.
CpuBudget choose_cpu_budget(std::optional<int> omp, int affinity, std::optional<int> quota, int hardware);

}  // namespace hpc
