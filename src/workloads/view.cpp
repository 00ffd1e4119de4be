#include "src/workloads/view.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <ostream>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "io/matrix.hpp"
#include "src/core/error.hpp"
#include "src/report/fasta_descriptions.hpp"
#include "src/report/hit_columns.hpp"
#include "src/report/pairwise_text.hpp"
#include "src/report/pss_table.hpp"
#include "src/workloads/msv_tblout.hpp"

namespace hpc {

const char* const kFormatHelp =
    "text output; by workload:\n"
    "  search/allvsall: blast6 (BLAST -outfmt 6: qseqid sseqid pident length mismatch gapopen qstart qend\n"
    "    sstart send evalue bitscore); tsv (header; qseqid sseqid score bitscore evalue pident qstart qend\n"
    "    sstart send cigar, full precision); pairwise (alignments as BLAST shows them); \"6 COL COL ...\"\n"
    "    (BLAST's custom columns: qseqid sseqid pident nident length mismatch positive gapopen gaps ppos\n"
    "    qstart qend sstart send evalue bitscore score qlen slen qcovs qcovhsp qseq sseq cigar stitle\n"
    "    salltitles); or \"COL,COL,...\" (MMseqs2 --format-output names: query target fident pident alnlen\n"
    "    tstart tend bits raw tlen qcov qaln taln qheader theader ...). Absent values print N/A (E-values\n"
    "    of global/semiglobal modes; coordinates of score-only runs). Sequence and title columns read\n"
    "    the run's query/target files again (view's --query/--db point elsewhere); titles need FASTA.\n"
    "  pss: tsv (qseqid sseqid score mu lambda K pvalue log10_pvalue n_perm converged fit_status).\n"
    "  msv: tblout (hmmsearch --tblout's 18 columns + description; filter figures, see the table's\n"
    "    comment) or tsv (every /msv column).";

namespace {

std::string attribute_or(const h5::File& f, const std::string& name, const std::string& fallback) {
  return h5::has_attribute(f, "", name) ? h5::read_string_attribute(f, "", name) : fallback;
}

// What made the file: "hits" (search, allvsall, merge), "pss" or "msv".
std::string result_kind(const std::string& path) {
  if (!is_hdf5_file(path)) return "hits";  // read_hit_table says what is wrong with it
  h5::File f(path, h5::Mode::kReadOnly);
  const std::string workload = attribute_or(f, "workload", "");
  if (workload == "pss" || workload == "msv") return workload;
  return "hits";
}

// A finished run has /hits; an unfinished one only the rows of its finished tiles.
std::string hit_group(const std::string& path) {
  if (!is_hdf5_file(path)) return "hits";
  h5::File f(path, h5::Mode::kReadOnly);
  return f.exists("hits") ? "hits" : "staging/hits";
}

// A pipe or device (search -q /dev/stdin): the run has read it once, so it cannot be read again.
bool read_once(const std::string& file) {
  struct stat st {};
  return stat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

// The run's sequences, checked against the file's ids and lengths.
SequenceSet run_sequences(const std::string& file, const std::vector<std::string>& ids,
                          const std::vector<uint32_t>& lengths, const std::string& option, const char* what) {
  if (file.empty())
    throw Error(std::string("these columns need the ") + what + " sequences; the result file names no " + what +
                " file: pass " + option);
  SequenceSet seqs;
  try {
    seqs = load_database(file).seqs;
  } catch (const InputError& e) {
    if (read_once(file))
      throw Error(std::string(e.what()) + " (" + file + " is a pipe or device, read by the run already; these " +
                  "columns need the " + what + " sequences again: pass " + option + " FILE, or give the run a file)");
    throw;
  }
  const auto mismatch = [&](const std::string& why) {
    return Error(file + " does not hold the run's " + what + " sequences (" + why + "); pass the files the run read with " +
                 option);
  };
  if (seqs.size() != ids.size())
    throw mismatch(std::to_string(seqs.size()) + " sequences, the run had " + std::to_string(ids.size()));
  for (size_t i = 0; i < ids.size(); ++i)
    if (seqs.ids[i] != ids[i] || (i < lengths.size() && seqs.length(i) != lengths[i]))
      throw mismatch("sequence " + std::to_string(i + 1) + " is " + seqs.ids[i] + ", the run's is " + ids[i]);
  return seqs;
}

// Throws when `file` cannot give the titles: none named, a makedb file (it keeps ids only) or a
// pipe the run has read already.
void check_title_file(const std::string& file, const std::string& option, const char* what) {
  if (file.empty())
    throw Error(std::string("title columns need the ") + what + " FASTA file; the result file names none: pass " +
                option + " FILE.fa");
  if (is_hdf5_file(file))
    throw Error(file + " is a makedb database, which keeps no titles: title columns need the " + what +
                " FASTA file it was made from: pass " + option + " FILE.fa");
  if (read_once(file))
    throw Error(file + " is a pipe or device, read by the run already; title columns need the " + what +
                " FASTA file again: pass " + option + " FILE.fa, or give the run a file");
}

// Throws unless `headers` (of `file`) are the run's records: same count, same ids in order.
void check_headers(const std::vector<std::string>& headers, const std::vector<std::string>& ids,
                   const std::string& file, const std::string& option, const char* what) {
  const auto mismatch = [&](const std::string& why) {
    return Error(file + " does not hold the run's " + what + " sequences (" + why +
                 "); pass the FASTA file the run read with " + option);
  };
  if (headers.size() != ids.size())
    throw mismatch(std::to_string(headers.size()) + " records, the run had " + std::to_string(ids.size()));
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string id = mmseqs_header(headers[i]).substr(0, ids[i].size() + 1);  // "ID" or "ID rest"
    if (id != ids[i] && id != ids[i] + " ")
      throw mismatch("record " + std::to_string(i + 1) + " is " + headers[i] + ", the run's is " + ids[i]);
  }
}

void view_hits(const ViewRequest& r, const std::string& format, std::ostream& out, std::ostream& err) {
  const std::optional<HitColumns> columns = parse_hit_columns(format);
  HitTable t = read_hit_table(r.path, hit_group(r.path));
  if (t.status != "complete") {
    err << "warning: " << r.path << " is from an unfinished run\n";
    // Staging rows are in arrival order; show them in the order a finished run uses.
    std::stable_sort(t.hits.begin(), t.hits.end(), hit_order);
  }
  HitSource source{t};
  SequenceSet queries, targets;
  ScoreMatrix matrix;
  std::vector<std::string> query_headers, target_headers;
  const bool sequences = !columns || columns->needs_sequences();
  const bool query_titles = columns && columns->needs_query_headers();
  const bool target_titles = columns && columns->needs_target_headers();
  // The run's inputs, as the result file names them (view's -q / -d name others).
  h5::File f(r.path, h5::Mode::kReadOnly);
  const std::string query_file = !r.query_path.empty() ? r.query_path : attribute_or(f, "query_file", "");
  const std::string target_file = !r.target_path.empty()                ? r.target_path
                                  : h5::has_attribute(f, "", "database") ? attribute_or(f, "database", "")
                                                                         : attribute_or(f, "target_file", "");
  // Header lines only when a title column asks for them, each file read once (allvsall's square
  // run names one file twice).
  if (query_titles) {
    check_title_file(query_file, "-q", "query");
    query_headers = fasta_header_lines(query_file);
    check_headers(query_headers, t.query_ids, query_file, "-q", "query");
    source.query_headers = &query_headers;
  }
  if (target_titles) {
    check_title_file(target_file, "-d", "target");
    const bool same = query_titles && target_file == query_file;
    if (!same) target_headers = fasta_header_lines(target_file);
    check_headers(same ? query_headers : target_headers, t.target_ids, target_file, "-d", "target");
    source.target_headers = same ? &query_headers : &target_headers;
  }
  if (sequences) {
    queries = run_sequences(query_file, t.query_ids, t.query_lengths, "-q", "query");
    targets = run_sequences(target_file, t.target_ids, t.target_lengths, "-d", "target");
    matrix = load_matrix(attribute_or(f, "matrix", "BLOSUM62"));
    source.queries = &queries;
    source.targets = &targets;
    source.matrix = &matrix;
  }
  if (columns)
    print_hit_columns(*columns, source, out);
  else
    print_pairwise(source, out);
}

}  // namespace

void check_view_format(const std::string& kind, const std::string& format) {
  if (format.empty()) return;
  if (kind == "msv") {
    if (format != "tblout" && format != "tsv")
      throw Error("unknown output format '" + format + "' for msv results (known: tblout, tsv)");
  } else if (kind == "pss") {
    if (format != "tsv") throw Error("unknown output format '" + format + "' for pss results (known: tsv)");
  } else if (format == "tblout") {
    throw Error("--format tblout is for `hpcalign msv` result files");
  } else if (format != "pairwise" && !parse_hit_columns(format)) {  // names an unknown column: throws
    throw Error("unknown output format '" + format + "' for hits (known: blast6, tsv, pairwise, \"6 COL ...\", "
                "\"COL,COL,...\"; tblout is for msv files)");
  }
}

void check_view_inputs(const std::string& kind, const ViewRequest& r) {
  if (kind != "hits" || r.format.empty()) return;
  const std::optional<HitColumns> columns = parse_hit_columns(r.format);
  if (columns && columns->needs_query_headers() && !r.query_path.empty()) check_title_file(r.query_path, "-q", "query");
  if (columns && columns->needs_target_headers() && !r.target_path.empty())
    check_title_file(r.target_path, "-d", "target");
}

int run_view(const ViewRequest& r, std::ostream& out, std::ostream& err) {
  const std::string kind = result_kind(r.path);
  check_view_format(kind, r.format);
  if (kind == "msv" && r.format == "tsv")
    print_msv_tsv(r.path, out, err);
  else if (kind == "msv")
    print_msv_tblout(r.path, r.model_path, r.target_path, out, err);
  else if (kind == "pss")
    print_pss_table(r.path, out);
  else
    view_hits(r, r.format.empty() ? "blast6" : r.format, out, err);
  return 0;
}

}  // namespace hpc
