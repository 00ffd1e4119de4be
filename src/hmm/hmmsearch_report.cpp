#include "src/hmm/hmmsearch_report.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/printf_string.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

namespace hpc::hmm {
namespace {

constexpr double kLog2R = 1.44269504088896341;  // eslCONST_LOG2R

int text_width(long n) {  // integer_textwidth
  int w = n < 0 ? 1 : 0;
  for (; n != 0; n /= 10) ++w;
  return w;
}

// One (model, sequence) pair of the report: hmmsearch's query model and target sequence, or
// hmmscan's target model and query sequence.
struct Pair {
  const HmmModel& model;
  const std::string& seq_name;
  int seq_length;
};
Pair pair_of(const ReportQuery& q, const TargetHit& h) {
  return q.scan() ? Pair{q.model_of(h), q.name, q.length} : Pair{*q.model, h.name, h.length};
}

// The target's name as the report shows it: its accession under --acc where it has one.
const std::string& shown_name(const TargetHit& h, const ReportStyle& style) {
  return style.accessions && !h.accession.empty() ? h.accession : h.name;
}

// The CS or RF line of an alignment: the model's annotation at M and D columns, '.' at inserts.
std::string annotation_line(const AlignmentDisplay& a, int hmmfrom, const std::string& annotation) {
  std::string line(a.model.size(), '.');
  int k = hmmfrom;
  for (size_t c = 0; c < a.model.size(); ++c)
    if (a.model[c] != '.') line[c] = annotation[size_t(k++)];
  return line;
}

// p7_nontranslated_alidisplay_Print, min_aliwidth 40.
void write_alignment(std::ostream& out, const Pair& pair, const DomainHit& d, const ReportStyle& style) {
  const HmmModel& model = pair.model;
  const AlignmentDisplay& a = d.ali;
  const EnvelopeDomain& e = d.env;
  const std::string& hmmname = style.accessions && !model.accession.empty() ? model.accession : model.name;
  const std::string& seqname = pair.seq_name;
  const int namew = int(std::max(hmmname.size(), seqname.size()));
  const int coordw = std::max({text_width(e.hmmfrom), text_width(e.hmmto), text_width(e.iali), text_width(e.jali)});
  const int N = a.columns();
  int aliw = style.textw > 0 ? style.textw - namew - 2 * coordw - 5 : N;
  if (aliw < N && aliw < 40) aliw = 40;
  const std::string cs = model.has_cs ? annotation_line(a, e.hmmfrom, model.cs) : "";
  const std::string rf = model.has_rf ? annotation_line(a, e.hmmfrom, model.rf) : "";
  long i1 = e.iali;
  int k1 = e.hmmfrom;
  for (int pos = 0; pos < N; pos += aliw) {
    if (pos > 0) out << "\n";
    auto block = [&](const std::string& s) { return s.substr(size_t(pos), size_t(aliw)); };
    int ni = 0, nk = 0;
    for (int z = pos; z < pos + aliw && z < N; ++z) nk += a.model[z] != '.', ni += a.aseq[z] != '-';
    const int k2 = k1 + nk - 1;
    const long i2 = i1 + ni - 1;
    const int margin = namew + coordw + 1;
    if (!cs.empty()) out << printf_string("  %*s %s CS\n", margin, "", block(cs).c_str());
    if (!rf.empty()) out << printf_string("  %*s %s RF\n", margin, "", block(rf).c_str());
    out << printf_string("  %*s %*d %s %-*d\n", namew, hmmname.c_str(), coordw, k1, block(a.model).c_str(), coordw, k2);
    out << printf_string("  %*s %s\n", margin, " ", block(a.mline).c_str());
    if (ni > 0)
      out << printf_string("  %*s %*ld %s %-*ld\n", namew, seqname.c_str(), coordw, i1, block(a.aseq).c_str(), coordw, i2);
    else
      out << printf_string("  %*s %*s %s %*s\n", namew, seqname.c_str(), coordw, "-", block(a.aseq).c_str(), coordw, "-");
    out << printf_string("  %*s %s PP\n", margin, "", block(a.pp).c_str());
    k1 += nk, i1 += ni;
  }
}

void write_domain_table(std::ostream& out, const Pair& pair, const TargetHit& h, const HitList& list) {
  const char* head = " %3s   %6s %5s %9s %9s %7s %7s %2s %7s %7s %2s %7s %7s %2s %4s\n";
  out << printf_string(head, "#", "score", "bias", "c-Evalue", "i-Evalue", "hmmfrom", "hmm to", "  ", "alifrom",
                       "ali to", "  ", "envfrom", "env to", "  ", "acc");
  out << printf_string(head, "---", "------", "-----", "---------", "---------", "-------", "-------", "  ", "-------",
                       "-------", "  ", "-------", "-------", "  ", "----");
  int nd = 0;
  for (const DomainHit& d : h.domains) {
    if (!d.reported) continue;
    const EnvelopeDomain& e = d.env;
    out << printf_string(" %3d %c %6.1f %5.1f %9.2g %9.2g %7d %7d %c%c", ++nd, d.included ? '!' : '?', d.bitscore,
                         d.dombias * kLog2R, std::exp(d.lnP) * list.domZ, std::exp(d.lnP) * list.Z, e.hmmfrom, e.hmmto,
                         e.hmmfrom == 1 ? '[' : '.', e.hmmto == pair.model.length ? ']' : '.');
    const int L = pair.seq_length;
    out << printf_string(" %7d %7d %c%c", e.iali, e.jali, e.iali == 1 ? '[' : '.', e.jali == L ? ']' : '.');
    out << printf_string(" %7d %7d %c%c", e.ienv, e.jenv, e.ienv == 1 ? '[' : '.', e.jenv == L ? ']' : '.');
    out << printf_string(" %4.2f\n", e.oasc / (1.0 + std::fabs(float(e.jenv - e.ienv))));
  }
}

void write_target_domains(std::ostream& out, const ReportQuery& query, const TargetHit& h, const HitList& list,
                          const ReportStyle& style) {
  const std::string& name = shown_name(h, style);
  if (style.textw > 0)
    out << printf_string(">> %s  %-.*s\n", name.c_str(), std::max(32, style.textw - int(name.size()) - 5),
                         h.description.c_str());
  else
    out << ">> " << name << "  " << h.description << "\n";
  const Pair pair = pair_of(query, h);
  if (h.nreported == 0) {
    out << "   [No individual domains that satisfy reporting thresholds (although complete target did)]\n\n";
    return;
  }
  write_domain_table(out, pair, h, list);
  if (!style.alignments) {
    out << "\n";
    return;
  }
  out << "\n  Alignments for each domain:\n";
  int nd = 0;
  for (const DomainHit& d : h.domains) {
    if (!d.reported) continue;
    out << printf_string("  == domain %d  score: %.1f bits;  conditional E-value: %.2g\n", ++nd, d.bitscore,
                         std::exp(d.lnP) * list.domZ);
    write_alignment(out, pair, d, style);
    out << "\n";
  }
}

}  // namespace

ReportQuery search_query(const HmmModel& model) {
  ReportQuery q{model.name, model.accession, model.description, model.length};
  q.model = &model;
  return q;
}

ReportQuery scan_query(const std::vector<HmmModel>& models, const std::string& name, const std::string& description,
                       int length) {
  ReportQuery q{name, "", description, length};
  q.models = &models;
  return q;
}

void write_query_header(std::ostream& out, const ReportQuery& query) {
  out << printf_string(query.scan() ? "Query:       %s  [L=%d]\n" : "Query:       %s  [M=%d]\n", query.name.c_str(),
                       query.length);
  if (!query.accession.empty()) out << "Accession:   " << query.accession << "\n";
  if (!query.description.empty()) out << "Description: " << query.description << "\n";
}

void write_target_list(std::ostream& out, const ReportQuery& query, const HitList& list, const ReportStyle& style) {
  const HmmerFloatMode mode;  // exp() of tiny P-values: 0, as hmmsearch prints them
  size_t longest = 0;  // over every hit of the list, reported or not (p7_tophits_GetMaxShownLength)
  for (const TargetHit& h : list.hits) longest = std::max(longest, shown_name(h, style).size());
  const int namew = std::max(8, int(longest));
  const int descw = style.textw > 0 ? std::max(32, style.textw - namew - 61) : 0;
  out << "Scores for complete sequence" << (query.scan() ? "" : "s") << " (score includes all domains):\n";
  out << printf_string("  %22s  %22s  %8s\n", " --- full sequence ---", " --- best 1 domain ---", "-#dom-");
  const char* head = "  %9s %6s %5s  %9s %6s %5s  %5s %2s  %-*s %s\n";
  out << printf_string(head, "E-value", " score", " bias", "E-value", " score", " bias", "  exp", "N", namew,
                       query.scan() ? "Model" : "Sequence", "Description");
  out << printf_string(head, "-------", "------", "-----", "-------", "------", "-----", " ----", "--", namew,
                       "--------", "-----------");
  bool threshold_shown = false;
  for (const TargetHit& h : list.hits) {
    if (!h.reported) continue;
    if (!h.included && !threshold_shown) out << "  ------ inclusion threshold ------\n", threshold_shown = true;
    const DomainHit& best = h.domains[size_t(h.best_domain)];
    out << printf_string("%c %9.2g %6.1f %5.1f  %9.2g %6.1f %5.1f  %5.1f %2d  %-*s ", ' ', std::exp(h.lnP) * list.Z,
                         h.score, h.pre_score - h.score, std::exp(best.lnP) * list.Z, best.bitscore,
                         kLog2R * best.dombias, h.nexpected, h.nreported, namew, shown_name(h, style).c_str());
    if (style.textw > 0) out << printf_string(" %-.*s\n", descw, h.description.c_str());
    else out << " " << h.description << "\n";
  }
  if (list.nreported == 0) out << "\n   [No hits detected that satisfy reporting thresholds]\n";
}

void write_domain_annotation(std::ostream& out, const ReportQuery& query, const HitList& list,
                             const ReportStyle& style) {
  const HmmerFloatMode mode;
  out << "Domain annotation for each " << (query.scan() ? "model" : "sequence")
      << (style.alignments ? " (and alignments)" : "") << ":\n";
  for (const TargetHit& h : list.hits)
    if (h.reported) write_target_domains(out, query, h, list, style);
  if (list.nreported == 0) out << "\n   [No targets detected that satisfy reporting thresholds]\n";
}

}  // namespace hpc::hmm
