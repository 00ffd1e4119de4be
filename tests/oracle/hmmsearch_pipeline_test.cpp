// Oracle: hmmsearch 3.3.2's --tblout and --domtblout rows (default options, --cpu 1) against
// ours (src/hmm/hmmsearch_pipeline.hpp + hmmsearch_tables.hpp), field by field.
#include <gtest/gtest.h>

#include "oracle/hmmsearch_tables_support.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {

void report(const char* what, const FieldComparison& c) {
  std::cout << "  " << what << ": rows ours " << c.ours << " hmmsearch " << c.theirs << " paired " << c.paired
            << " identical " << c.identical_rows << "\n   per field:";
  for (size_t f = 0; f < c.identical.size(); ++f) std::cout << " " << c.identical[f];
  std::cout << "\n";
  for (const auto& d : c.differences) std::cout << "   " << d << "\n";
}

void compare_model(const std::string& model, const std::string& fasta) {
  const std::string dir = temp_dir();
  const Tables theirs = hmmsearch_tables(model, fasta, dir), ours = our_tables(model, fasta);
  std::cout << model << " vs " << fasta << "\n";
  const FieldComparison t = compare_tables(ours.tblout, theirs.tblout, 18, {0});
  const FieldComparison d = compare_tables(ours.domtblout, theirs.domtblout, 22, {0, 9});
  report("tblout", t);
  report("domtblout", d);
  EXPECT_EQ(t.ours, t.theirs);
  EXPECT_EQ(t.identical_rows, t.theirs);
  EXPECT_EQ(d.ours, d.theirs);
  EXPECT_EQ(d.identical_rows, d.theirs);
}

}  // namespace

TEST(HmmsearchPipelineOracle, Globins4Balifam1000) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  compare_model(data_path("hmm/globins4.hmm"), data_path("balifam1000.fa.gz"));
}

class HmmsearchPipelineModels : public ::testing::TestWithParam<const char*> {};

TEST_P(HmmsearchPipelineModels, Balifam1000RowsEqualHmmsearch) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  compare_model(data_path(std::string("hmm/") + GetParam()), data_path("balifam1000.fa.gz"));
}

INSTANTIATE_TEST_SUITE_P(TestModels, HmmsearchPipelineModels,
                         ::testing::Values("Pkinase.hmm", "fn3.hmm", "20aa.hmm.gz", "2OG-FeII_Oxy_3.hmm.gz",
                                           "Caudal_act.hmm.gz", "LuxC.hmm.gz", "M1.hmm", "RRM_1.hmm.gz",
                                           "XYPPX.hmm", "pfam_style.hmm"));

// HMMER's tutorial: sevenless has many fibronectin type III domains (clustered regions).
TEST(HmmsearchPipelineOracle, Fn3SevenlessMultidomain) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  compare_model(data_path("hmm/fn3.hmm"), data_path("7LESS_DROME.fa"));
  compare_model(data_path("hmm/Pkinase.hmm"), data_path("7LESS_DROME.fa"));
}

TEST(HmmsearchPipelineOracle, Globins4Globins45) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  compare_model(data_path("hmm/globins4.hmm"), data_path("globins45.fa"));
}
