#include "src/workloads/hmmsearch_text.hpp"

#include <algorithm>

#include "src/core/printf_string.hpp"
#include "src/hmm/hmmsearch_report.hpp"

namespace hpc {
namespace {

constexpr const char* kRule = "# - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n";

// hmmsearch's output_header lines for the options given, in its order ("%g" as it prints them).
void write_option_lines(std::ostream& out, const HmmsearchOptions& o) {
  const hmm::ReportThresholds& t = o.thresholds;
  const hmm::PipelineSettings& p = o.pipeline;
  auto given = [&](const char* name) { return o.options_given.count(name) > 0; };
  auto line = [&](const char* name, const std::string& text) {
    if (given(name)) out << text << "\n";
  };
  line("-o", "# output directed to file:         " + o.report_path);
  line("-A", "# MSA of all hits saved to file:   " + o.msa_path);
  line("tblout", "# per-seq hits tabular output:     " + o.tblout_path);
  line("domtblout", "# per-dom hits tabular output:     " + o.domtblout_path);
  line("pfamtblout", "# pfam-style tabular hit output:   " + o.pfamtblout_path);
  line("acc", "# prefer accessions over names:    yes");
  line("noali", "# show alignments in output:       no");
  line("notextw", "# max ASCII text line length:      unlimited");
  line("textw", printf_string("# max ASCII text line length:      %d", o.style.textw));
  // hmmscan's targets are profiles: its target thresholds are named so
  auto target = [&](const char* what) {
    return printf_string("%-35s", printf_string("# %s %s threshold:", o.scan ? "profile" : "sequence", what).c_str());
  };
  line("-E", target("reporting") + printf_string("E-value <= %g", t.E));
  line("-T", target("reporting") + printf_string("score >= %g", t.T));
  line("domE", printf_string("# domain reporting threshold:      E-value <= %g", t.domE));
  line("domT", printf_string("# domain reporting threshold:      score >= %g", t.domT));
  line("incE", target("inclusion") + printf_string("E-value <= %g", t.incE));
  line("incT", target("inclusion") + printf_string("score >= %g", t.incT));
  line("incdomE", printf_string("# domain inclusion threshold:      E-value <= %g", t.incdomE));
  line("incdomT", printf_string("# domain inclusion threshold:      score >= %g", t.incdomT));
  line("cut_ga", "# model-specific thresholding:     GA cutoffs");
  line("cut_nc", "# model-specific thresholding:     NC cutoffs");
  line("cut_tc", "# model-specific thresholding:     TC cutoffs");
  line("max", "# Max sensitivity mode:            on [all heuristic filters off]");
  line("F1", printf_string("# MSV filter P threshold:       <= %g", p.F1));
  line("F2", printf_string("# Vit filter P threshold:       <= %g", p.F2));
  line("F3", printf_string("# Fwd filter P threshold:       <= %g", p.F3));
  line("nobias", "# biased composition HMM filter:   off");
  line("nonull2", "# null2 bias corrections:          off");
  line("-Z", printf_string("# sequence search space set to:    %.0f", o.Z.value_or(0.0)));
  line("domZ", printf_string("# domain search space set to:      %.0f", t.domZ));
  line("seed", printf_string("# random number seed set to:       %u", p.seed));
  line("tformat", "# targ <seqfile> format asserted:  " + o.tformat);
  line("qformat", "# input seqfile format asserted:   " + o.tformat);
  line("cpu", printf_string("# number of worker threads:        %d", o.run.threads));
}

}  // namespace

void write_report_header(std::ostream& out, const HmmsearchOptions& opt) {
  if (opt.scan) {
    out << "# hpcalign hmmscan :: search sequence(s) against a profile database\n"
        << "# HMMER 3.3.2's hmmscan pipeline and report, as hpcalign computes them\n"
        << kRule;
    out << "# query sequence file:             " << opt.db_path << "\n";
    out << "# target HMM database:             " << opt.model_path << "\n";
  } else {
    out << "# hpcalign hmmsearch :: search profile(s) against a sequence database\n"
        << "# HMMER 3.3.2's hmmsearch pipeline and report, as hpcalign computes them\n"
        << kRule;
    out << "# query HMM file:                  " << opt.model_path << "\n";
    out << "# target sequence database:        " << opt.db_path << "\n";
  }
  write_option_lines(out, opt);
  out << kRule << "\n";
}

void write_query_report(std::ostream& out, const hmm::ReportQuery& query, const HmmCounts& c, const hmm::HitList& list,
                        const HmmsearchOptions& opt) {
  hmm::write_query_header(out, query);
  hmm::write_target_list(out, query, list, opt.style);
  out << "\n\n";
  hmm::write_domain_annotation(out, query, list, opt.style);
  uint64_t nodes = 0;  // the query model's, or (hmmscan) every target model's
  if (query.scan())
    for (const HmmModel& m : *query.models) nodes += uint64_t(m.length);
  else
    nodes = uint64_t(query.length);
  write_statistics(out, c, nodes, list, opt);
}

// p7_pli_Statistics without the timing lines; the search or the scan mode's first two lines.
void write_statistics(std::ostream& out, const HmmCounts& c, uint64_t nodes, const hmm::HitList& list,
                      const HmmsearchOptions& opt) {
  auto put = [&](const char* label, const std::string& value) { out << printf_string("%-29s", label) << value << "\n"; };
  out << "\n\nInternal pipeline statistics summary:\n-------------------------------------\n";
  const double n = double(c.targets);
  const hmm::PipelineSettings& p = opt.pipeline;
  using ull = unsigned long long;
  if (opt.scan) {
    put("Query sequence(s):", printf_string("%15d  (%llu residues searched)", 1, ull(c.residues)));
    put("Target model(s):", printf_string("%15llu  (%llu nodes)", ull(c.targets), ull(nodes)));
  } else {
    put("Query model(s):", printf_string("%15d  (%llu nodes)", 1, ull(nodes)));
    put("Target sequences:", printf_string("%15llu  (%llu residues searched)", ull(c.targets), ull(c.residues)));
  }
  auto passed = [&](const char* label, uint64_t k, double F) {  // the fraction: of the targets
    put(label, printf_string("%15llu  (%.6g); expected %.1f (%.6g)", ull(k), double(k) / std::max(n, 1.0), F * n, F));
  };
  passed("Passed MSV filter:", c.past_msv, p.F1);
  passed("Passed bias filter:", c.past_bias, p.F1);  // (under --nobias: as MSV's)
  passed("Passed Vit filter:", c.past_vit, p.F2);
  passed("Passed Fwd filter:", c.past_fwd, p.F3);
  put("Initial search space (Z):", printf_string("%15.0f  %s", list.Z,
                                                 opt.Z ? "[as set by --Z on cmdline]" : "[actual number of targets]"));
  put("Domain search space  (domZ):",
      printf_string("%15.0f  %s", list.domZ,
                    opt.thresholds.domZ > 0 ? "[as set by --domZ on cmdline]"
                                            : "[number of targets reported over threshold]"));
  out << "//\n";
}

}  // namespace hpc
