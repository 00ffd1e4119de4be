#include "src/hmm/hmmsearch_msa.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "src/core/printf_string.hpp"
#include "src/hmm/alignment_display.hpp"

namespace hpc::hmm {
namespace {

struct Row {
  std::string name, desc;
  const AlignmentDisplay* ali;
  int hmmfrom;
};

struct Msa {
  std::vector<std::string> names, descs, aseq, pp;
  std::string pp_cons, rf;
  int alen = 0;
};

// Easel's amino alphabet: a gap is '-', '.' or '_'; a residue is a letter ('*' and '~' are not).
bool is_gap(char c) { return c == '-' || c == '.' || c == '_'; }
bool is_residue(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// matmap[k]: the 1-based column of match state k (every consensus column is kept).
std::vector<int> match_columns(const std::vector<Row>& rows, int M, std::vector<int>& inscount, int& alen) {
  inscount.assign(size_t(M) + 1, 0);
  for (const Row& r : rows) {
    std::vector<int> n(size_t(M) + 1, 0);
    int k = r.hmmfrom - 1;
    for (char c : r.ali->model) c == '.' ? ++n[size_t(k)] : ++k;
    for (int j = 0; j <= M; ++j) inscount[size_t(j)] = std::max(inscount[size_t(j)], n[size_t(j)]);
  }
  std::vector<int> matmap(size_t(M) + 1, 0);
  alen = inscount[0];
  for (int k = 1; k <= M; ++k) matmap[size_t(k)] = alen + 1, alen += 1 + inscount[size_t(k)];
  return matmap;
}

// make_text_msa and annotate_posterior_probability for one row; totp/nmatch gather PP_cons.
void place_row(const Row& r, const std::vector<int>& matmap, int M, Msa& msa, std::vector<double>& totp,
               std::vector<int>& nmatch) {
  std::string aseq(size_t(msa.alen), '.'), pp(size_t(msa.alen), '.');
  for (int k = 1; k <= M; ++k) aseq[size_t(matmap[size_t(k)] - 1)] = '-';
  const AlignmentDisplay& a = *r.ali;
  int k = r.hmmfrom - 1, apos = 0;
  for (size_t c = 0; c < a.model.size(); ++c) {
    const float p = decode_posterior(a.pp[c]);
    const auto ch = static_cast<unsigned char>(a.aseq[c]);
    if (a.model[c] == '.') {  // I
      aseq[size_t(apos)] = char(std::tolower(ch)), pp[size_t(apos)] = encode_posterior(p), ++apos;
      continue;
    }
    const size_t col = size_t(matmap[size_t(++k)] - 1);
    if (!is_gap(a.aseq[c])) {  // M
      aseq[col] = char(std::toupper(ch)), pp[col] = encode_posterior(p);
      totp[col] += p, nmatch[col]++;
    }
    apos = int(col) + 1;
  }
  msa.aseq.push_back(aseq), msa.pp.push_back(pp);
}

// rejustify_insertions_text: a node's inserts split, half left-justified, half right (all right
// after node 0).
void rejustify(Msa& msa, const std::vector<int>& inscount, const std::vector<int>& matmap, int M) {
  for (size_t s = 0; s < msa.aseq.size(); ++s) {
    std::string& aseq = msa.aseq[s];
    std::string& pp = msa.pp[s];
    for (int k = 0; k < M; ++k) {
      if (inscount[size_t(k)] <= 1) continue;
      const int first = matmap[size_t(k)], last = matmap[size_t(k) + 1] - 2;  // 0-based insert columns
      int nins = 0;
      for (int a = first; a <= last; ++a) nins += is_residue(aseq[size_t(a)]);
      nins = k == 0 ? 0 : nins / 2;
      int opos = last, npos = last;
      for (; opos >= first + nins; --opos)
        if (!is_gap(aseq[size_t(opos)])) aseq[size_t(npos)] = aseq[size_t(opos)], pp[size_t(npos)] = pp[size_t(opos)], --npos;
      for (; npos >= first + nins; --npos) aseq[size_t(npos)] = '.', pp[size_t(npos)] = '.';
    }
  }
}

Msa build_msa(const std::vector<Row>& rows, int M) {
  Msa msa;
  std::vector<int> inscount;
  const std::vector<int> matmap = match_columns(rows, M, inscount, msa.alen);
  std::vector<double> totp(size_t(msa.alen), 0.0);
  std::vector<int> nmatch(size_t(msa.alen), 0);
  for (const Row& r : rows) place_row(r, matmap, M, msa, totp, nmatch);
  msa.rf.assign(size_t(msa.alen), '.');
  for (int k = 1; k <= M; ++k) msa.rf[size_t(matmap[size_t(k)] - 1)] = 'x';
  msa.pp_cons.assign(size_t(msa.alen), '.');
  for (size_t a = 0; a < size_t(msa.alen); ++a)
    if (nmatch[a]) msa.pp_cons[a] = encode_posterior(float(totp[a] / double(nmatch[a])));
  rejustify(msa, inscount, matmap, M);
  for (const Row& r : rows) msa.names.push_back(r.name), msa.descs.push_back(r.desc);
  return msa;
}

// esl_msafile_stockholm's stockholm_write, for an alignment with PP, PP_cons and RF only.
void write_stockholm(std::ostream& out, const Msa& msa, const HmmModel& query, const std::string& author, int cpl) {
  const bool uniq = std::set<std::string>(msa.names.begin(), msa.names.end()).size() != msa.names.size();
  int uniqw = 0;
  if (uniq) {
    for (size_t n = msa.names.size(); n; n /= 10) ++uniqw;
    ++uniqw;  // the '|'
  }
  int maxname = 0;
  for (const std::string& n : msa.names) maxname = std::max(maxname, int(n.size()));
  const int maxgc = 7, maxgr = 2;  // PP_cons; PP
  const int margin = std::max({uniqw + maxname + 1, maxgc + 6, uniqw + maxname + maxgr + 7});
  auto name = [&](size_t i, int width) {
    return uniq ? printf_string("%0*d|%-*s", uniqw - 1, int(i), width, msa.names[i].c_str())
                : printf_string("%-*s", width, msa.names[i].c_str());
  };
  out << "# STOCKHOLM 1.0\n";
  if (uniq) out << "# WARNING: seq names have been made unique by adding a prefix of \"<seq#>|\"\n";
  out << "#=GF ID " << query.name << "\n";
  if (!query.accession.empty()) out << "#=GF AC " << query.accession << "\n";
  if (!query.description.empty()) out << "#=GF DE " << query.description << "\n";
  out << "#=GF AU " << author << "\n\n";
  for (size_t i = 0; i < msa.names.size(); ++i) out << "#=GS " << name(i, maxname) << " DE " << msa.descs[i] << "\n";
  out << "\n";
  for (int pos = 0; pos < msa.alen; pos += cpl) {
    if (pos > 0) out << "\n";
    auto block = [&](const std::string& s) { return s.substr(size_t(pos), size_t(cpl)); };
    for (size_t i = 0; i < msa.names.size(); ++i) {
      out << name(i, margin - uniqw - 1 + (uniq ? 0 : 0)) << " " << block(msa.aseq[i]) << "\n";
      out << "#=GR " << name(i, maxname) << " " << printf_string("%-*s", margin - maxname - uniqw - 7, "PP") << " "
          << block(msa.pp[i]) << "\n";
    }
    out << printf_string("#=GC %-*s %s\n", margin - 6, "PP_cons", block(msa.pp_cons).c_str());
    out << printf_string("#=GC %-*s %s\n", margin - 6, "RF", block(msa.rf).c_str());
  }
  out << "//\n";
}

}  // namespace

int write_included_msa(std::ostream& out, const HmmModel& query, const HitList& list, const std::string& author,
                       int block_width) {
  std::vector<Row> rows;
  for (const TargetHit& h : list.hits) {
    if (!h.included) continue;
    for (const DomainHit& d : h.domains)
      if (d.included)
        rows.push_back({printf_string("%s/%d-%d", h.name.c_str(), d.env.iali, d.env.jali),
                        "[subseq from] " + (h.description.empty() ? h.name : h.description), &d.ali, d.env.hmmfrom});
  }
  if (rows.empty()) return 0;
  const Msa msa = build_msa(rows, query.length);
  write_stockholm(out, msa, query, author, block_width > 0 ? block_width : msa.alen);
  return int(rows.size());
}

}  // namespace hpc::hmm
