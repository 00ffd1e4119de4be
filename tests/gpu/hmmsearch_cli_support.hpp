#pragma once
// `hpcalign hmmsearch` and HMMER 3.3.2's hmmsearch run from the command line into fresh
// directories, and the parts of their output the GPU tests compare: --tblout and --domtblout
// (without hmmsearch's trailing comment block) and -o's pipeline statistics lines.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace hpc::test {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A table without hmmsearch's trailing comment block ("#\n# Program: ..."), which we do not write.
inline std::string table_body(const std::string& text) {
  const size_t end = text.find("#\n# Program:");
  return end == std::string::npos ? text : text.substr(0, end);
}

inline size_t rows(const std::string& table) {
  std::istringstream in(table);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty() && line[0] != '#';
  return n;
}

// -o's pipeline statistics lines (hmmsearch's CPU time lines aside).
inline std::string statistics(const std::string& report) {
  std::istringstream in(report);
  std::string out;
  for (std::string line; std::getline(in, line);)
    for (const char* head : {"Query:", "Target sequences", "Passed", "Initial search", "Domain search"})
      if (line.rfind(head, 0) == 0) out += line + "\n";
  return out;
}

struct HmmsearchResult {
  std::string tbl, dom, stats;
};

inline HmmsearchResult read_result(const std::string& dir) {
  return {table_body(slurp(dir + "/tbl")), table_body(slurp(dir + "/dom")), statistics(slurp(dir + "/out"))};
}

// hpcalign hmmsearch (`env`: variables before the command) into a fresh directory.
inline HmmsearchResult ours(const std::string& env, const std::string& options, const std::string& models,
                            const std::string& db) {
  const std::string dir = temp_dir();
  int status = 0;
  const std::string log = run_command(env + " " + binary_path() + " hmmsearch --quiet " + options + " -o " + dir +
                                          "/out --tblout " + dir + "/tbl --domtblout " + dir + "/dom " + models + " " +
                                          db + " 2>&1",
                                      &status);
  EXPECT_EQ(status, 0) << options << ": " << log;
  return read_result(dir);
}

inline HmmsearchResult hmmsearch(const std::string& options, const std::string& models, const std::string& db) {
  const std::string dir = temp_dir();
  int status = 0;
  const std::string log = run_command("hmmsearch --cpu 4 " + options + " -o " + dir + "/out --tblout " + dir +
                                          "/tbl --domtblout " + dir + "/dom " + models + " " + db + " 2>&1",
                                      &status);
  EXPECT_EQ(status, 0) << "hmmsearch " << options << ": " << log;
  return read_result(dir);
}

inline void expect_same(const HmmsearchResult& a, const HmmsearchResult& b, const std::string& what) {
  EXPECT_EQ(a.tbl, b.tbl) << what << ": --tblout";
  EXPECT_EQ(a.dom, b.dom) << what << ": --domtblout";
  EXPECT_EQ(a.stats, b.stats) << what << ": -o statistics";
}

}  // namespace hpc::test
