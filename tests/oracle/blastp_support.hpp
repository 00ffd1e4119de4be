#pragma once
// Reading blastp's output for tests/oracle/blastp_oracle_test.cpp: the XML report (unrounded
// values, Lambda, K, lengths) joined with the tabular lines (the columns as printed), and the
// conversions between blastp's gapped strings and our CIGARs.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "src/core/alignment.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/sequence.hpp"
#include "test_support.hpp"

namespace hpc::test {

struct BlastHsp {
  uint32_t query = 0, subject = 0;  // indices: the files name them q<k> and s<k>
  int32_t score = 0;
  double bits = 0, evalue = 0;      // unrounded (XML, 6 significant digits)
  uint32_t qstart = 0, qend = 0, sstart = 0, send = 0;
  std::string qseq, sseq;
  std::vector<std::string> columns;  // the tabular line's 12 blast6 columns as printed
};

struct SearchStats {
  double lambda = 0, K = 0, db_length = 0;
  std::vector<double> query_length;
};

inline std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, '\t')) out.push_back(field);
  return out;
}

// The text of <tag>...</tag> on a line, or "" when the line has no such element.
inline std::string xml_value(const std::string& line, const std::string& tag) {
  const std::string open = "<" + tag + ">";
  const size_t a = line.find(open);
  if (a == std::string::npos) return "";
  const size_t b = line.find("</" + tag + ">", a);
  return b == std::string::npos ? "" : line.substr(a + open.size(), b - a - open.size());
}

inline std::string run_ok(const std::string& cmd) {
  int status = 0;
  const std::string out = test::run_command(cmd + " 2>&1", &status);
  EXPECT_EQ(status, 0) << cmd << "\n" << out.substr(0, 2000);
  return out;
}

inline std::string key_of(uint32_t q, uint32_t s, int32_t score, uint32_t qs, uint32_t qe, uint32_t ss, uint32_t se) {
  std::ostringstream k;
  k << q << ' ' << s << ' ' << score << ' ' << qs << ' ' << qe << ' ' << ss << ' ' << se;
  return k.str();
}

// Reads the XML report (every HSP, with Lambda, K and lengths) and attaches each HSP's
// tabular columns.
inline std::vector<BlastHsp> read_blast(const std::string& xml, const std::string& tabular, SearchStats& stats) {
  std::map<std::string, std::vector<std::string>> lines;
  {
    std::ifstream in(tabular);
    for (std::string line; std::getline(in, line);) {
      const auto f = split_tabs(line);  // 12 blast6 columns, score, qseq, sseq
      EXPECT_EQ(f.size(), 15u) << line;
      if (f.size() != 15) continue;
      lines[key_of(std::stoul(f[0].substr(1)), std::stoul(f[1].substr(1)), std::stoi(f[12]), std::stoul(f[6]),
                   std::stoul(f[7]), std::stoul(f[8]), std::stoul(f[9]))] = f;
    }
  }
  std::vector<BlastHsp> hsps;
  std::ifstream in(xml);
  uint32_t query = 0, subject = 0;
  BlastHsp h;
  for (std::string line; std::getline(in, line);) {
    std::string v;
    if (!(v = xml_value(line, "Iteration_query-def")).empty()) query = std::stoul(v.substr(1));
    if (!(v = xml_value(line, "Iteration_query-len")).empty()) {
      stats.query_length.resize(query + 1);
      stats.query_length[query] = std::stod(v);
    }
    if (!(v = xml_value(line, "Hit_def")).empty()) subject = std::stoul(v.substr(1));
    if (!(v = xml_value(line, "Hsp_bit-score")).empty())  // the first field of an HSP
      h = BlastHsp{}, h.query = query, h.subject = subject, h.bits = std::stod(v);
    if (!(v = xml_value(line, "Hsp_score")).empty()) h.score = std::stoi(v);
    if (!(v = xml_value(line, "Hsp_evalue")).empty()) h.evalue = std::stod(v);
    if (!(v = xml_value(line, "Hsp_query-from")).empty()) h.qstart = std::stoul(v);
    if (!(v = xml_value(line, "Hsp_query-to")).empty()) h.qend = std::stoul(v);
    if (!(v = xml_value(line, "Hsp_hit-from")).empty()) h.sstart = std::stoul(v);
    if (!(v = xml_value(line, "Hsp_hit-to")).empty()) h.send = std::stoul(v);
    if (!(v = xml_value(line, "Hsp_qseq")).empty()) h.qseq = v;
    if (!(v = xml_value(line, "Hsp_hseq")).empty()) {
      h.sseq = v;
      const auto it = lines.find(key_of(h.query, h.subject, h.score, h.qstart, h.qend, h.sstart, h.send));
      EXPECT_NE(it, lines.end()) << "XML HSP missing from the tabular output: q" << h.query << " s" << h.subject;
      if (it == lines.end()) continue;
      h.columns.assign(it->second.begin(), it->second.begin() + 12);
      EXPECT_EQ(it->second[13], h.qseq);
      hsps.push_back(h);
    }
    if (!(v = xml_value(line, "Statistics_db-len")).empty()) stats.db_length = std::stod(v);
    if (!(v = xml_value(line, "Statistics_lambda")).empty()) stats.lambda = std::stod(v);
    if (!(v = xml_value(line, "Statistics_kappa")).empty()) stats.K = std::stod(v);
  }
  EXPECT_EQ(hsps.size(), lines.size()) << "tabular and XML outputs list different HSPs";
  return hsps;
}

