#include "src/workloads/run_attributes.hpp"

#include <unistd.h>

namespace hpc {

void write_run_attributes(ResultFile& out, const std::string& workload, const std::string& command_line,
                          const std::string& backend, size_t workers) {
  out.set_attribute("workload", workload);
  out.set_attribute("command_line", command_line);
  out.set_attribute("backend", backend);
  out.set_attribute("workers", int64_t(workers));
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) out.set_attribute("host", std::string(host));
}

}  // namespace hpc
