#include "src/workloads/msv_tblout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

std::string number(const char* fmt, double v) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

const std::string& name_at(const std::vector<std::string>& names, uint32_t i, const char* what) {
  if (i >= names.size())
    throw Error(std::string("msv row refers to ") + what + " " + std::to_string(i) + " but the file lists " +
                std::to_string(names.size()));
  return names[i];
}

}  // namespace

void print_msv_tblout(const std::string& path, std::ostream& out, std::ostream& err) {
  if (!is_hdf5_file(path)) throw Error(path + ": not an HDF5 result file");
  h5::File f(path, h5::Mode::kReadOnly);
  if (!h5::has_attribute(f, "", "workload") || h5::read_string_attribute(f, "", "workload") != "msv")
    throw Error(path + ": --format tblout is for `hpcalign msv` result files");
  if (h5::read_string_attribute(f, "", "status") != "complete") err << "warning: " << path << " is from an unfinished run\n";
  const auto models = h5::read_all<std::string>(f, "models/name");
  const auto targets = h5::read_all<std::string>(f, "targets/id");
  const auto model = h5::read_all<uint32_t>(f, "msv/model");
  const auto target = h5::read_all<uint32_t>(f, "msv/target");
  const auto msv_bits = h5::read_all<float>(f, "msv/msv_bits");
  const auto msv_p = h5::read_all<double>(f, "msv/msv_pvalue");
  const auto bias_pass = h5::read_all<uint8_t>(f, "msv/bias_pass");
  const auto vit_bits = h5::read_all<float>(f, "msv/vit_bits");
  const auto vit_p = h5::read_all<double>(f, "msv/vit_pvalue");
  const auto passed = h5::read_all<uint8_t>(f, "msv/passed");
  const size_t n = model.size();
  for (size_t len : {target.size(), msv_bits.size(), msv_p.size(), bias_pass.size(), vit_bits.size(), vit_p.size(),
                     passed.size()})
    if (len != n) throw Error(path + ": the /msv columns have different lengths");
  // A finished run is already in this order; an unfinished one is in tile completion order.
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return model[a] != model[b] ? model[a] < model[b] : target[a] < target[b];
  });
  char line[512];
  std::snprintf(line, sizeof line, "#%-29s %-20s %9s %9s %4s %9s %9s %6s\n", " target name", "query name", "msv bits",
                "msv P", "bias", "vit bits", "vit P", "passed");
  out << line;
  for (size_t i : order) {
    std::snprintf(line, sizeof line, "%-30s %-20s %9s %9s %4s %9s %9s %6s\n",
                  name_at(targets, target[i], "target").c_str(), name_at(models, model[i], "model").c_str(),
                  number("%.1f", msv_bits[i]).c_str(), number("%.2g", msv_p[i]).c_str(), bias_pass[i] ? "yes" : "no",
                  number("%.1f", vit_bits[i]).c_str(), number("%.2g", vit_p[i]).c_str(), passed[i] ? "yes" : "no");
    out << line;
  }
}

}  // namespace hpc
