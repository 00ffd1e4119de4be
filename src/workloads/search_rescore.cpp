#include "src/workloads/search_rescore.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "src/core/on_all_cores.hpp"

namespace hpc {

const char* rescore_help() {
  return "Permutation E-values (--rescore N): each query's N best hits by E-value are rescored with\n"
         "pairwise statistical significance (pss): the hit's subject is shuffled --permutations times\n"
         "(Philox4x32-10 + Fisher-Yates; shuffle k of subject t a pure function of (--seed, t, k)), the\n"
         "query aligned to every copy, a Gumbel fitted to those scores by median-censored maximum\n"
         "likelihood, and E = P(real score) x database sequences (Agrawal A, Brendel VP, Huang X. Int J\n"
         "Comput Biol Drug Des 2008;1:347-367; database hits reordered by it: Agrawal A, Huang X.\n"
         "Bioinformatics 2009;25:1082-1083). A pair whose fit fails keeps its --stats E-value. Costs\n"
         "N x permutations alignments per query; tiles then hold the whole database. The same E-values on\n"
         "CPU and GPU, for any rank count and after --resume.\n";
}

HitRescorer::HitRescorer(const RescoreSettings& settings, const SearchSetup& setup, BackendKind kind, int device,
                         int threads)
    : settings_(settings), db_sequences_(double(setup.db->seqs.size())) {
  PssParams params;
  params.matrix = setup.matrix;
  params.gaps = setup.gaps;
  params.permutations = settings.shuffles;
  params.seed = settings.seed;
  // The CPU engine runs on one thread: one engine per thread; a GPU engine fits on `threads`.
  const int engines = kind == BackendKind::Cpu ? std::max(1, threads) : 1;
  for (int k = 0; k < engines; ++k)
    engines_.push_back(make_pss_engine(kind, device, threads, params, *setup.queries, setup.db->seqs, nullptr));
}

void HitRescorer::rescore(std::vector<Hit>& hits) const {
  if (settings_.top == 0 || hits.empty()) return;
  // Each query's hits ranked by E-value; the first `top` are rescored, grouped by subject
  // (the engine shuffles a subject once for all its queries).
  std::vector<size_t> order(hits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Hit &x = hits[a], &y = hits[b];
    if (x.query != y.query) return x.query < y.query;
    if (x.evalue != y.evalue) return x.evalue < y.evalue;
    if (x.aln.score != y.aln.score) return x.aln.score > y.aln.score;
    return x.target < y.target;
  });
  std::map<uint32_t, std::vector<size_t>> by_subject;  // subject -> hits, by query (order's order)
  for (size_t i = 0, rank = 0; i < order.size(); ++i) {
    rank = i > 0 && hits[order[i]].query == hits[order[i - 1]].query ? rank + 1 : 0;
    if (rank < settings_.top) by_subject[hits[order[i]].target].push_back(order[i]);
  }
  const std::vector<SubjectGroup> groups(by_subject.begin(), by_subject.end());
  run_parts(engines_.size(), [&](size_t part) { rescore_groups(part, groups, hits); });
}

void HitRescorer::rescore_groups(size_t part, const std::vector<SubjectGroup>& groups, std::vector<Hit>& hits) const {
  PssEngine& engine = *engines_[part];
  for (size_t g = part; g < groups.size(); g += engines_.size()) {
    const auto& [subject, members] = groups[g];
    std::vector<uint32_t> queries;
    for (size_t i : members) queries.push_back(hits[i].query);
    const auto rows = engine.run(queries, subject, subject + 1);  // ordered by query, as `members`
    for (size_t k = 0; k < members.size(); ++k) {
      if (!rows[k].fit.converged()) continue;
      Hit& h = hits[members[k]];
      // P underflows to 0 past ~1e-308: E from log10 P, 0 where that underflows too.
      h.evalue = rows[k].pvalue > 0 ? rows[k].pvalue * db_sequences_
                                    : std::pow(10.0, rows[k].log10_pvalue + std::log10(db_sequences_));
    }
  }
}

}  // namespace hpc
