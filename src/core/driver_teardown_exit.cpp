#include "src/core/driver_teardown_exit.hpp"

#include <dirent.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <iostream>
#include <vector>

namespace hpc {
namespace {

// This process's open descriptors, split into those naming a file under prefix and the others.
void list_descriptors(const std::string& prefix, std::vector<int>& driver, std::vector<int>& others) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return;
  const int own = dirfd(dir);
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    if (fd == own) continue;
    char target[PATH_MAX];
    const ssize_t n = readlink(("/proc/self/fd/" + std::string(e->d_name)).c_str(), target, sizeof target - 1);
    (n >= 0 && std::string(target, size_t(n)).compare(0, prefix.size(), prefix) == 0 ? driver : others).push_back(fd);
  }
  closedir(dir);
}

}  // namespace

void exit_leaving_driver_teardown(int status, const std::string& device_prefix) {
  std::vector<int> driver, others;
  list_descriptors(device_prefix, driver, others);
  if (driver.empty()) return;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) return;
  if (child == 0) {  // only async-signal-safe calls here: the parent has other threads
    for (int fd : others) close(fd);  // no pipe or output waits on this process
    const timespec tick = {0, 1000000};
    while (getppid() == parent) nanosleep(&tick, nullptr);
    _exit(0);
  }
  _exit(status);
}

}  // namespace hpc
