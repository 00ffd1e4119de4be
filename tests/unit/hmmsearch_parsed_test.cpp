// HmmsearchPipeline::score_parsed (parsers run by an engine, domain definition here) against
// HmmsearchPipeline::score (everything on this thread): the same hit rows, field by field and
// bit for bit, with the CPU parser engine (the twin of the CUDA one) over the models in
// tests/data/hmm and targets from globins45.fa, drawn from each model, and random ones.
#include <gtest/gtest.h>

#include <random>

#include "fb_test_support.hpp"
#include "io/fasta.hpp"
#include "kernels/hmm_fb_engine.hpp"
#include "src/hmm/hmmer_float_mode.hpp"
#include "src/hmm/hmmsearch_pipeline.hpp"

using namespace hpc;
using namespace hpc::hmm;
using namespace hpc::test;

namespace {

std::string hit_difference(const TargetHit& a, const TargetHit& b) {
  auto f = [](float x, float y) { return float_bits(x) != float_bits(y); };
  if (a.name != b.name || a.length != b.length) return "target";
  if (f(a.pre_score, b.pre_score) || f(a.score, b.score) || f(a.sum_score, b.sum_score)) return "scores";
  if (a.lnP != b.lnP || a.pre_lnP != b.pre_lnP || a.sum_lnP != b.sum_lnP) return "P-values";
  if (f(a.nexpected, b.nexpected) || a.nregions != b.nregions || a.nclustered != b.nclustered ||
      a.noverlaps != b.noverlaps || a.nenvelopes != b.nenvelopes || a.best_domain != b.best_domain)
    return "domain counts";
  if (a.domains.size() != b.domains.size()) return "number of domains";
  for (size_t d = 0; d < a.domains.size(); ++d) {
    const DomainHit &x = a.domains[d], &y = b.domains[d];
    if (f(x.bitscore, y.bitscore) || f(x.dombias, y.dombias) || x.lnP != y.lnP) return "domain score";
    const EnvelopeDomain &e = x.env, &g = y.env;
    if (e.ienv != g.ienv || e.jenv != g.jenv || e.iali != g.iali || e.jali != g.jali || e.hmmfrom != g.hmmfrom ||
        e.hmmto != g.hmmto || f(e.envsc, g.envsc) || f(e.domcorrection, g.domcorrection) || f(e.oasc, g.oasc))
      return "envelope";
  }
  return "";
}

struct Tally {
  long survivors = 0, past_fwd = 0, hits = 0, domains = 0;
};

// Every target through score() and, for the Viterbi survivors, through the engine and score_parsed().
void compare_model(const HmmModel& model, const PipelineSettings& settings,
                   const std::vector<std::vector<uint8_t>>& targets, Tally& tally) {
  HmmsearchPipeline whole(model, settings), parsed(model, settings);
  std::vector<std::optional<TargetHit>> expected;
  for (size_t t = 0; t < targets.size(); ++t)
    expected.push_back(whole.score("t" + std::to_string(t), "", targets[t].data(), int(targets[t].size())));

  // The Viterbi survivors, as the GPU filters would hand them over.
  const ModelFilters filters(model);
  FilterSettings fs;
  fs.F1 = settings.F1, fs.F2 = settings.F2;
  fs.stages = kStageMsv | kStageVit | (settings.bias_filter ? kStageBias : 0u);
  FilterWorkspace ws;
  std::vector<FbJob> jobs;
  std::vector<size_t> index;
  {
    const HmmerFloatMode mode;
    for (size_t t = 0; t < targets.size(); ++t)
      if (run_filters(filters, targets[t].data(), int(targets[t].size()), fs, ws).passed)
        jobs.push_back(FbJob{0, SeqView{targets[t].data(), uint32_t(targets[t].size())}}), index.push_back(t);
  }
  ASSERT_EQ(long(jobs.size()), whole.counts().past_vit);
  const std::vector<FbLaneProfile> lanes{lane_profile(build_fb_profile(model))};
  const auto engine = make_fb_engine(BackendKind::Cpu, 0, &lanes);
  const std::vector<FbParse> parses = engine->filter_and_parse(jobs, [&](size_t j, float nats) {
    return parsed.passes_forward(jobs[j].target.data, int(jobs[j].target.length), nats);
  });
  std::vector<bool> seen(targets.size(), false);
  for (size_t j = 0; j < jobs.size(); ++j) {
    const size_t t = index[j];
    seen[t] = true;
    const auto got = parsed.score_parsed("t" + std::to_string(t), "", targets[t].data(), int(targets[t].size()), parses[j]);
    ASSERT_EQ(got.has_value(), expected[t].has_value()) << model.name << " target " << t;
    if (got) {
      ASSERT_EQ(hit_difference(*got, *expected[t]), "") << model.name << " target " << t;
      tally.hits++, tally.domains += long(got->domains.size());
    }
  }
  for (size_t t = 0; t < targets.size(); ++t)
    if (!seen[t]) {
      ASSERT_FALSE(expected[t].has_value()) << model.name << " target " << t << " missed the filters";
    }
  ASSERT_EQ(parsed.counts().past_fwd, whole.counts().past_fwd) << model.name;
  tally.survivors += long(jobs.size()), tally.past_fwd += parsed.counts().past_fwd;
}

}  // namespace

