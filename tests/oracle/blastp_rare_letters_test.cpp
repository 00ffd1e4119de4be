// How blastp (BLAST+ 2.12) reads the letters outside the 20 amino acids, against the residue
// rules search, allvsall and pss claim as BLAST's (src/core/alphabet.hpp), and local scores on
// sequences rich in those letters. blastp runs with -comp_based_stats 0 -seg no and BLOSUM62
// 11/1; its BLOSUM62 is BLAST+'s built-in table (X -1 everywhere but X/'*' -4, B/N 4, Z/Q 4,
// B/Z 0, Z/W -2), which our built-in BLOSUM62 equals (the probes below check every B/Z/X cell).
//
// What blastp 2.12 does (probes WWWW a WWWW vs WWWW b WWWW score 8 x 11 + s(a, b)):
//   O, o        as X (blastp warns "O characters replaced by X") -- as ours;
//   '*' inside  its own row: -4 against everything, '*'/'*' 1 -- as ours;
//   B, Z, X     BLAST+'s built-in rows -- as ours; lower case as upper case -- as ours;
//   U, u        as C (U/C 9, U/U 9, the whole C row; no warning) -- ours: as X;
//   J, j        a row of its own (J/I 3, J/L 3, J/M 2, J/V 2, J/J 3, ...) -- ours: as X;
//   final '*'   kept (counted in qlen/slen, scored: '*'/'*' +1), by blastp's FASTA reading and
//               by makeblastdb alike -- ours: dropped.
// The tests below assert the agreements, and assert blastp's U (as C) and final '*' (kept) on
// whole sequences, so that they fail if either program changes its reading.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "oracle/blastp_support.hpp"
#include "oracle/emboss_support.hpp"
#include "src/align/reference.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using namespace hpc::test;
using Texts = std::vector<std::string>;
using BestScores = std::map<std::pair<uint32_t, uint32_t>, int32_t>;  // (query, subject) -> best raw score

const std::string kBlastOptions =
    " -matrix BLOSUM62 -gapopen 11 -gapextend 1 -comp_based_stats 0 -seg no -evalue 1e6 -max_target_seqs 5000";

void write_texts(const std::string& path, const Texts& texts, const std::string& prefix) {
  std::ofstream out(path);
  for (size_t k = 0; k < texts.size(); ++k) out << ">" << prefix << k << "\n" << texts[k] << "\n";
}

// blastp's best raw score of every pair it reports (queries q<k>, database sequences s<k>).
BestScores run_blastp(const std::string& dir, const Texts& queries, const Texts& subjects) {
  write_texts(dir + "/q.fa", queries, "q");
  write_texts(dir + "/s.fa", subjects, "s");
  run_ok("makeblastdb -in " + dir + "/s.fa -dbtype prot -out " + dir + "/db");
  std::istringstream out(run_ok("blastp -query " + dir + "/q.fa -db " + dir + "/db" + kBlastOptions +
                                " -num_threads 2 -outfmt '6 qseqid sseqid score'"));
  BestScores best;
  for (std::string line; std::getline(out, line);) {
    const auto f = split_tabs(line);
    if (f.size() != 3 || f[0][0] != 'q') continue;  // blastp's warnings share the stream
    int32_t& b = best[{uint32_t(std::stoul(f[0].substr(1))), uint32_t(std::stoul(f[1].substr(1)))}];
    b = std::max(b, std::stoi(f[2]));
  }
  EXPECT_FALSE(best.empty()) << "no blastp results (blastp, makeblastdb: package ncbi-blast+)";
  return best;
}

// Sequences as our FASTA reader (BLAST's rules as we claim them) encodes them, after `edit`.
SequenceSet read_as_ours(const std::string& path, const Texts& texts, const std::function<char(char)>& edit) {
  Texts edited = texts;
  for (std::string& s : edited) std::transform(s.begin(), s.end(), s.begin(), edit);
  write_texts(path, edited, "x");
  return read_fasta(path);
}

char unchanged(char c) { return c; }
char u_as_c(char c) { return c == 'U' || c == 'u' ? 'C' : c; }

