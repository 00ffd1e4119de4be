#pragma once
// `hpcalign --version`: what this binary is and how it was built, for bug reports and for
// checking that a cluster's module or container is the build one expects.
#include <ostream>

namespace hpc::cli {

void print_version(std::ostream& out);

}  // namespace hpc::cli
