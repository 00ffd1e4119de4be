#pragma once
// Attributes every workload writes on '/' of its result file (README.md, "Result file").
#include <string>

#include "io/result_file.hpp"

namespace hpc {

void write_run_attributes(ResultFile& out, const std::string& workload, const std::string& command_line,
                          const std::string& backend, size_t workers);

}  // namespace hpc
