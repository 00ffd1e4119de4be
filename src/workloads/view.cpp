#include "src/workloads/view.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "src/core/error.hpp"
#include "src/workloads/msv_tblout.hpp"

namespace hpc {
namespace {

std::string printf_double(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

const std::string& id_of(const std::vector<std::string>& ids, uint32_t index, const char* what) {
  if (index >= ids.size())
    throw Error(std::string("hit refers to ") + what + " " + std::to_string(index) + " but the file lists " +
                std::to_string(ids.size()));
  return ids[index];
}

// A finished run has /hits; an unfinished one only the rows of its finished tiles.
std::string table_group(const std::string& path) {
  if (!is_hdf5_file(path)) return "hits";  // read_hit_table says what is wrong with it
  h5::File f(path, h5::Mode::kReadOnly);
  return f.exists("hits") ? "hits" : "staging/hits";
}

}  // namespace

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

void print_blast6(const HitTable& t, std::ostream& out) {
  for (const Hit& h : t.hits) {
    const CigarStats s = cigar_stats(h.aln.cigar);
    const double pident = s.length ? 100.0 * s.matches / s.length : 0.0;
    out << id_of(t.query_ids, h.query, "query") << '\t' << id_of(t.target_ids, h.target, "target") << '\t'
        << printf_double("%.3f", pident) << '\t' << s.length << '\t' << s.mismatches << '\t' << s.gap_opens
        << '\t' << h.aln.qstart << '\t' << h.aln.qend << '\t' << h.aln.tstart << '\t' << h.aln.tend << '\t'
        << format_blast_evalue(h.evalue) << '\t' << format_blast_bits(h.bits) << '\n';
  }
}

void print_tsv(const HitTable& t, std::ostream& out) {
  out << "qseqid\tsseqid\tscore\tbits\tevalue\tidentity\tqstart\tqend\tsstart\tsend\tcigar\n";
  for (const Hit& h : t.hits) {
    out << id_of(t.query_ids, h.query, "query") << '\t' << id_of(t.target_ids, h.target, "target") << '\t'
        << h.aln.score << '\t' << printf_double("%.17g", h.bits) << '\t' << printf_double("%.17g", h.evalue) << '\t'
        << printf_double("%.6f", cigar_stats(h.aln.cigar).identity()) << '\t' << h.aln.qstart << '\t' << h.aln.qend
        << '\t' << h.aln.tstart << '\t' << h.aln.tend << '\t' << h.aln.cigar << '\n';
  }
}

int run_view(const std::string& path, const std::string& format, std::ostream& out, std::ostream& err) {
  if (format == "tblout") return print_msv_tblout(path, out, err), 0;
  if (format != "blast6" && format != "tsv")
    throw Error("unknown output format '" + format + "' (known: blast6, tsv, tblout)");
  const std::string group = table_group(path);
  HitTable t = read_hit_table(path, group);
  if (t.status != "complete") {
    err << "warning: " << path << " is from an unfinished run\n";
    // Staging rows are in arrival order; show them in the order a finished run uses.
    std::stable_sort(t.hits.begin(), t.hits.end(), hit_order);
  }
  if (format == "tsv")
    print_tsv(t, out);
  else
    print_blast6(t, out);
  return 0;
}

}  // namespace hpc
