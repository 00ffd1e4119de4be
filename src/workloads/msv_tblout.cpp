#include "src/workloads/msv_tblout.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <ostream>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/error.hpp"
#include "src/report/fasta_descriptions.hpp"

namespace hpc {
namespace {

const std::string& name_at(const std::vector<std::string>& names, uint32_t i, const char* what) {
  if (i >= names.size())
    throw Error(std::string("msv row refers to ") + what + " " + std::to_string(i) + " but the file lists " +
                std::to_string(names.size()));
  return names[i];
}

struct MsvRows {
  std::vector<std::string> models, targets;
  std::vector<uint32_t> model, target;
  std::vector<float> msv_bits, vit_bits;
  std::vector<double> msv_p, vit_p;
  std::vector<uint8_t> bias_pass, passed;
  std::string status, stages, model_file, database, command_line;
  int64_t db_sequences = 0;
  size_t size() const { return model.size(); }
};

MsvRows read_msv(const std::string& path, std::ostream& err) {
  if (!is_hdf5_file(path)) throw Error(path + ": not an HDF5 result file");
  h5::File f(path, h5::Mode::kReadOnly);
  if (!h5::has_attribute(f, "", "workload") || h5::read_string_attribute(f, "", "workload") != "msv")
    throw Error(path + ": --format tblout is for `hpcalign msv` result files");
  MsvRows r;
  r.status = h5::read_string_attribute(f, "", "status");
  if (r.status != "complete") err << "warning: " << path << " is from an unfinished run\n";
  r.stages = h5::read_string_attribute(f, "", "stages");
  r.model_file = h5::read_string_attribute(f, "", "model_file");
  r.database = h5::read_string_attribute(f, "", "database");
  r.command_line = h5::read_string_attribute(f, "", "command_line");
  r.db_sequences = h5::read_int_attribute(f, "", "db_sequences");
  r.models = h5::read_all<std::string>(f, "models/name");
  r.targets = h5::read_all<std::string>(f, "targets/id");
  r.model = h5::read_all<uint32_t>(f, "msv/model");
  r.target = h5::read_all<uint32_t>(f, "msv/target");
  r.msv_bits = h5::read_all<float>(f, "msv/msv_bits");
  r.msv_p = h5::read_all<double>(f, "msv/msv_pvalue");
  r.bias_pass = h5::read_all<uint8_t>(f, "msv/bias_pass");
  r.vit_bits = h5::read_all<float>(f, "msv/vit_bits");
  r.vit_p = h5::read_all<double>(f, "msv/vit_pvalue");
  r.passed = h5::read_all<uint8_t>(f, "msv/passed");
  for (size_t len : {r.target.size(), r.msv_bits.size(), r.msv_p.size(), r.bias_pass.size(), r.vit_bits.size(),
                     r.vit_p.size(), r.passed.size()})
    if (len != r.size()) throw Error(path + ": the /msv columns have different lengths");
  return r;
}

// Model accessions from the model file, checked against the stored names.
std::vector<std::string> model_accessions(const MsvRows& r, const std::string& model_path) {
  const std::vector<HmmModel> models = read_hmm_file(model_path);
  if (models.size() != r.models.size())
    throw Error(model_path + " holds " + std::to_string(models.size()) + " models, the run searched " +
                std::to_string(r.models.size()) + "; pass the run's model file with -m");
  std::vector<std::string> acc;
  for (size_t i = 0; i < models.size(); ++i) {
    if (models[i].name != r.models[i])
      throw Error(model_path + ": model " + std::to_string(i + 1) + " is " + models[i].name + ", the run's is " +
                  r.models[i] + "; pass the run's model file with -m");
    acc.push_back(models[i].accession.empty() ? "-" : models[i].accession);
  }
  return acc;
}

// hmmsearch's "description of target": from the FASTA the run read ('-' for a record without
// one, and for every target when the database is a makedb file, which keeps no descriptions).
std::vector<std::string> target_descriptions(const MsvRows& r, const std::string& db_path, std::ostream& err) {
  std::vector<std::string> desc(r.targets.size(), "-");
  if (is_hdf5_file(db_path)) return desc;
  std::vector<std::string> read;
  try {
    read = fasta_descriptions(db_path);
  } catch (const Error& e) {
    err << "warning: " << e.what() << ": target descriptions printed as '-'\n";
    return desc;
  }
  if (read.size() != desc.size()) {
    err << "warning: " << db_path << " holds " << read.size() << " records, the run had " << desc.size()
        << ": target descriptions printed as '-'\n";
    return desc;
  }
  for (size_t i = 0; i < desc.size(); ++i)
    if (!read[i].empty()) desc[i] = read[i];
  return desc;
}

std::string current_dir() {
  char buf[4096];
  return getcwd(buf, sizeof buf) ? buf : "";
}

}  // namespace

void print_msv_tblout(const std::string& path, const std::string& model_path, const std::string& db_path,
                      std::ostream& out, std::ostream& err) {
  const MsvRows r = read_msv(path, err);
  const std::vector<std::string> descriptions = target_descriptions(r, db_path.empty() ? r.database : db_path, err);
  const std::string models_from = model_path.empty() ? r.model_file : model_path;
  const std::vector<std::string> accessions = model_accessions(r, models_from);
  const bool vit = r.stages.find("vit") != std::string::npos;
  const double Z = double(r.db_sequences);
  // A row the Viterbi filter did not see (MSV P already <= F2, as hmmsearch skips it; an --all
  // run's early rejects) shows its MSV figures.
  const auto full_p = [&](size_t i) { return std::isnan(r.vit_p[i]) ? r.msv_p[i] : r.vit_p[i]; };
  const auto full_bits = [&](size_t i) { return double(std::isnan(r.vit_p[i]) ? r.msv_bits[i] : r.vit_bits[i]); };
  // hmmsearch's order within a query: best first (its sort key is the P-value).
  std::vector<size_t> order(r.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (r.model[a] != r.model[b]) return r.model[a] < r.model[b];
    const double pa = full_p(a), pb = full_p(b);
    return pa != pb ? pa < pb : r.target[a] < r.target[b];
  });
  int tnamew = 20, qnamew = 20, qaccw = 10;
  const int taccw = 10;
  for (size_t i : order) {
    tnamew = std::max<int>(tnamew, int(name_at(r.targets, r.target[i], "target").size()));
    qnamew = std::max<int>(qnamew, int(name_at(r.models, r.model[i], "model").size()));
    qaccw = std::max<int>(qaccw, int(accessions[r.model[i]].size()));
  }
  char line[1024];
  out << "# hpcalign msv: filter figures in hmmsearch's --tblout layout (not hmmsearch's final scores).\n"
      << "# full sequence E-value/score: the " << (vit ? "Viterbi" : "MSV")
      << " filter's P x Z and bits" << (vit ? " (the MSV filter's where hmmsearch skips the Viterbi filter: MSV P <= F2)" : "")
      << ";\n# best 1 domain E-value/score: the MSV filter's P x Z and bits"
      << " (Z = " << r.db_sequences << " target sequences); bias: 0.0 and domain estimation: 0 (not computed by the "
      << "filters).\n";
  std::snprintf(line, sizeof line, "#%*s %22s %22s %33s\n", tnamew + qnamew + taccw + qaccw + 2, "",
                "--- full sequence ----", "--- best 1 domain ----", "--- domain number estimation ----");
  out << line;
  std::snprintf(line, sizeof line,
                "#%-*s %-*s %-*s %-*s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n", tnamew - 1,
                " target name", taccw, "accession", qnamew, "query name", qaccw, "accession", "  E-value", " score",
                " bias", "  E-value", " score", " bias", "exp", "reg", "clu", " ov", "env", "dom", "rep", "inc",
                "description of target");
  out << line;
  std::snprintf(line, sizeof line, "#%*s %*s %*s %*s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n",
                tnamew - 1, "-------------------", taccw, "----------", qnamew, "--------------------", qaccw,
                "----------", "---------", "------", "-----", "---------", "------", "-----", "---", "---", "---",
                "---", "---", "---", "---", "---", "---------------------");
  out << line;
  for (size_t i : order) {
    std::snprintf(line, sizeof line,
                  "%-*s %-*s %-*s %-*s %9.2g %6.1f %5.1f %9.2g %6.1f %5.1f %5.1f %3d %3d %3d %3d %3d %3d %3d ",
                  tnamew, r.targets[r.target[i]].c_str(), taccw, "-", qnamew, r.models[r.model[i]].c_str(), qaccw,
                  accessions[r.model[i]].c_str(), full_p(i) * Z, full_bits(i), 0.0, r.msv_p[i] * Z, double(r.msv_bits[i]),
                  0.0, 0.0, 0, 0, 0, 0, 0, 0, 0);
    out << line << descriptions[r.target[i]] << '\n';  // any length
  }
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%a %b %e %H:%M:%S %Y", std::localtime(&now));
  out << "#\n# Program:         hpcalign msv\n# Version:         " << HPCALIGN_VERSION
      << "\n# Pipeline mode:   SEARCH (filters: " << r.stages << ")\n# Query file:      " << models_from
      << "\n# Target file:     " << r.database << "\n# Option settings: " << r.command_line
      << "\n# Current dir:     " << current_dir() << "\n# Date:            " << date << "\n# [ok]\n";
}

void print_msv_tsv(const std::string& path, std::ostream& out, std::ostream& err) {
  const MsvRows r = read_msv(path, err);
  std::vector<size_t> order(r.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return r.model[a] != r.model[b] ? r.model[a] < r.model[b] : r.target[a] < r.target[b];
  });
  out << "model\ttarget\tmsv_bits\tmsv_pvalue\tbias_pass\tvit_bits\tvit_pvalue\tpassed\n";
  char line[512];
  for (size_t i : order) {
    std::snprintf(line, sizeof line, "%s\t%s\t%.9g\t%.17g\t%d\t%.9g\t%.17g\t%d\n",
                  name_at(r.models, r.model[i], "model").c_str(), name_at(r.targets, r.target[i], "target").c_str(),
                  double(r.msv_bits[i]), r.msv_p[i], int(r.bias_pass[i]), double(r.vit_bits[i]), r.vit_p[i],
                  int(r.passed[i]));
    out << line;
  }
}

}  // namespace hpc
