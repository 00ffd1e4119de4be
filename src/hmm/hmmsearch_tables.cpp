#include "src/hmm/hmmsearch_tables.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "src/core/printf_string.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

namespace hpc::hmm {
namespace {

constexpr double kLog2R = 1.44269504088896341;  // eslCONST_LOG2R

struct Widths {
  int qname, tname, qacc, tacc;
  std::string qacc_text;
};

// Over every hit of the list, reported or not (p7_tophits_GetMaxNameLength).
Widths widths(const TableQuery& query, const HitList& list) {
  Widths w;
  size_t longest = 0, longest_acc = 0;
  for (const TargetHit& h : list.hits) {
    longest = std::max(longest, h.name.size());
    longest_acc = std::max(longest_acc, h.accession.size());
  }
  w.qname = std::max(20, int(query.name.size()));
  w.tname = std::max(20, int(longest));
  w.qacc = std::max(10, int(query.accession.size()));
  w.tacc = std::max(10, int(longest_acc));
  w.qacc_text = query.accession.empty() ? "-" : query.accession;
  return w;
}

const char* or_dash(const std::string& s) { return s.empty() ? "-" : s.c_str(); }

}  // namespace

TableQuery table_query(const HmmModel& model) { return {model.name, model.accession, model.length}; }

void write_tblout(std::ostream& out, const TableQuery& query, const HitList& list, bool header) {
  const HmmerFloatMode mode;  // exp() of tiny P-values: 0, as hmmsearch prints them
  const Widths w = widths(query, list);
  if (header) {
    out << printf_string("#%*s %22s %22s %33s\n", w.tname + w.qname + w.tacc + w.qacc + 2, "", "--- full sequence ----",
                  "--- best 1 domain ----", "--- domain number estimation ----");
    out << printf_string("#%-*s %-*s %-*s %-*s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n", w.tname - 1,
                  " target name", w.tacc, "accession", w.qname, "query name", w.qacc, "accession", "  E-value",
                  " score", " bias", "  E-value", " score", " bias", "exp", "reg", "clu", " ov", "env", "dom", "rep",
                  "inc", "description of target");
    out << printf_string("#%*s %*s %*s %*s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n", w.tname - 1,
                  "-------------------", w.tacc, "----------", w.qname, "--------------------", w.qacc,
                  "----------", "---------", "------", "-----", "---------", "------", "-----", "---", "---", "---",
                  "---", "---", "---", "---", "---", "---------------------");
  }
  for (const TargetHit& h : list.hits) {
    if (!h.reported) continue;
    const DomainHit& d = h.domains[h.best_domain];
    out << printf_string("%-*s %-*s %-*s %-*s %9.2g %6.1f %5.1f %9.2g %6.1f %5.1f %5.1f %3d %3d %3d %3d %3d %3d %3d %s\n",
                  w.tname, h.name.c_str(), w.tacc, or_dash(h.accession), w.qname, query.name.c_str(), w.qacc, w.qacc_text.c_str(),
                  std::exp(h.lnP) * list.Z, double(h.score), double(h.pre_score - h.score),
                  std::exp(d.lnP) * list.Z, double(d.bitscore), d.dombias * kLog2R, double(h.nexpected),
                  h.nregions, h.nclustered, h.noverlaps, h.nenvelopes, int(h.domains.size()), h.nreported,
                  h.nincluded, or_dash(h.description));
  }
}

void write_domtblout(std::ostream& out, const TableQuery& query, const HitList& list, bool header) {
  const HmmerFloatMode mode;
  const Widths w = widths(query, list);
  if (header) {
    out << printf_string("#%*s %22s %40s %11s %11s %11s\n", w.tname + w.qname - 1 + 15 + w.tacc + w.qacc, "",
                  "--- full sequence ---", "-------------- this domain -------------", "hmm coord", "ali coord",
                  "env coord");
    out << printf_string("#%-*s %-*s %5s %-*s %-*s %5s %9s %6s %5s %3s %3s %9s %9s %6s %5s %5s %5s %5s %5s %5s %5s %4s %s\n",
                  w.tname - 1, " target name", w.tacc, "accession", "tlen", w.qname, "query name", w.qacc,
                  "accession", "qlen", "E-value", "score", "bias", "#", "of", "c-Evalue", "i-Evalue", "score",
                  "bias", "from", "to", "from", "to", "from", "to", "acc", "description of target");
    out << printf_string("#%*s %*s %5s %*s %*s %5s %9s %6s %5s %3s %3s %9s %9s %6s %5s %5s %5s %5s %5s %5s %5s %4s %s\n",
                  w.tname - 1, "-------------------", w.tacc, "----------", "-----", w.qname,
                  "--------------------", w.qacc, "----------", "-----", "---------", "------", "-----", "---",
                  "---", "---------", "---------", "------", "-----", "-----", "-----", "-----", "-----", "-----",
                  "-----", "----", "---------------------");
  }
  for (const TargetHit& h : list.hits) {
    if (!h.reported) continue;
    int nd = 0;
    for (const DomainHit& d : h.domains) {
      if (!d.reported) continue;
      ++nd;
      const EnvelopeDomain& e = d.env;
      out << printf_string("%-*s %-*s %5d %-*s %-*s %5d %9.2g %6.1f %5.1f %3d %3d %9.2g %9.2g %6.1f %5.1f %5d %5d %5d %5d "
                    "%5d %5d %4.2f %s\n",
                    w.tname, h.name.c_str(), w.tacc, or_dash(h.accession), h.length, w.qname, query.name.c_str(), w.qacc,
                    w.qacc_text.c_str(), query.length, std::exp(h.lnP) * list.Z, double(h.score),
                    double(h.pre_score - h.score), nd, h.nreported, std::exp(d.lnP) * list.domZ,
                    std::exp(d.lnP) * list.Z, double(d.bitscore), d.dombias * kLog2R, e.hmmfrom, e.hmmto, e.iali,
                    e.jali, e.ienv, e.jenv, e.oasc / (1.0 + std::fabs(float(e.jenv - e.ienv))), or_dash(h.description));
    }
  }
}

void write_pfamtblout(std::ostream& out, const HitList& list, bool domains_by_score) {
  const HmmerFloatMode mode;
  size_t longest = 0;
  for (const TargetHit& h : list.hits) longest = std::max(longest, h.name.size());
  const int tnamew = std::max(20, int(longest));
  out << "# Sequence scores\n# ---------------\n#\n";
  out << printf_string("# %-*s %6s %9s %3s %5s %5s    %s\n", tnamew - 1, "name", " bits", "  E-value", "n", "exp", " bias",
                       "description");
  out << printf_string("# %*s %6s %9s %3s %5s %5s    %s\n", tnamew - 1, "-------------------", "------", "---------",
                       "---", "-----", "-----", "---------------------");
  struct Row {  // one reported domain, numbered among its target's reported domains
    const TargetHit* h;
    const DomainHit* d;
    int number;
    double key;
  };
  std::vector<Row> rows;
  for (const TargetHit& h : list.hits) {
    if (!h.reported) continue;
    out << printf_string("%-*s  %6.1f %9.2g %3d %5.1f %5.1f    %s\n", tnamew, h.name.c_str(), double(h.score),
                         std::exp(h.lnP) * list.Z, int(h.domains.size()), double(h.nexpected),
                         double(h.pre_score - h.score), or_dash(h.description));
    int n = 0;
    for (const DomainHit& d : h.domains)
      if (d.reported) rows.push_back({&h, &d, ++n, domains_by_score ? double(d.bitscore) : -d.lnP});
  }
  out << "\n";
  // p7_tophits_SortBySortkey on one pseudo-hit a domain: key, then name, then alignment start;
  // stable, as glibc's qsort is: full ties (duplicated records) keep the hit list's order.
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.key != b.key) return a.key > b.key;
    if (const int c = std::strcmp(a.h->name.c_str(), b.h->name.c_str())) return c < 0;
    return a.d->env.iali < b.d->env.iali;
  });
  out << "# Domain scores\n# -------------\n#\n";
  out << printf_string("# %-*s %6s %9s %5s %5s %6s %6s %6s %6s %6s %6s     %s\n", tnamew - 1, " name", "bits", "E-value",
                       "hit", "bias", "env-st", "env-en", "ali-st", "ali-en", "hmm-st", "hmm-en", "description");
  out << printf_string("# %*s %6s %9s %5s %5s %6s %6s %6s %6s %6s %6s      %s\n", tnamew - 1, "-------------------",
                       "------", "---------", "-----", "-----", "------", "------", "------", "------", "------",
                       "------", "---------------------");
  for (const Row& r : rows) {
    const EnvelopeDomain& e = r.d->env;
    out << printf_string("%-*s  %6.1f %9.2g %5d %5.1f %6d %6d %6d %6d %6d %6d     %s\n", tnamew, r.h->name.c_str(),
                         double(r.d->bitscore), std::exp(r.d->lnP) * list.Z, r.number, r.d->dombias * kLog2R, e.ienv,
                         e.jenv, e.iali, e.jali, e.hmmfrom, e.hmmto, or_dash(r.h->description));
  }
}

}  // namespace hpc::hmm
