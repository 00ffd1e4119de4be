#pragma once
// Test harness for the hmmsearch pipeline oracle: our --tblout/--domtblout rows for a model
// and a FASTA file (filters, Forward, domain definition, thresholds, writer), hmmsearch's rows
// for the same files, and a per-field comparison of the two.
#include <algorithm>
#include <array>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/database.hpp"
#include "io/hmm_file.hpp"
#include "src/hmm/hmmsearch_pipeline.hpp"
#include "src/hmm/hmmsearch_tables.hpp"
#include "src/report/fasta_descriptions.hpp"
#include "test_support.hpp"

namespace hpc::test {

struct Tables {
  std::string tblout, domtblout;
  long past_fwd = -1;  // targets through the Forward filter ("Passed Fwd filter")
};

// Every model of the file in turn, as hmmsearch runs several queries: header lines before
// the first query's rows only.
// `cutoff`: "" (E-value thresholds) or "GA", "TC", "NC" (hmmsearch --cut_ga ...).
inline Tables our_tables(const std::string& model_path, const std::string& fasta, const std::string& cutoff = "") {
  const Database db = load_database(fasta, ResidueRules::kHmmer);
  const std::vector<std::string> desc = fasta_descriptions(fasta);
  std::ostringstream a, b;
  long past_fwd = 0;
  bool first = true;
  for (const HmmModel& model : read_hmm_file(model_path)) {
    hmm::HmmsearchPipeline pipe(model);
    std::vector<hmm::TargetHit> hits;
    for (size_t t = 0; t < db.seqs.size(); ++t) {
      const SeqView v = db.seqs.view(t);
      auto h = pipe.score(db.seqs.ids[t], t < desc.size() ? desc[t] : "", v.data, int(v.length));
      if (h) hits.push_back(std::move(*h));
    }
    const hmm::ReportThresholds thresholds =
        cutoff.empty() ? hmm::ReportThresholds{} : hmm::model_cutoff_thresholds(model, cutoff);
    const hmm::HitList list = hmm::finish_hits(std::move(hits), double(db.seqs.size()), thresholds);
    hmm::write_tblout(a, model, list, first);
    hmm::write_domtblout(b, model, list, first);
    past_fwd += pipe.counts().past_fwd;
    first = false;
  }
  return {a.str(), b.str(), past_fwd};
}

inline Tables hmmsearch_tables(const std::string& model_path, const std::string& fasta, const std::string& dir,
                               const std::string& options = "") {
  int status = 0;
  const std::string out = run_command("hmmsearch --cpu 1 " + options + " -o " + dir + "/t.out --tblout " + dir + "/t.tbl --domtblout " + dir +
                                          "/t.domtbl " + model_path + " " + fasta + " 2>&1",
                                      &status);
  if (status != 0) std::cerr << "hmmsearch failed: " << out << "\n";
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  Tables t{slurp(dir + "/t.tbl"), slurp(dir + "/t.domtbl")};
  std::istringstream report(slurp(dir + "/t.out"));
  std::string line;
  while (std::getline(report, line))
    if (line.rfind("Passed Fwd filter:", 0) == 0) t.past_fwd = std::max(t.past_fwd, 0L) + std::stol(line.substr(18));
  return t;
}

// Rows (lines not starting with '#') split into `nfields` fields, the rest (the description) one.
inline std::vector<std::vector<std::string>> table_rows(const std::string& text, int nfields) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::vector<std::string> f;
    std::string w;
    for (int i = 0; i < nfields && ls >> w; ++i) f.push_back(w);
    std::string rest;
    std::getline(ls, rest);
    const size_t s = rest.find_first_not_of(' ');
    f.push_back(s == std::string::npos ? "" : rest.substr(s));
    rows.push_back(f);
  }
  return rows;
}

// The header: the '#' lines before the first row.
inline std::string header_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  for (int n = 0; n < 3 && std::getline(in, line) && !line.empty() && line[0] == '#'; ++n) out += line + "\n";
  return out;
}

struct FieldComparison {
  size_t ours = 0, theirs = 0, paired = 0, identical_rows = 0;
  bool same_order = false;    // rows listed in the same order
  bool same_header = false;   // the three '#' header lines identical
  std::vector<size_t> identical;  // per field, over paired rows
  std::vector<std::string> differences;  // first few, for the log
};

// Pairs rows by key (target and query name, description: balifam repeats ids; plus the domain
// number for domains) and counts equal fields.
inline FieldComparison compare_tables(const std::string& ours, const std::string& theirs, int nfields,
                                      const std::vector<int>& key_fields) {
  const auto a = table_rows(ours, nfields), b = table_rows(theirs, nfields);
  FieldComparison c;
  c.ours = a.size(), c.theirs = b.size();
  c.identical.assign(nfields + 1, 0);
  auto key = [&](const std::vector<std::string>& r) {
    std::string k;
    for (int f : key_fields) k += (f < int(r.size()) ? r[f] : "") + "|";
    return k;
  };
  std::vector<std::string> ka, kb;
  for (const auto& r : a) ka.push_back(key(r));
  for (const auto& r : b) kb.push_back(key(r));
  c.same_order = ka == kb;
  c.same_header = header_lines(ours) == header_lines(theirs);
  std::map<std::string, const std::vector<std::string>*> theirs_by_key;
  for (const auto& r : b) theirs_by_key[key(r)] = &r;
  for (const auto& r : a) {
    auto it = theirs_by_key.find(key(r));
    if (it == theirs_by_key.end()) {
      if (c.differences.size() < 20) c.differences.push_back("only ours: " + key(r));
      continue;
    }
    const auto& t = *it->second;
    ++c.paired;
    bool all = true;
    for (int f = 0; f <= nfields; ++f) {
      const bool same = f < int(r.size()) && f < int(t.size()) && r[f] == t[f];
      c.identical[f] += same;
      if (!same) {
        all = false;
        if (c.differences.size() < 20)
          c.differences.push_back(key(r) + " field " + std::to_string(f + 1) + ": ours " +
                                  (f < int(r.size()) ? r[f] : "?") + " hmmsearch " + (f < int(t.size()) ? t[f] : "?"));
      }
    }
    c.identical_rows += all;
  }
  return c;
}

}  // namespace hpc::test