TEST(BlastpRareLetters, ProbeScoresPerLetter) {
  const std::string subjects = "ARNDCQEGHILKMFPSTWYVBZXUOJ*", queries = subjects + "uojbzx";
  Texts q, s;
  for (char c : queries) q.push_back(std::string("WWWW") + c + "WWWW");
  for (char c : subjects) s.push_back(std::string("WWWW") + c + "WWWW");
  const BestScores best = run_blastp(temp_dir(), q, s);
  ASSERT_EQ(best.size(), q.size() * s.size());
  const ScoreMatrix ours = load_matrix("BLOSUM62");
  auto ours_of = [&](char a, char b) { return ours(encode_residue(a), encode_residue(b)); };
  std::string j_row;
  size_t agreed = 0, j_differs = 0;
  for (const auto& [pair, score] : best) {
    const char a = char(std::toupper(queries[pair.first])), b = subjects[pair.second];
    const int theirs = score - 88;  // every s >= -4 keeps the full-length alignment optimal
    if (a == 'J' || b == 'J') {  // blastp's own J row: not X's, as ours
      if (queries[pair.first] == 'J' && b != 'J') j_row += std::string(" ") + b + "=" + std::to_string(theirs);
      j_differs += a == 'J' && b != 'J' && theirs != ours_of(a, b);
    } else if (a == 'U' || b == 'U') {  // blastp: U as C; ours: U as X
      EXPECT_EQ(theirs, ours_of(a == 'U' ? 'C' : a, b == 'U' ? 'C' : b)) << a << "/" << b << ": U not read as C";
    } else {
      EXPECT_EQ(theirs, ours_of(a, b)) << a << "/" << b << " (case of the query letter aside)";
      ++agreed;
    }
  }
  EXPECT_GT(j_differs, 10u) << "blastp's J row now looks like X's:" << j_row;
  EXPECT_NE(ours_of('U', 'C'), ours_of('C', 'C')) << "search now reads U as C: update this test's header";
  std::cout << "[ blastp   ] " << agreed << " letter pairs scored as ours (O as X, '*', B, Z, X, lower case); "
            << "U scored as C; J's row (ours: X's):" << j_row << "\n";
}

// Four Pfam families of balifam2000.fa: the first member of each is a query, the next 30 the
// library. Every 7th residue becomes one of the letters below in turn (never the last one:
// a final '*' is placed deliberately), every 11th is written in lower case. Half the
// sequences (two queries, every other library member) carry U's and end in '*'; the other
// half have neither.
struct RichSequences {
  Texts queries, library;
  std::vector<bool> query_u, library_u;
};

RichSequences rich_sequences() {
  const std::string path = data_path("balifam2000.fa");
  const SequenceSet set = read_fasta(path);
  const std::vector<std::string> fam = families(path);
  RichSequences r;
  size_t family = 0;
  auto sprinkle = [](std::string s, size_t salt, bool with_u) {
    const std::string letters = with_u ? "UO*BZXuo*bzx" : "O*BZXo*bzx";
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      if ((i + salt) % 7 == 0) s[i] = letters[(i / 7 + salt) % letters.size()];
      else if ((i + salt) % 11 == 0) s[i] = char(std::tolower(static_cast<unsigned char>(s[i])));
    }
    return with_u ? s + "*" : s;
  };
  for (const char* wanted : {"PF00202", "PF00051", "PF00505", "PF00084"}) {
    size_t members = 0;
    for (uint32_t k = 0; k < set.size() && members < 31; ++k) {
      if (fam[k] != wanted) continue;
      const bool with_u = (members + family) % 2 == 1, query = members++ == 0;
      const std::string text = sprinkle(decode(set.view(k).data, set.length(k)), k, with_u);
      (query ? r.queries : r.library).push_back(text);
      (query ? r.query_u : r.library_u).push_back(with_u);
    }
    ++family;
  }
  return r;
}

BestScores local_scores(const SequenceSet& q, const SequenceSet& t) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  BestScores s;
  for (uint32_t i = 0; i < q.size(); ++i)
    for (uint32_t j = 0; j < t.size(); ++j)
      s[{i, j}] = reference_score(AlignMode::Local, q.view(i), t.view(j), m, {11, 1});
  return s;
}

// blastp's reading as a SequenceSet: U as C, and a final '*' kept (our reader drops it).
SequenceSet blastp_reading(const std::string& path, const Texts& texts) {
  const SequenceSet read = read_as_ours(path, texts, u_as_c);
  SequenceSet out;
  for (size_t k = 0; k < read.size(); ++k) {
    std::vector<uint8_t> codes(read.view(k).data, read.view(k).data + read.length(k));
    if (texts[k].back() == '*') codes.push_back(kCodeStop);
    out.add(read.ids[k], codes.data(), codes.size());
  }
  return out;
}