// Our alignment as the two gapped strings blastp prints (qseq, sseq).
inline std::pair<std::string, std::string> gapped_strings(const Alignment& a, SeqView q, SeqView t) {
  std::string qs, ts;
  uint32_t qi = a.qstart - 1, tj = a.tstart - 1, run = 0;
  for (char c : a.cigar) {
    if (c >= '0' && c <= '9') {
      run = run * 10 + uint32_t(c - '0');
      continue;
    }
    for (; run > 0; --run) {
      qs += c == 'D' ? '-' : decode_residue(q.data[qi++]);
      ts += c == 'I' ? '-' : decode_residue(t.data[tj++]);
    }
  }
  return {qs, ts};
}

// blastp's alignment as an Alignment with a CIGAR (target = subject), to re-score it.
inline Alignment from_gapped(const BlastHsp& h) {
  Alignment a{h.score, h.qstart, h.qend, h.sstart, h.send, ""};
  char prev = 0;
  int run = 0;
  auto flush = [&] {
    if (run) a.cigar += std::to_string(run) + prev;
  };
  for (size_t k = 0; k < h.qseq.size(); ++k) {
    const char op = h.qseq[k] == '-' ? 'D' : h.sseq[k] == '-' ? 'I' : h.qseq[k] == h.sseq[k] ? '=' : 'X';
    if (op != prev) flush(), prev = op, run = 0;
    ++run;
  }
  flush();
  return a;
}

// Distinct mismatches between our printed value and blastp's (the first 10, with a count).
struct Differences {
  std::string text;
  size_t count = 0;
  void note(const std::string& ours, const std::string& theirs) {
    if (ours == theirs) return;
    if (++count <= 10) text += " '" + ours + "' vs '" + theirs + "';";
    if (count == 11) text += " ...";
  }
};

inline double bits_of(const SearchStats& s, int32_t score) {
  return (s.lambda * score - std::log(s.K)) / std::log(2.0);
}

// The formatted value BLAST printed, given its unrounded value from the XML report (6
// significant digits): the formatter must print the same string for some value within that
// rounding (a value such as 1.23500e-05 may have been 1.2349996e-05 before the XML rounded it).
inline bool formats_as(const std::function<std::string(double)>& format, double xml_value, const std::string& printed) {
  for (double f : {1.0, 1.0 - 5e-6, 1.0 + 5e-6})
    if (format(xml_value * f) == printed) return true;
  return false;
}

}  // namespace hpc::test
