#include "src/cli/options.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "src/core/progress.hpp"

namespace hpc::cli {

int usage_error(const po::error& e, const std::string& usage) {
  std::cerr << "hpcalign: " << e.what() << "\n" << usage << "\n(--help for all options)\n";
  return 2;
}

int parse_or_help(const std::vector<std::string>& args, const std::string& usage, const po::options_description& opts,
                  const po::positional_options_description* positional, po::variables_map& vm,
                  const po::options_description* hidden) {
  po::options_description all;
  all.add(opts);
  all.add_options()("help,h", "show this help");
  po::options_description parsed;
  parsed.add(all);
  if (hidden) parsed.add(*hidden);
  try {
    auto parser = po::command_line_parser(args).options(parsed);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n" << all << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(e, usage);
  }
  return -1;
}

std::string checkpoint_usage(const std::string& sbatch_template) {
  return "Checkpoints: every finished tile is on disk at once; SIGTERM or SIGUSR1 finishes the tiles in\n"
         "flight and exits 0 with the file resumable; --resume continues it (" + sbatch_template + ").";
}

void ScoringGroup::add_to(po::options_description& opts) {
  po::options_description group("scoring");
  group.add_options()
    ("matrix", po::value(&matrix_)->default_value(matrix_),
     "BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI-format matrix file")
    ("gapopen", po::value(&gap_open_)->default_value(gap_open_),
     "gap open cost (BLAST convention: a gap of length k costs open + k*extend)")
    ("gapextend", po::value(&gap_extend_)->default_value(gap_extend_), "gap extension cost per residue");
  if (lambda_)
    group.add_options()
      ("lambda", po::value(&lambda_value_), "Karlin-Altschul lambda (with --K) for matrix/gap pairs without published values")
      ("K", po::value(&K_value_), "Karlin-Altschul K (with --lambda)");
  opts.add(group);
}

void ScoringGroup::apply(const po::variables_map& vm) {
  // A gap of length k costs open + k*extend: extend 0 would make gaps free to lengthen.
  if (gap_open_ < 0 || gap_extend_ < 1) throw po::error("gap costs must satisfy --gapopen >= 0 and --gapextend >= 1");
  if (!lambda_) return;
  if (vm.count("lambda") != vm.count("K")) throw po::error("--lambda and --K go together");
  if (!vm.count("lambda")) return;
  if (!(lambda_value_ > 0) || !(K_value_ > 0)) throw po::error("--lambda and --K must be positive");
  *lambda_ = lambda_value_;
  *K_ = K_value_;
}

void RunGroup::add_to(po::options_description& opts) {
  po::options_description group("run");
  group.add_options()
    ("backend", po::value(&backend_)->default_value(backend_), "auto (the GPUs when one is visible, else the CPU), cpu or cuda")
    ("threads", po::value(&threads_)->default_value(threads_), "CPU threads (0: the CPUs this job may use (affinity mask, cgroup quota or OMP_NUM_THREADS), shared among local ranks)")
    ("progress-interval", po::value(&progress_interval_)->default_value(progress_interval_),
     "seconds between progress lines on stderr when it is not a terminal (batch jobs; 0: none)")
    ("verbose,v", po::bool_switch(&verbose_), "log the plan (tile sizes, devices)");
  add_quiet(group, quiet_);
  group.add_options()
    ("resume", po::bool_switch(&resume_),
     "continue the unfinished run in -o (same inputs and options; refused otherwise); starts afresh when -o does "
     "not exist");
  opts.add(group);
}

void RunGroup::apply() const { Progress::set_default_batch_interval(progress_interval_); }

std::string blast_residue_usage() {
  return "Residues (the matrix's letters): the 20 amino acids, B, Z, X and '*' (stop) score from the\n"
         "matrix; U, O and J score as X (a warning counts them); a '*' ending a sequence is dropped; lower\n"
         "case is upper case; any other character is an error naming file and line. blastp 2.12 agrees\n"
         "except on U (it scores U as C), J (a row of its own) and a final '*' (kept).\n";
}

std::string hmmer_residue_usage() {
  return "Residues (HMMER's rules, as hmmsearch 3.3.2 reads targets): U scores as C and O as K; B, J, Z\n"
         "and X score as the background-weighted mean over D/N, I/L, E/Q and all 20; '*' (also a final\n"
         "one, counted in the length) and '.', '_', '~' are HMMER's nonresidue (no match state emits\n"
         "them); lower case is upper case; '-' and any other character are errors naming file and line.\n"
         "A makedb file holds BLAST's reading (U/O/J as X): give the FASTA file for HMMER's.\n";
}

void add_permutation_options(po::options_description& opts, uint32_t& permutations, uint64_t& seed) {
  opts.add_options()
    ("permutations", po::value(&permutations)->default_value(permutations), "N: permuted copies of each subject (>= 10; ~1000 for a fit)")
    ("seed", po::value(&seed)->default_value(seed), "RNG seed: permutation k of subject s is a pure function of (seed, s, k)");
}

void add_query_file(po::options_description& opts, std::string& path) {
  opts.add_options()("query,q", po::value(&path)->required(), "query FASTA (plain or .gz)");
}

void add_database_file(po::options_description& opts, std::string& path) {
  opts.add_options()("db,d", po::value(&path)->required(), "database: FASTA (plain or .gz) or a `hpcalign makedb` file");
}

void add_force(po::options_description& opts, bool& force) {
  opts.add_options()("force", po::bool_switch(&force),
                     "overwrite an existing complete output (never an input, never an unfinished run)");
}

void add_quiet(po::options_description& opts, bool& quiet) {
  opts.add_options()("quiet", po::bool_switch(&quiet), "no progress, warnings or summary on stderr");
}

void add_filter_thresholds(po::options_description& opts, double& F1, double& F2) {
  opts.add_options()
    ("F1", po::value(&F1)->default_value(F1), "MSV and bias filter threshold: promote targets with P <= F1 (hmmsearch --F1)")
    ("F2", po::value(&F2)->default_value(F2), "Viterbi filter threshold: promote targets with P <= F2 (hmmsearch --F2)");
}

void HmmsearchGroup::add_to(po::options_description& opts) {
  hmm::ReportThresholds& t = o_.thresholds;
  hmm::PipelineSettings& p = o_.pipeline;
  const std::string prog = o_.scan ? "hmmscan" : "hmmsearch";  // the group serves both
  const std::string targets = o_.scan ? "models" : "sequences";
  po::options_description out(prog + " output (HMMER 3.3.2's names)");
  out.add_options()
    (",o", po::value(&o_.report_path), ("main output to FILE, not stdout: " + prog + "'s report (per query its hit "
     "list, domain tables and alignments, pipeline statistics)").c_str())
    ("tblout", po::value(&o_.tblout_path), (prog + "'s table of per-sequence hits to FILE (identical to " + prog +
     "'s but for its trailing '# Program:' comment block)").c_str())
    ("domtblout", po::value(&o_.domtblout_path), (prog + "'s table of per-domain hits to FILE (likewise)").c_str())
    ("pfamtblout", po::value(&o_.pfamtblout_path), (prog + "'s Pfam-format table of hits and domains to FILE "
     "(likewise)").c_str())
    ("acc", po::bool_switch(&o_.style.accessions), o_.scan ? "prefer accessions over names in the main output (the "
     "models'; FASTA queries have none)" : "prefer accessions over names in the main output (the model's; targets "
     "have none)")
    ("noali", po::bool_switch(&noali_), "no alignments in the main output")
    ("notextw", po::bool_switch(&notextw_), "no limit on the main output's line width")
    ("textw", po::value(&textw_)->default_value(textw_), "line width of the main output (>= 120)")
    ("h5", po::value(&o_.run.out_path), "HDF5 result (targets, domains, pipeline counts); needed for --resume; "
     "without it the run's HDF5 file is temporary");
  po::options_description thr(prog + " reporting and inclusion thresholds");
  thr.add_options()
    (",E", po::value(&t.E)->default_value(t.E), ("report " + targets + " <= this E-value").c_str())
    (",T", po::value(&t.T), ("report " + targets + " >= this score (bits) instead").c_str())
    ("domE", po::value(&t.domE)->default_value(t.domE), "report domains <= this E-value (conditional E-value)")
    ("domT", po::value(&t.domT), "report domains >= this score (bits) instead")
    ("incE", po::value(&t.incE)->default_value(t.incE), ("include " + targets + " <= this E-value").c_str())
    ("incT", po::value(&t.incT), ("include " + targets + " >= this score (bits) instead").c_str())
    ("incdomE", po::value(&t.incdomE)->default_value(t.incdomE), "include domains <= this E-value")
    ("incdomT", po::value(&t.incdomT), "include domains >= this score (bits) instead")
    ("cut_ga", po::bool_switch(&cut_ga_), "the models' GA gathering cut-offs set the thresholds")
    ("cut_tc", po::bool_switch(&cut_tc_), "the models' TC trusted cut-offs set the thresholds")
    ("cut_nc", po::bool_switch(&cut_nc_), "the models' NC noise cut-offs set the thresholds")
    (",Z", po::value(&Z_), "number of comparisons for E-values (default: the number of targets)")
    ("domZ", po::value(&t.domZ), "number of significant sequences for domain E-values (default: those reported)");
  po::options_description acc(prog + " filters (acceleration heuristics) and domain definition");
  acc.add_options()
    ("max", po::bool_switch(&max_), "every filter off (F1 = F2 = F3 = 1, no bias filter): Forward and Backward on all")
    ("F3", po::value(&p.F3)->default_value(p.F3), "Forward filter threshold: promote hits with P <= F3")
    ("nobias", po::bool_switch(&nobias_), "no composition bias filter")
    ("nonull2", po::bool_switch(&nonull2_), "no null2 score corrections")
    ("seed", po::value(&seed_)->default_value(seed_), "random number seed of domain definition's sampling "
     "(hmmsearch's 0, an arbitrary seed, is refused: results would not repeat)")
    ("cpu", po::value(&cpu_), ("worker threads (" + prog + "'s name for --threads)").c_str());
  // hmmsearch's own: hmmscan has no -A; the sequence file's format is --tformat in hmmsearch
  // (the targets), --qformat in hmmscan (the queries).
  if (!o_.scan) {
    out.add_options()
      (",A", po::value(&o_.msa_path), "save the multiple alignment of all included domains to FILE (Stockholm, as "
       "hmmsearch writes it)");
    acc.add_options()
      ("tformat", po::value(&o_.tformat), "assert the target file's format: fasta (hmmsearch's other formats are not "
       "read)");
  } else {
    acc.add_options()
      ("qformat", po::value(&o_.tformat), "assert the query file's format: fasta (hmmscan's other formats are not "
       "read)");
  }
  add_filter_thresholds(acc, p.F1, p.F2);
  opts.add(out).add(thr).add(acc);
}

namespace {

bool given(const po::variables_map& vm, const char* name) { return vm.count(name) && !vm[name].defaulted(); }
std::string option_text(const char* name) { return std::string(name[0] == '-' ? "" : "--") + name; }

// Easel's sequence file formats (esl_sqio_EncodeFormat's names) hmmsearch --tformat accepts.
bool is_easel_format(const std::string& f) {
  for (const char* known : {"fasta", "embl", "genbank", "ddbj", "uniprot", "daemon", "hmmpgmd", "fmindex", "stockholm",
                            "pfam", "a2m", "afa", "clustal", "clustallike", "phylip", "phylips", "psiblast", "selex"})
    if (f == known) return true;
  return false;
}

// An option hmmsearch's header echoes: given, and not at hmmsearch's default (Easel compares the
// text, so "-E 10" is echoed and "-E 10.0" is not; we compare the value: neither is).
bool echoed(const std::string& name, const po::variable_value& v) {
  static const std::pair<const char*, double> defaults[] = {{"-E", 10.0},   {"domE", 10.0}, {"incE", 0.01},
                                                            {"incdomE", 0.01}, {"textw", 120}, {"F1", 0.02},
                                                            {"F2", 1e-3},   {"F3", 1e-5},   {"seed", 42}};
  if (v.defaulted()) return false;
  for (const auto& [option, value] : defaults) {
    if (name != option) continue;
    const boost::any& a = v.value();
    if (const double* d = boost::any_cast<double>(&a)) return *d != value;
    if (const int* i = boost::any_cast<int>(&a)) return *i != value;
    if (const int64_t* i = boost::any_cast<int64_t>(&a)) return double(*i) != value;
  }
  return true;
}

}  // namespace

// -A --acc --noali --textw --notextw --tformat/--qformat, and the list of options given (the report's header).
void HmmsearchGroup::apply_output_options(const po::variables_map& vm) {
  if (notextw_ && given(vm, "textw")) throw po::error("--notextw and --textw exclude each other");
  if (textw_ < 120) throw po::error("--textw must be >= 120");
  o_.style.textw = notextw_ ? 0 : textw_;
  o_.style.alignments = !noali_;
  if (!o_.tformat.empty()) {
    const std::string option = o_.scan ? "--qformat" : "--tformat";
    std::string f = o_.tformat;
    for (char& c : f) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (!is_easel_format(f)) throw po::error(option + " " + o_.tformat + ": not a recognized sequence file format");
    if (f != "fasta")
      throw po::error(option + " " + o_.tformat + ": only FASTA " + (o_.scan ? "queries" : "targets") + " are read (" +
                      option + " fasta)");
  }
  for (const auto& [name, value] : vm)
    if (echoed(name, value)) o_.options_given.insert(name);
}

void HmmsearchGroup::apply(const po::variables_map& vm) {
  hmm::ReportThresholds& t = o_.thresholds;
  hmm::PipelineSettings& p = o_.pipeline;
  const int cuts = int(cut_ga_) + int(cut_tc_) + int(cut_nc_);
  if (cuts > 1) throw po::error("--cut_ga, --cut_tc and --cut_nc exclude each other");
  if (cuts)
    for (const char* o : {"-E", "-T", "domE", "domT", "incE", "incT", "incdomE", "incdomT"})
      if (!vm[o].defaulted() && vm.count(o))
        throw po::error(std::string(o[0] == '-' ? "" : "--") + o + " and --cut_ga/--cut_tc/--cut_nc exclude each other");
  o_.cutoff = cut_ga_ ? "GA" : cut_tc_ ? "TC" : cut_nc_ ? "NC" : "";
  for (const char* o : {"-E", "domE", "incE", "incdomE"})
    if (!(vm[o].as<double>() > 0)) throw po::error(std::string("the ") + o + " E-value threshold must be > 0");
  for (const auto& [e, bits] : {std::pair{"-E", "-T"}, {"domE", "domT"}, {"incE", "incT"}, {"incdomE", "incdomT"}})
    if (given(vm, e) && given(vm, bits)) throw po::error(option_text(e) + " and " + option_text(bits) + " exclude each other");
  t.by_E = !vm.count("-T");
  t.dom_by_E = !vm.count("domT");
  t.inc_by_E = !vm.count("incT");
  t.incdom_by_E = !vm.count("incdomT");
  apply_output_options(vm);
  if (vm.count("-Z")) {
    if (!(Z_ > 0)) throw po::error("-Z must be > 0");
    o_.Z = Z_;
    t.Z = Z_;
  }
  if (vm.count("domZ") && !(t.domZ > 0)) throw po::error("--domZ must be > 0");
  if (max_)
    for (const char* o : {"F1", "F2", "F3"})
      if (!vm[o].defaulted()) throw po::error(std::string("--max and --") + o + " exclude each other");
  if (!(p.F1 > 0 && p.F1 <= 1) || !(p.F2 > 0 && p.F2 <= 1) || !(p.F3 > 0 && p.F3 <= 1))
    throw po::error("--F1, --F2 and --F3 must be in (0, 1]");
  p.bias_filter = !nobias_;
  if (max_) p = hmm::PipelineSettings::max_sensitivity(p);
  p.null2 = !nonull2_;
  if (seed_ <= 0 || seed_ > int64_t(UINT32_MAX))
    throw po::error("--seed must be in 1.." + std::to_string(UINT32_MAX) + " (0, an arbitrary seed, is not offered)");
  p.seed = uint32_t(seed_);
  if (vm.count("cpu")) {
    if (!vm["threads"].defaulted()) throw po::error("--cpu and --threads are the same option: give one");
    if (cpu_ < 0) throw po::error("--cpu must be >= 0");
    o_.run.threads = std::max(1, cpu_);  // hmmsearch --cpu 0: no worker threads, one thread works
  }
}

}  // namespace hpc::cli
