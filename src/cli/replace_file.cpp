#include "src/cli/replace_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "src/core/error.hpp"

namespace hpc::cli {

void write_then_rename(const std::string& path, const std::function<void(const std::string& tmp)>& write) {
  // Beside the target (same file system, so rename is atomic); the pid keeps concurrent runs apart.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  if (::access(tmp.c_str(), F_OK) == 0)
    throw Error("the temporary name " + tmp + " for " + path + " exists; refusing to write over it");
  try {
    write(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error("cannot rename " + tmp + " to " + path + ": " + why);
  }
}

}  // namespace hpc::cli
