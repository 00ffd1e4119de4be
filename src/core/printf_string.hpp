#pragma once
// printf into a std::string: the reports that reproduce C programs' output (hmmsearch's)
// use their printf formats verbatim.
#include <string>

namespace hpc {

std::string printf_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace hpc
