#include "src/core/cpu_budget.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "src/core/error.hpp"

namespace hpc {
namespace {

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;  // more CPUs than cpu_set_t holds: unknown
  return CPU_COUNT(&set);
}

// The tightest cpu.max quota from this process's cgroup (/proc/self/cgroup's "0::/path")
// up to the root: a parent's quota limits its children too.
std::optional<int> cgroup_quota() {
  std::ifstream self("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  std::optional<int> tightest;
  for (std::string dir = path;; dir = dir.substr(0, dir.rfind('/'))) {
    std::ifstream f("/sys/fs/cgroup" + dir + "/cpu.max");
    std::stringstream text;
    if (f && text << f.rdbuf()) {
      const std::optional<int> q = parse_cpu_max(text.str());
      if (q && (!tightest || *q < *tightest)) tightest = q;
    }
    if (dir.empty() || dir == "/") break;
  }
  return tightest;
}

}  // namespace

std::optional<int> parse_omp_num_threads(const char* value) {
  if (!value || !*value) return std::nullopt;
  const std::string first = std::string(value).substr(0, std::string(value).find(','));
  char* end = nullptr;
  const long n = std::strtol(first.c_str(), &end, 10);
  if (first.empty() || *end != '\0' || n < 1 || n > 1 << 20)
    throw Error(std::string("OMP_NUM_THREADS='") + value + "' is not a positive thread count");
  return int(n);
}

std::optional<int> parse_cpu_max(const std::string& text) {
  std::istringstream in(text);
  std::string quota;
  long long period = 0;
  if (!(in >> quota)) throw Error("cgroup cpu.max is empty");
  if (quota == "max") return std::nullopt;
  char* end = nullptr;
  const long long q = std::strtoll(quota.c_str(), &end, 10);
  if (*end != '\0' || q < 1 || !(in >> period) || period < 1)
    throw Error("cgroup cpu.max '" + text + "' is not 'max' or 'quota period'");
  return int(std::max<long long>(1, (q + period - 1) / period));
}

CpuBudget choose_cpu_budget(std::optional<int> omp, int affinity, std::optional<int> quota, int hardware) {
  if (omp) return {*omp, "OMP_NUM_THREADS"};
  if (quota && (affinity < 1 || *quota < affinity)) return {*quota, "cgroup cpu.max"};
  if (affinity > 0) return {affinity, "affinity mask"};
  return {std::max(1, hardware), "hardware"};
}

CpuBudget usable_cpus() {
  return choose_cpu_budget(parse_omp_num_threads(std::getenv("OMP_NUM_THREADS")), affinity_cpus(), cgroup_quota(),
                           int(std::thread::hardware_concurrency()));
}

}  // namespace hpc
