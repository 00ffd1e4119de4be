#include "src/workloads/view.hpp"

#include <algorithm>
#include <ostream>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "io/matrix.hpp"
#include "src/core/error.hpp"
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

// One of the run's inputs, read once: its sequences (ids alone unless `residues`) and, when
// `titles`, its header lines.
struct RunInput {
  SequenceSet seqs;
  std::vector<std::string> headers;
};

RunInput read_run_input(const std::string& file, bool residues, bool titles, const std::string& option,
                        const char* what) {
  if (file.empty())
    throw Error(std::string("these columns need the ") + what + " sequences; the result file names no " + what +
                " file: pass " + option);
  RunInput in;
  try {
    if (residues)
      in.seqs = load_database(file, ResidueRules::kBlast, nullptr, titles ? &in.headers : nullptr).seqs;
    else  // title columns alone: a FASTA file (check_title_file)
      in.seqs = read_fasta_headers(file, &in.headers);
  } catch (const InputError& e) {
    if (is_read_once(file))  // search -q /dev/stdin: the run has read it once
      throw Error(std::string(e.what()) + " (" + file + " is a pipe or device, read by the run already; these " +
                  "columns need the " + what + " sequences again: pass " + option + " FILE, or give the run a file)");
    throw;
  }
  return in;
}

// Throws unless `in` (read from `file`) holds the run's records: same count, ids in order and,
// given `lengths` (sequence columns), lengths. Where title columns asked, a record is named by its
// header line.
void check_run_input(const RunInput& in, const std::vector<std::string>& ids, const std::vector<uint32_t>* lengths,
                     bool titles, const std::string& file, const std::string& option, const char* what) {
  const auto mismatch = [&](const std::string& why, bool fasta) {
    return Error(file + " does not hold the run's " + what + " sequences (" + why + "); pass the " +
                 (fasta ? "FASTA file" : "files") + " the run read with " + option);
  };
  const SequenceSet& seqs = in.seqs;
  if (seqs.size() != ids.size())
    throw mismatch(std::to_string(seqs.size()) + (titles ? " records" : " sequences") + ", the run had " +
                       std::to_string(ids.size()),
                   titles);
  const auto sequence = [&](size_t i) { return "sequence " + std::to_string(i + 1) + " is " + seqs.ids[i]; };
  for (size_t i = 0; i < ids.size(); ++i)
    if (seqs.ids[i] != ids[i])
      throw mismatch((titles ? "record " + std::to_string(i + 1) + " is " + in.headers[i] : sequence(i)) +
                         ", the run's is " + ids[i],
                     titles);
  for (size_t i = 0; lengths && i < std::min(ids.size(), lengths->size()); ++i)
    if (seqs.length(i) != (*lengths)[i]) throw mismatch(sequence(i) + ", the run's is " + ids[i], false);
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
  if (is_read_once(file))
    throw Error(file + " is a pipe or device, read by the run already; title columns need the " + what +
                " FASTA file again: pass " + option + " FILE.fa, or give the run a file");
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
  ScoreMatrix matrix;
  const bool sequences = !columns || columns->needs_sequences();
  const bool query_titles = columns && columns->needs_query_headers();
  const bool target_titles = columns && columns->needs_target_headers();
  // The run's inputs, as the result file names them (view's -q / -d name others).
  h5::File f(r.path, h5::Mode::kReadOnly);
  const std::string query_file = !r.query_path.empty() ? r.query_path : attribute_or(f, "query_file", "");
  const std::string target_file = !r.target_path.empty()                ? r.target_path
                                  : h5::has_attribute(f, "", "database") ? attribute_or(f, "database", "")
                                                                         : attribute_or(f, "target_file", "");
  if (query_titles) check_title_file(query_file, "-q", "query");
  if (target_titles) check_title_file(target_file, "-d", "target");
  // Each file read once, for its sequences and header lines together (allvsall's square run
  // names one file twice); header lines only when a title column asks for them.
  const bool read_queries = sequences || query_titles, read_targets = sequences || target_titles;
  const bool same = read_queries && read_targets && target_file == query_file;
  RunInput query_input, target_input;
  if (read_queries) {
    query_input = read_run_input(query_file, sequences, query_titles || (same && target_titles), "-q", "query");
    check_run_input(query_input, t.query_ids, sequences ? &t.query_lengths : nullptr, query_titles, query_file,
                    "-q", "query");
  }
  if (read_targets && !same) target_input = read_run_input(target_file, sequences, target_titles, "-d", "target");
  const RunInput& targets = same ? query_input : target_input;
  if (read_targets)
    check_run_input(targets, t.target_ids, sequences ? &t.target_lengths : nullptr, target_titles, target_file,
                    "-d", "target");
  if (query_titles) source.query_headers = &query_input.headers;
  if (target_titles) source.target_headers = &targets.headers;
  if (sequences) {
    matrix = load_matrix(attribute_or(f, "matrix", "BLOSUM62"));
    source.queries = &query_input.seqs;
    source.targets = &targets.seqs;
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
