#pragma once
// Models and targets for the Viterbi-filter twin tests, shared by the GPU test
// (tests/gpu/vit_gpu_test.cpp) and the CPU test of its host emulator
// (tests/unit/vit_layout_test.cpp). Plain C++: no CUDA needed.
#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "io/database.hpp"
#include "io/hmm_file.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/sequence.hpp"
#include "src/hmm/profile.hpp"
#include "test_support.hpp"

namespace hpc::test::vit {

// Every protein model file of tests/data/hmm (M = 1 .. 400; 3box is DNA).
inline const std::vector<std::string>& model_files() {
  static const std::vector<std::string> f = {"M1.hmm",       "XYPPX.hmm",         "20aa.hmm.gz",
                                             "RRM_1.hmm.gz", "fn3.hmm",           "2OG-FeII_Oxy_3.hmm.gz",
                                             "Caudal_act.hmm.gz", "globins4.hmm", "Pkinase.hmm",
                                             "LuxC.hmm.gz"};
  return f;
}

inline std::vector<HmmModel> test_models() {
  std::vector<HmmModel> all;
  for (const std::string& f : model_files())
    for (HmmModel& m : read_hmm_file(data_path("hmm/" + f))) all.push_back(std::move(m));
  return all;
}

// The long test models whose nodes splice_models reuses: LuxC (400), Pkinase (260), globins4 (149).
inline std::vector<HmmModel> splice_parts() {
  std::vector<HmmModel> parts;
  for (const char* f : {"LuxC.hmm.gz", "Pkinase.hmm", "globins4.hmm"})
    parts.push_back(read_hmm_file(data_path(std::string("hmm/") + f)).at(0));
  return parts;
}

// A model of exactly M nodes made of the nodes of `parts`, in turn (cycling), to reach model
// lengths no test file has (segment-size borders, up to the 1,280-node maximum). The result is
// a valid profile HMM as far as build_vit_profile is concerned.
inline HmmModel splice_models(const std::vector<HmmModel>& parts, int M) {
  HmmModel m = parts.at(0);
  m.name = "spliced" + std::to_string(M);
  m.length = M;
  m.mat.assign(1, parts[0].mat[0]);
  m.t.assign(1, parts[0].t[0]);
  for (size_t p = 0; int(m.mat.size()) <= M; p = (p + 1) % parts.size())
    for (int k = 1; k <= parts[p].length && int(m.mat.size()) <= M; ++k) {
      m.mat.push_back(parts[p].mat[k]);
      m.t.push_back(parts[p].t[k]);
    }
  for (std::string* s : {&m.consensus, &m.rf, &m.cs})
    if (!s->empty()) s->resize(size_t(M) + 1, 'x');
  return m;
}

using Codes = std::vector<uint8_t>;

// The filter takes targets by position in a database's length order (db.by_length), as the
// GPU holds it: position_of(db)[t] is file target t's position.
inline std::vector<uint32_t> position_of(const Database& db) {
  std::vector<uint32_t> pos(db.by_length.size());
  for (uint32_t p = 0; p < pos.size(); ++p) pos[db.by_length[p]] = p;
  return pos;
}
inline std::vector<uint32_t> lengths_by_position(const Database& db) {
  std::vector<uint32_t> len(db.by_length.size());
  for (uint32_t p = 0; p < len.size(); ++p) len[p] = db.seqs.length(db.by_length[p]);
  return len;
}
inline SeqView target_at(const Database& db, uint32_t position) { return db.seqs.view(db.by_length[position]); }

// A test's targets in one database: a file's (or none), then the ones added; after build(),
// position[t] is target t's position in length order.
struct TestDb {
  SequenceSet seqs;
  Database db;
  std::vector<uint32_t> position;
  // The index of the target added (its position comes with build()).
  uint32_t add(std::string id, const Codes& c) {
    seqs.add(std::move(id), c.data(), c.size());
    return uint32_t(seqs.size() - 1);
  }
  void build() {
    db = make_database(std::move(seqs));
    position = position_of(db);
  }
  SeqView at(uint32_t p) const { return target_at(db, p); }
};

inline Codes encode_str(const std::string& s) {
  Codes v;
  for (char c : s) v.push_back(encode_residue(static_cast<unsigned char>(c)));
  return v;
}

inline Codes random_codes(std::mt19937& rng, size_t n, int codes = 20) {
  std::uniform_int_distribution<int> pick(0, codes - 1);
  Codes s(n);
  for (auto& c : s) c = uint8_t(pick(rng));
  return s;
}

// The best-scoring standard residue of every node: an hmmemit-like top scorer.
inline Codes consensus(const hmm::VitProfile& p) {
  Codes c;
  for (int k = 1; k <= p.M; ++k) {
    uint8_t best = 0;
    for (uint8_t code = 1; code < 20; ++code)
      if (p.row(code)[k] > p.row(best)[k]) best = code;
    c.push_back(best);
  }
  return c;
}

// Targets that reach the corners of the recurrence for model p: length 1 and 2, single-residue
// runs, X/B/Z/'*' codes, the consensus (overflow to +inf when long enough), mutated copies
// (near the overflow threshold), copies with deletions (D->D paths: the lazy-F pass) and
// insertions (I->I), repeats (E->J->B), and a 10,000-residue random sequence.
inline std::vector<std::pair<std::string, Codes>> edge_targets(const hmm::VitProfile& p, std::mt19937& rng) {
  std::vector<std::pair<std::string, Codes>> t;
  auto add = [&](std::string id, Codes c) { t.emplace_back(std::move(id), std::move(c)); };
  for (char c : std::string("AWGX*")) add(std::string("one_") + c, encode_str(std::string(1, c)));
  add("two", encode_str("WC"));
  add("poly_A300", Codes(300, encode_residue('A')));
  add("poly_W50", Codes(50, encode_residue('W')));
  add("poly_X120", Codes(120, kCodeX));
  add("poly_G2000", Codes(2000, encode_residue('G')));
  add("stops", Codes(40, kCodeStop));
  Codes degenerate = random_codes(rng, 400, kAlphabetSize);
  add("random_all_codes", degenerate);
  add("random_10000", random_codes(rng, 10000));
  const Codes cons = consensus(p);
  add("consensus", cons);
  Codes rev(cons.rbegin(), cons.rend());
  add("consensus_reversed", rev);
  for (int times : {2, 3, 8, 25}) {
    Codes r;
    for (int i = 0; i < times; ++i) {
      r.insert(r.end(), cons.begin(), cons.end());
      const Codes gap = random_codes(rng, 7);
      r.insert(r.end(), gap.begin(), gap.end());
    }
    add("consensus_x" + std::to_string(times), r);
  }
  for (int stride : {2, 3, 4, 6, 10}) {  // every stride-th residue mutated: weaker and weaker matches
    Codes s = cons;
    for (size_t i = 0; i < s.size(); i += size_t(stride)) s[i] = uint8_t((s[i] + 7) % 20);
    add("mutated_" + std::to_string(stride), s);
    Codes twice = s;
    twice.insert(twice.end(), 10, encode_residue('G'));
    twice.insert(twice.end(), s.begin(), s.end());
    add("mutated_twice_" + std::to_string(stride), twice);
  }
  for (int gap : {1, 3, 8, 20, 60}) {  // runs of `gap` consensus residues deleted: D->D paths
    Codes s;
    for (size_t i = 0; i < cons.size(); ++i)
      if (i % size_t(gap + 25) < 25) s.push_back(cons[i]);
    add("deleted_" + std::to_string(gap), s);
    Codes d = s;
    d.insert(d.end(), s.begin(), s.end());
    add("deleted_twice_" + std::to_string(gap), d);
  }
  if (cons.size() > 8) {  // the two ends only: one long D->D path across the middle
    const size_t q = cons.size() / 4;
    Codes ends(cons.begin(), cons.begin() + q);
    ends.insert(ends.end(), cons.end() - q, cons.end());
    add("ends_only", ends);
  }
  for (int ins : {3, 12}) {  // random insertions every 30 residues: I->I loops
    Codes s;
    for (size_t i = 0; i < cons.size(); ++i) {
      s.push_back(cons[i]);
      if (i % 30 == 29) {
        const Codes r = random_codes(rng, size_t(ins));
        s.insert(s.end(), r.begin(), r.end());
      }
    }
    add("inserted_" + std::to_string(ins), s);
  }
  for (size_t n : {size_t(1), size_t(5), cons.size() / 2}) {
    add("prefix_" + std::to_string(n), Codes(cons.begin(), cons.begin() + std::min(n, cons.size())));
    add("suffix_" + std::to_string(n), Codes(cons.end() - std::min(n, cons.size()), cons.end()));
  }
  Codes embedded = random_codes(rng, 500);  // the consensus inside random flanks
  embedded.insert(embedded.begin() + 250, cons.begin(), cons.end());
  add("embedded", embedded);
  return t;
}

}  // namespace hpc::test::vit