TEST(HmmsearchParsed, EngineParsesGiveTheSameHitsAsScore) {
  std::mt19937 rng(11);
  const SequenceSet globins =
      read_fasta(std::string(HPCALIGN_TEST_DATA) + "/globins45.fa", nullptr, ResidueRules::kHmmer);
  PipelineSettings open_filters;  // every target reaches the Forward filter, which rejects the random ones
  open_filters.F1 = open_filters.F2 = 1.0;
  Tally tally;
  for (const HmmModel& model : data_models()) {
    std::vector<std::vector<uint8_t>> targets = fb_targets(rng, model, 8, model.length < 300);
    for (size_t s = 0; s < globins.size(); s += 3) {
      const SeqView v = globins.view(s);
      targets.emplace_back(v.data, v.data + v.length);
    }
    for (const PipelineSettings& s : {PipelineSettings{}, open_filters}) {
      compare_model(model, s, targets, tally);
      if (HasFatalFailure()) return;
    }
  }
  std::cout << "Viterbi survivors " << tally.survivors << ", past the Forward filter " << tally.past_fwd << ", hits "
            << tally.hits << " with " << tally.domains << " domains\n";
  EXPECT_GT(tally.past_fwd, 40);
  EXPECT_GT(tally.survivors, tally.past_fwd + 20);  // the Forward filter rejected some
  EXPECT_GT(tally.domains, tally.hits);             // some targets have several domains
}

// A target of nonresidues only ('*', as a translated stop codon gives): no match state emits
// it, so its Forward score is 0; under --max every filter passes it and hmmsearch stops ("forward
// score underflow"). Here it fails the Forward filter, in score() and score_parsed() alike, and a
// target with one residue beside the '*'s still goes on.
TEST(HmmsearchParsed, TargetsOfNonresiduesOnlyFailTheForwardFilter) {
  const HmmModel model = data_models().front();
  const PipelineSettings max = PipelineSettings::max_sensitivity(PipelineSettings{});
  HmmsearchPipeline pipe(model, max);
  for (const std::vector<uint8_t>& stars : {std::vector<uint8_t>{kCodeStop}, std::vector<uint8_t>(40, kCodeStop)}) {
    EXPECT_FALSE(has_residue(stars.data(), int(stars.size())));
    EXPECT_FALSE(pipe.score("stars", "", stars.data(), int(stars.size())).has_value());
    PostFilterPipeline post(model, max);
    const PostFilterResult r = post.score_parsed("stars", "", stars.data(), int(stars.size()), 0.0f, FbParse{});
    EXPECT_FALSE(r.past_fwd);
  }
  EXPECT_EQ(pipe.counts().past_vit, 2);  // --max: the filters passed both
  EXPECT_EQ(pipe.counts().past_fwd, 0);
  std::vector<uint8_t> one(40, kCodeStop);
  one[20] = 0;  // an A among the '*'s
  EXPECT_TRUE(has_residue(one.data(), int(one.size())));
  pipe.score("one", "", one.data(), int(one.size()));
  EXPECT_EQ(pipe.counts().past_fwd, 1);
}
