#include "src/report/pairwise_text.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

#include "src/core/error.hpp"
#include "src/report/aligned_pair.hpp"

namespace hpc {
namespace {

constexpr size_t kWidth = 60;

char match_symbol(char a, char b, const ScoreMatrix& m) {
  if (a == '-' || b == '-') return ' ';
  if (a == b) return '|';
  const int s = m(encode_residue(a), encode_residue(b));
  return s > 0 ? ':' : s == 0 ? '.' : ' ';
}

std::string percent(uint32_t part, uint32_t whole) {
  return std::to_string(part) + "/" + std::to_string(whole) + " (" +
         std::to_string(whole ? blast_percent(part, whole) : 0) + "%)";
}

// One block: the residues a row consumes move its coordinate on; an all-gap row keeps it.
void print_blocks(const AlignedPair& rows, uint32_t qstart, uint32_t tstart, const ScoreMatrix& m, std::ostream& out) {
  uint32_t q = qstart, t = tstart;
  char line[256];
  for (size_t at = 0; at < rows.query.size(); at += kWidth) {
    const std::string qs = rows.query.substr(at, kWidth), ts = rows.target.substr(at, kWidth);
    std::string match(qs.size(), ' ');
    uint32_t qn = 0, tn = 0;
    for (size_t i = 0; i < qs.size(); ++i) {
      match[i] = match_symbol(qs[i], ts[i], m);
      qn += qs[i] != '-';
      tn += ts[i] != '-';
    }
    std::snprintf(line, sizeof line, "Query  %-5u  %s  %u\n", q, qs.c_str(), qn ? q + qn - 1 : q - 1);
    out << line << std::string(14, ' ') << match << '\n';
    std::snprintf(line, sizeof line, "Sbjct  %-5u  %s  %u\n\n", t, ts.c_str(), tn ? t + tn - 1 : t - 1);
    out << line;
    q += qn;
    t += tn;
  }
}

}  // namespace

void print_pairwise(const HitSource& src, std::ostream& out) {
  if (!src.queries || !src.targets || !src.matrix) throw Error("internal: the pairwise display needs the sequences");
  const HitTable& t = src.table;
  int64_t last_query = -1;
  for (const Hit& h : t.hits) {
    const std::string& qid = hit_id(t.query_ids, h.query, "query");
    const std::string& sid = hit_id(t.target_ids, h.target, "target");
    if (int64_t(h.query) != last_query) {
      out << "Query= " << qid << "  Length=" << src.queries->length(h.query) << "\n\n";
      last_query = h.query;
    }
    out << ">" << sid << "  Length=" << src.targets->length(h.target) << '\n';
    if (std::isfinite(h.bits) && std::isfinite(h.evalue))
      out << " Score = " << format_blast_bits(h.bits) << " bits (" << h.aln.score
          << "), Expect = " << format_blast_evalue(h.evalue) << '\n';
    else
      out << " Score = " << h.aln.score << ", Expect = N/A\n";
    if (h.aln.cigar.empty()) {
      out << " (no alignment stored: score-only run)\n\n";
      continue;
    }
    const AlignedPair rows =
        aligned_pair(h.aln, src.queries->view(h.query), src.targets->view(h.target), "query " + qid + " / target " + sid);
    uint32_t identical = 0, positive = 0, gaps = 0;
    for (size_t i = 0; i < rows.query.size(); ++i) {
      const char a = rows.query[i], b = rows.target[i];
      const bool gap = a == '-' || b == '-';
      identical += !gap && a == b;
      positive += !gap && (*src.matrix)(encode_residue(a), encode_residue(b)) > 0;  // as BLAST counts them
      gaps += gap;
    }
    const uint32_t n = uint32_t(rows.query.size());
    out << " Identities = " << percent(identical, n) << ", Positives = " << percent(positive, n)
        << ", Gaps = " << percent(gaps, n) << "\n\n";
    print_blocks(rows, h.aln.qstart, h.aln.tstart, *src.matrix, out);
  }
}

}  // namespace hpc
