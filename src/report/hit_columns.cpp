#include "src/report/hit_columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>

#include "src/core/error.hpp"
#include "src/report/aligned_pair.hpp"
#include "src/report/fasta_descriptions.hpp"

namespace hpc {
namespace {

std::string printf_double(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

const char* kAbsent = "N/A";  // what BLAST prints for a field it does not have

struct ColumnName {
  const char* blast;  // BLAST's name (the header of tsv)
  HitColumn column;
};
// Names only MMseqs2's --format-output spelling knows.
bool mmseqs_only(HitColumn c) {
  return c == HitColumn::fident || c == HitColumn::qcov || c == HitColumn::qheader || c == HitColumn::theader;
}
const ColumnName kColumns[] = {
    {"qseqid", HitColumn::qseqid},   {"sseqid", HitColumn::sseqid},     {"pident", HitColumn::pident},
    {"fident", HitColumn::fident},   {"nident", HitColumn::nident},     {"length", HitColumn::length},
    {"mismatch", HitColumn::mismatch}, {"positive", HitColumn::positive}, {"gapopen", HitColumn::gapopen},
    {"gaps", HitColumn::gaps},       {"ppos", HitColumn::ppos},         {"qstart", HitColumn::qstart},
    {"qend", HitColumn::qend},       {"sstart", HitColumn::sstart},     {"send", HitColumn::send},
    {"evalue", HitColumn::evalue},   {"bitscore", HitColumn::bitscore}, {"score", HitColumn::score},
    {"qlen", HitColumn::qlen},       {"slen", HitColumn::slen},         {"qcovs", HitColumn::qcovs},
    {"qcovhsp", HitColumn::qcovhsp}, {"qcov", HitColumn::qcov},         {"qseq", HitColumn::qseq},
    {"sseq", HitColumn::sseq},       {"cigar", HitColumn::cigar},       {"stitle", HitColumn::stitle},
    {"salltitles", HitColumn::salltitles}, {"qheader", HitColumn::qheader}, {"theader", HitColumn::theader},
};
// MMseqs2 --format-output names that differ from BLAST's.
const std::map<std::string, std::string> kMmseqsNames = {
    {"query", "qseqid"}, {"target", "sseqid"}, {"alnlen", "length"}, {"tstart", "sstart"}, {"tend", "send"},
    {"bits", "bitscore"}, {"raw", "score"},    {"tlen", "slen"},     {"qaln", "qseq"},     {"taln", "sseq"},
};

const char* name_of(HitColumn c) {
  for (const auto& n : kColumns)
    if (n.column == c) return n.blast;
  return "?";
}

HitColumn column_named(const std::string& name, bool mmseqs) {
  std::string blast = name;
  if (mmseqs && kMmseqsNames.count(name)) blast = kMmseqsNames.at(name);
  for (const auto& n : kColumns)
    if (blast == n.blast && (mmseqs || !mmseqs_only(n.column))) return n.column;
  std::string known;
  for (const auto& n : kColumns)
    if (mmseqs || !mmseqs_only(n.column)) known += std::string(" ") + n.blast;
  throw Error("unknown output column '" + name + "' (known:" + known +
              (mmseqs ? "; MMseqs2 names: query target alnlen tstart tend bits raw tlen qaln taln" : "") + ")");
}

const std::vector<HitColumn> kBlast6 = {HitColumn::qseqid, HitColumn::sseqid, HitColumn::pident, HitColumn::length,
                                        HitColumn::mismatch, HitColumn::gapopen, HitColumn::qstart, HitColumn::qend,
                                        HitColumn::sstart, HitColumn::send, HitColumn::evalue, HitColumn::bitscore};
const std::vector<HitColumn> kTsv = {HitColumn::qseqid, HitColumn::sseqid, HitColumn::score, HitColumn::bitscore,
                                     HitColumn::evalue, HitColumn::pident, HitColumn::qstart, HitColumn::qend,
                                     HitColumn::sstart, HitColumn::send, HitColumn::cigar};

// Per-row figures several columns share.
struct RowFigures {
  CigarStats stats;
  AlignedPair rows;  // only when sequences are needed
  uint32_t positives = 0;
};

}  // namespace

const std::string& hit_id(const std::vector<std::string>& ids, uint32_t index, const char* what) {
  if (index >= ids.size())
    throw Error(std::string("hit refers to ") + what + " " + std::to_string(index) + " but the file lists " +
                std::to_string(ids.size()));
  return ids[index];
}

long blast_percent(uint64_t part, uint64_t whole) {
  if (part == whole) return 100;
  return std::min(99L, std::lround(100.0 * double(part) / double(whole)));
}

std::string format_blast_evalue(double evalue) {
  if (evalue < 1.0e-180) return "0.0";
  if (evalue < 0.0009) return printf_double("%.2e", evalue);
  if (evalue < 0.1) return printf_double("%.3f", evalue);
  if (evalue < 1.0) return printf_double("%.2f", evalue);
  if (evalue < 10.0) return printf_double("%.1f", evalue);
  return printf_double("%.0f", evalue);
}

std::string format_blast_bits(double bits) {
  if (bits > 99999) return printf_double("%5.3e", bits);
  if (bits > 99.9) return std::to_string(static_cast<long>(bits));
  return printf_double("%4.1f", bits);
}

bool column_needs_alignment(HitColumn c) {
  switch (c) {
    case HitColumn::qseqid: case HitColumn::sseqid: case HitColumn::score: case HitColumn::qlen:
    case HitColumn::slen: case HitColumn::evalue: case HitColumn::bitscore: case HitColumn::stitle:
    case HitColumn::salltitles: case HitColumn::qheader: case HitColumn::theader:
      return false;
    default:
      return true;
  }
}

bool HitColumns::needs_sequences() const {
  for (HitColumn c : columns)
    if (c == HitColumn::qseq || c == HitColumn::sseq || c == HitColumn::positive || c == HitColumn::ppos) return true;
  return false;
}

bool HitColumns::needs_query_headers() const {
  return std::count(columns.begin(), columns.end(), HitColumn::qheader) > 0;
}

bool HitColumns::needs_target_headers() const {
  for (HitColumn c : columns)
    if (c == HitColumn::stitle || c == HitColumn::salltitles || c == HitColumn::theader) return true;
  return false;
}

bool HitColumns::needs_matrix() const {
  for (HitColumn c : columns)
    if (c == HitColumn::positive || c == HitColumn::ppos) return true;
  return false;
}

std::optional<HitColumns> parse_hit_columns(const std::string& format) {
  HitColumns f;
  if (format == "blast6" || format == "6") {
    f.columns = kBlast6;
    return f;
  }
  if (format == "tsv") {
    f.columns = kTsv;
    f.header = f.precise = true;
    return f;
  }
  const bool mmseqs = format.find(',') != std::string::npos;
  if (!mmseqs && format.rfind("6 ", 0) != 0) return std::nullopt;
  std::string names = mmseqs ? format : format.substr(2);
  if (mmseqs)
    for (char& c : names)
      if (c == ',') c = ' ';
  std::istringstream in(names);
  for (std::string name; in >> name;) f.columns.push_back(column_named(name, mmseqs));
  if (f.columns.empty()) throw Error("--format '" + format + "' names no columns");
  return f;
}

void print_hit_columns(const HitColumns& format, const HitSource& src, std::ostream& out) {
  const HitTable& t = src.table;
  const bool need_rows = format.needs_sequences();
  if (need_rows && (!src.queries || !src.targets)) throw Error("internal: these columns need the sequences");
  if (format.needs_matrix() && !src.matrix) throw Error("internal: these columns need the scoring matrix");
  if ((format.needs_query_headers() && !src.query_headers) || (format.needs_target_headers() && !src.target_headers))
    throw Error("internal: these columns need the header lines");
  if (format.header) {
    for (size_t i = 0; i < format.columns.size(); ++i) out << (i ? "\t" : "") << name_of(format.columns[i]);
    out << '\n';
  }
  const auto number = [&](const char* blast_fmt, double v) {
    return printf_double(format.precise ? "%.17g" : blast_fmt, v);
  };
  for (const Hit& h : t.hits) {
    const std::string& qid = hit_id(t.query_ids, h.query, "query");
    const std::string& sid = hit_id(t.target_ids, h.target, "target");
    const bool aligned = !h.aln.cigar.empty();
    RowFigures fig;
    if (aligned) fig.stats = cigar_stats(h.aln.cigar);
    if (aligned && need_rows) {
      fig.rows = aligned_pair(h.aln, src.queries->view(h.query), src.targets->view(h.target),
                              "query " + qid + " / target " + sid);
      if (src.matrix)
        for (size_t i = 0; i < fig.rows.query.size(); ++i)
          if (fig.rows.query[i] != '-' && fig.rows.target[i] != '-' &&
              (*src.matrix)(encode_residue(fig.rows.query[i]), encode_residue(fig.rows.target[i])) > 0)
            ++fig.positives;
    }
    const CigarStats& s = fig.stats;
    const uint32_t qlen = h.query < t.query_lengths.size() ? t.query_lengths[h.query] : 0;
    const uint32_t slen = h.target < t.target_lengths.size() ? t.target_lengths[h.target] : 0;
    const double coverage = qlen ? double(h.aln.qend - h.aln.qstart + 1) / qlen : 0.0;
    const bool stats = std::isfinite(h.evalue) && std::isfinite(h.bits);
    for (size_t i = 0; i < format.columns.size(); ++i) {
      if (i) out << '\t';
      const HitColumn c = format.columns[i];
      if ((column_needs_alignment(c) && !aligned) || ((c == HitColumn::evalue || c == HitColumn::bitscore) && !stats)) {
        out << kAbsent;
        continue;
      }
      switch (c) {
        case HitColumn::qseqid: out << qid; break;
        case HitColumn::sseqid: out << sid; break;
        case HitColumn::pident: out << number("%.3f", 100.0 * s.matches / s.length); break;
        case HitColumn::fident: out << number("%.3f", double(s.matches) / s.length); break;
        case HitColumn::nident: out << s.matches; break;
        case HitColumn::length: out << s.length; break;
        case HitColumn::mismatch: out << s.mismatches; break;
        case HitColumn::positive: out << fig.positives; break;
        case HitColumn::gapopen: out << s.gap_opens; break;
        case HitColumn::gaps: out << s.length - s.matches - s.mismatches; break;
        case HitColumn::ppos: out << number("%.2f", 100.0 * fig.positives / s.length); break;
        case HitColumn::qstart: out << h.aln.qstart; break;
        case HitColumn::qend: out << h.aln.qend; break;
        case HitColumn::sstart: out << h.aln.tstart; break;
        case HitColumn::send: out << h.aln.tend; break;
        case HitColumn::evalue: out << (format.precise ? number("", h.evalue) : format_blast_evalue(h.evalue)); break;
        case HitColumn::bitscore: out << (format.precise ? number("", h.bits) : format_blast_bits(h.bits)); break;
        case HitColumn::score: out << h.aln.score; break;
        case HitColumn::qlen: out << qlen; break;
        case HitColumn::slen: out << slen; break;
        case HitColumn::qcovs:
        case HitColumn::qcovhsp: out << blast_percent(h.aln.qend - h.aln.qstart + 1, qlen); break;
        case HitColumn::qcov: out << number("%.3f", coverage); break;
        case HitColumn::qseq: out << fig.rows.query; break;
        case HitColumn::sseq: out << fig.rows.target; break;
        case HitColumn::cigar: out << h.aln.cigar; break;
        case HitColumn::stitle:
        case HitColumn::salltitles: out << blast_title(hit_id(*src.target_headers, h.target, "target")); break;
        case HitColumn::qheader: out << mmseqs_header(hit_id(*src.query_headers, h.query, "query")); break;
        case HitColumn::theader: out << mmseqs_header(hit_id(*src.target_headers, h.target, "target")); break;
      }
    }
    out << '\n';
  }
}

}  // namespace hpc
