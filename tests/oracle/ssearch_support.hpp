#pragma once
// Helpers for the tests that compare with ssearch36 (FASTA package, Smith-Waterman).
//
// Command: ssearch36 -q -s MATRIX -f -11 -g -1 -m 9 -b N -d 0 -E 1e6 -z -1 -T 2 query.fa library.fa
//   -q quiet; -f/-g gap open/extend (a gap of length k costs 11 + k, our GapCosts{11, 1});
//   -m 9 adds the raw "sw" score and the alignment's coordinates to the list of best
//   scores; -b N lists N library sequences; -d 0 shows no alignments; -E 1e6 cuts
//   nothing; -z -1 skips statistics (no shuffles); -T 2 at most two threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace hpc::test {

// NCBI's BLOSUM62 file (package ncbi-data): ssearch36 -s reads it, and unlike ssearch36's
// BP62 its X, B and Z entries equal our built-in BLOSUM62 (BLAST+'s table), so both sides
// score every residue pair alike.
inline const char* kNcbiBlosum62 = "/usr/share/ncbi/data/BLOSUM62";

struct SsearchHit {
  std::string id;
  uint32_t length;
  int32_t score;                        // the raw "sw" column
  uint32_t qstart, qend, tstart, tend;  // an0 ax0 an1 ax1
};

// Lines of the "best scores" list with -m 9, one list per query:
//   ID description ( len)  s-w %_id %_sim sw alen an0 ax0 pn0 px0 an1 ax1 pn1 px1 gapq gapl fs
inline std::vector<std::vector<SsearchHit>> parse_best_scores(const std::string& text) {
  static const std::regex line_re(
      R"(^(\S+).*\(\s*(\d+)\)\s+-?\d+\s+\S+\s+\S+\s+(-?\d+)\s+\d+\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s+(\d+))");
  std::vector<std::vector<SsearchHit>> lists;
  std::istringstream in(text);
  bool in_list = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("The best scores are:", 0) == 0) {
      lists.emplace_back();
      in_list = true;
      continue;
    }
    std::smatch m;
    if (!in_list || !std::regex_search(line, m, line_re)) {
      in_list = false;  // a list ends at the first other line
      continue;
    }
    lists.back().push_back({m[1], uint32_t(std::stoul(m[2])), std::stoi(m[3]), uint32_t(std::stoul(m[4])),
                            uint32_t(std::stoul(m[5])), uint32_t(std::stoul(m[6])), uint32_t(std::stoul(m[7]))});
  }
  return lists;
}

// ssearch36's output for every query of query_fa against library, listing up to `list` library
// sequences per query; a failure to run is a test failure.
inline std::string run_ssearch(const std::string& query_fa, const std::string& library, const std::string& matrix,
                               size_t list) {
  int status = 0;
  const std::string out = run_command("ssearch36 -q -s " + matrix + " -f -11 -g -1 -m 9 -b " + std::to_string(list) +
                                          " -d 0 -E 1e6 -z -1 -T 2 " + query_fa + " " + library + " 2>&1",
                                      &status);
  EXPECT_EQ(status, 0) << "ssearch36 failed (installed by tools/setup.sh, package fasta3):\n" << out.substr(0, 2000);
  return out;
}

}  // namespace hpc::test
