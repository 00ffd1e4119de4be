#pragma once
// HMMER3 profile HMM text files (formats 3/a .. 3/f, as written by hmmbuild/hmmconvert 3.x),
// plain or gzip, one model or many concatenated (Pfam style). Read as HMMER 3.3.2's reader
// (p7_hmmfile.c, read_asc30hmm) reads them: the same header tags (tags it does not know are
// skipped, as it skips Pfam's BM and SM lines), NAME, LENG and ALPH required, MAXL from 3/c
// on, CONS columns from 3/e on, MM columns from 3/f on, 3/a's three STATS lines (VLAMBDA,
// VMU, FTAU) mapped as HMMER maps them, and the annotation columns (CONS, RF, CS) kept only
// where their header flag says yes (MAP and MM checked, not kept). Probabilities are stored in the
// file as -ln p ('*' = probability 0); we keep them as probabilities converted exactly as
// HMMER's reader does (expf of the negated value, in single precision), so that profiles
// built from them match HMMER bit for bit. Only protein (ALPH amino) models are accepted.
// Duplicate model names are accepted (results refer to models by index).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hpc {

constexpr int kHmmAlphabet = 20;  // HMMER's amino order: ACDEFGHIKLMNPQRSTVWY
constexpr char kHmmResidues[] = "ACDEFGHIKLMNPQRSTVWY";
// Node transition order in the file and here: MM MI MD IM II DM DD.
enum HmmTransition { kTMM = 0, kTMI, kTMD, kTIM, kTII, kTDM, kTDD, kHmmTransitions };

// A Pfam cut-off line (GA, TC or NC): bit-score thresholds per sequence and per domain.
struct HmmCutoff {
  bool set = false;
  float seq = 0, dom = 0;
};

struct HmmModel {
  std::string format;  // "3/f", "3/e", ...
  std::string name, accession, description;
  int length = 0;       // M, the number of match states (LENG)
  int max_length = 0;   // MAXL (0 when absent)
  bool has_rf = false, has_mm = false, has_cons = false, has_cs = false, has_map = false;
  std::string date, command_log;
  int nseq = 0;
  float effn = 0;
  unsigned long checksum = 0;
  // Pfam cut-offs when present; written "GA    25.10 25.10;" (the ';' is optional).
  HmmCutoff ga, tc, nc;
  // STATS LOCAL {MSV,VITERBI} mu lambda and FORWARD tau lambda (3/a: msv and Viterbi mu from
  // VMU, the three lambdas from VLAMBDA, tau from FTAU, as HMMER reads them).
  bool has_stats = false;
  float msv_mu = 0, msv_lambda = 0, vit_mu = 0, vit_lambda = 0, fwd_tau = 0, fwd_lambda = 0;
  bool has_compo = false;
  std::array<float, kHmmAlphabet> compo{};  // average match emission composition
  // Indexed by node 0..M. mat[0] is unused (HMMER convention), t[0] describes the begin node.
  // Only what the profiles and the output read is held (~110 bytes a node; a Pfam-sized file
  // is held whole in every process): the insert emissions (HMMER's profiles score inserts 0)
  // and the MAP and MM columns are read and checked, not kept. The consensus, RF and CS
  // columns are strings of length M+1, index 0 a space, like HMMER's, where their header flag
  // says yes, else empty (formats before 3/e have no consensus column: HMMER computes one, we
  // keep none).
  std::vector<std::array<float, kHmmAlphabet>> mat;
  std::vector<std::array<float, kHmmTransitions>> t;
  std::string consensus, rf, cs;
  // CRC-32 (zlib's) of the parsed numbers as they were held before: mat, the insert
  // emissions, t (M+1 nodes each, in that order); the resume's fingerprint of the models.
  uint32_t numbers_crc = 0;
  std::string source;  // file it came from
  long first_line = 0; // line of its HMMER3 header, for messages
};

// Reads every model in `path`. Throws InputError(file, line, ...) for anything malformed,
// and for nucleic-acid models ("protein models only"); the first error in file order. An empty
// file is an error. The text is parsed `chunk_bytes` at a time (whole models), never held whole,
// on `threads` threads beside the reading one (0: the job's cores, at most 16).
std::vector<HmmModel> read_hmm_file(const std::string& path, size_t chunk_bytes = size_t(16) << 20, size_t threads = 0);
// Parses models from text already in memory (`name` is used in messages).
std::vector<HmmModel> parse_hmm_text(const std::string& text, const std::string& name);

}  // namespace hpc