TEST(BlastpRareLetters, LocalScoresOnSequencesRichInRareLetters) {
  const std::string dir = temp_dir();
  const RichSequences r = rich_sequences();
  ASSERT_EQ(r.queries.size(), 4u);
  ASSERT_EQ(r.library.size(), 120u);
  const BestScores blastp = run_blastp(dir, r.queries, r.library);
  const BestScores ours = local_scores(read_as_ours(dir + "/oq.fa", r.queries, unchanged),
                                       read_as_ours(dir + "/ol.fa", r.library, unchanged));
  const BestScores model = local_scores(blastp_reading(dir + "/bq.fa", r.queries),
                                        blastp_reading(dir + "/bl.fa", r.library));
  // Other readings a program might have used: each must change some score blastp reached, or
  // the equalities below would not tell the readings apart.
  auto reading = [&](const std::function<char(char)>& edit) {
    Texts qe = r.queries, le = r.library;
    for (Texts* t : {&qe, &le})
      for (std::string& s : *t) std::transform(s.begin(), s.end(), s.begin(), edit);
    return local_scores(blastp_reading(dir + "/aq.fa", qe), blastp_reading(dir + "/al.fa", le));
  };
  const std::map<std::string, BestScores> others = {
      {"U as X", reading([](char c) { return c == 'U' || c == 'u' ? 'X' : c; })},
      {"O as K", reading([](char c) { return c == 'O' || c == 'o' ? 'K' : c; })},
      {"'*' as X", reading([](char c) { return c == '*' ? 'X' : c; })},
      {"B as D, Z as E", reading([](char c) { return c == 'B' || c == 'b' ? 'D' : c == 'Z' || c == 'z' ? 'E' : c; })},
      {"final '*' dropped",
       local_scores(read_as_ours(dir + "/fq.fa", r.queries, u_as_c), read_as_ours(dir + "/fl.fa", r.library, u_as_c))}};
  size_t optimal = 0, plain_optimal = 0, u_pairs_differ = 0, above_ours = 0;
  std::map<std::string, size_t> told_apart, explained;  // explained: blastp's score is that reading's optimum
  for (const auto& [pair, score] : blastp) {
    const int32_t want = model.at(pair);
    above_ours += score > ours.at(pair);  // impossible if blastp read these sequences as we do
    for (const auto& [name, scores] : others) explained[name] += scores.at(pair) == score;
    ASSERT_LE(score, want) << "blastp beat the Smith-Waterman optimum of its reading: q" << pair.first << " s"
                           << pair.second;
    if (score < want) continue;  // blastp's heuristics stopped below the optimum
    ++optimal;
    for (const auto& [name, scores] : others) told_apart[name] += scores.at(pair) != score;
    if (!r.query_u[pair.first] && !r.library_u[pair.second]) {
      // Neither sequence has U or a final '*': blastp's reading is ours, and so is its score.
      EXPECT_EQ(ours.at(pair), score) << "q" << pair.first << " s" << pair.second;
      ++plain_optimal;
    } else {
      u_pairs_differ += ours.at(pair) != score;
    }
  }
  EXPECT_GT(optimal, blastp.size() / 2) << "blastp reached the optimum of its reading in too few pairs";
  EXPECT_GE(plain_optimal, 20u);
  for (const auto& [name, count] : told_apart) {
    EXPECT_GT(count, 0u) << "no compared score depends on: " << name;
    EXPECT_LT(explained[name], optimal) << "blastp's scores fit the reading '" << name << "' as well as its own";
  }
  EXPECT_GT(u_pairs_differ, 0u) << "search now reads U / a final '*' as blastp: compare those pairs with ours";
  std::cout << "[ blastp   ] " << blastp.size() << " pairs reported, " << optimal
            << " at the optimum of blastp's reading (U as C, final '*' kept); " << plain_optimal
            << " without U or final '*' equal to ours; with them, ours differ in " << u_pairs_differ
            << " (blastp above our optimum in " << above_ours << " pairs)"
            << ". Scores changed by other readings:";
  for (const auto& [name, count] : told_apart)
    std::cout << " " << name << " " << count << " (it fits " << explained[name] << ");";
  std::cout << "\n";
}

}  // namespace
}  // namespace hpc
