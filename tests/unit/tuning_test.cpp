// The HPCALIGN_* registry (src/core/tuning.hpp): the table is consistent, values are parsed
// and checked, bad ones named, and tests can set a value for a scope.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <sstream>

#include "src/core/tuning.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

TEST(Tuning, TableIsConsistent) {
  std::set<std::string> names;
  for (size_t i = 0; i < tunables().size(); ++i) {
    const TunableSpec& s = tunables()[i];
    SCOPED_TRACE(s.name);
    EXPECT_EQ(size_t(s.id), i);  // tunable(id) indexes the table
    EXPECT_EQ(std::string(s.name).rfind("HPCALIGN_", 0), 0u);
    EXPECT_TRUE(names.insert(s.name).second);
    EXPECT_GT(std::strlen(s.meaning), 10u);
    EXPECT_TRUE(s.default_value || *s.default_note);  // every default is documented
    // A default the table gives must be a value the variable takes.
    if (s.default_value) EXPECT_EQ(check_tunable(s, s.default_value), std::string(s.default_value));
    EXPECT_EQ(s.kind == TunableKind::kChoice, !s.choices.empty());
    if (s.kind == TunableKind::kChoice) EXPECT_NE(s.default_value, nullptr);
  }
  EXPECT_EQ(&tunable_named("HPCALIGN_MSV_KERNEL"), &tunable(Tunable::kMsvKernel));
  EXPECT_EQ(test::error_of([] { tunable_named("HPCALIGN_NO_SUCH"); }),
            "HPCALIGN_NO_SUCH is not a tuning variable (hpcalign --help-tuning lists them)");
}

TEST(Tuning, TestOnlyVariablesAreMarked) {
  for (Tunable t : {Tunable::kFaultFailTile, Tunable::kFaultExitTile, Tunable::kFaultOomCells, Tunable::kFaultSlowMs,
                    Tunable::kTestData, Tunable::kBinary, Tunable::kBenchDb})
    EXPECT_TRUE(tunable(t).test_only) << tunable(t).name;
  for (Tunable t : {Tunable::kTilesPerWorker, Tunable::kWorkersPerGpu, Tunable::kMsvKernel, Tunable::kCudaTiming})
    EXPECT_FALSE(tunable(t).test_only) << tunable(t).name;
}

TEST(Tuning, NumbersAreWholeAndInRange) {
  const TunableSpec& waves = tunable(Tunable::kPssWaves);  // 1..
  EXPECT_EQ(check_tunable(waves, "12"), "12");
  EXPECT_EQ(check_tunable(waves, nullptr), std::nullopt);
  EXPECT_EQ(check_tunable(waves, ""), std::nullopt);  // empty counts as unset
  const std::string expected = ": expected a whole number in 1..";
  EXPECT_EQ(test::error_of([&] { check_tunable(waves, "0"); }), "HPCALIGN_PSS_WAVES=0" + expected);
  EXPECT_EQ(test::error_of([&] { check_tunable(waves, "-3"); }), "HPCALIGN_PSS_WAVES=-3" + expected);
  EXPECT_EQ(test::error_of([&] { check_tunable(waves, "4x"); }), "HPCALIGN_PSS_WAVES=4x" + expected);
  EXPECT_EQ(test::error_of([&] { check_tunable(waves, "many"); }), "HPCALIGN_PSS_WAVES=many" + expected);
  EXPECT_EQ(test::error_of([&] { check_tunable(waves, "99999999999999999999"); }),
            "HPCALIGN_PSS_WAVES=99999999999999999999" + expected);
  // Fault injection takes 0 (a tile id, or "every tile is too big").
  EXPECT_EQ(check_tunable(tunable(Tunable::kFaultOomCells), "0"), "0");
  EXPECT_EQ(test::error_of([] { check_tunable(tunable(Tunable::kFaultFailTile), "-1"); }),
            "HPCALIGN_FAULT_FAIL_TILE=-1: expected a whole number in 0..");
}

TEST(Tuning, ChoicesAreTheTablesWords) {
  const TunableSpec& kernel = tunable(Tunable::kMsvKernel);
  for (const char* w : {"f16", "w16", "dpx", "mix", "w8", "byte"}) EXPECT_EQ(check_tunable(kernel, w), std::string(w));
  EXPECT_EQ(test::error_of([&] { check_tunable(kernel, "W16"); }),
            "HPCALIGN_MSV_KERNEL=W16: expected one of f16, w16, dpx, mix, w8, byte");
  EXPECT_EQ(test::error_of([] { check_tunable(tunable(Tunable::kPssBlocksPerSm), "9"); }),
            "HPCALIGN_PSS_BLOCKS_PER_SM=9: expected one of 7, 8");
}

TEST(Tuning, FlagsAreOnWhenSetAndRefuseOffWords) {
  const TunableSpec& idle = tunable(Tunable::kMasterIdle);
  EXPECT_EQ(check_tunable(idle, "1"), "1");
  EXPECT_EQ(check_tunable(idle, "yes"), "yes");
  for (const char* off : {"0", "no", "off", "false"})
    EXPECT_EQ(test::error_of([&] { check_tunable(idle, off); }),
              std::string("HPCALIGN_MASTER_IDLE=") + off + ": a flag is on whenever it is set; unset it to turn it off");
}

TEST(Tuning, ScopedValuesOverrideAndDefaultsApply) {
  // Unset whatever the environment says (nullptr), so the defaults show.
  const ScopedTunable w(Tunable::kPssWaves, nullptr), g(Tunable::kWorkersPerGpu, nullptr),
      m(Tunable::kMsvKernel, nullptr), l(Tunable::kPackedLanes, nullptr), i(Tunable::kMasterIdle, nullptr);
  EXPECT_EQ(tuning_number(Tunable::kPssWaves), 4);         // the table's default
  EXPECT_EQ(tuning_number(Tunable::kWorkersPerGpu), std::nullopt);  // the reader decides
  EXPECT_STREQ(tuning_choice(Tunable::kMsvKernel), "f16");
  EXPECT_STREQ(tuning_choice(Tunable::kPackedLanes), "auto");
  EXPECT_FALSE(tuning_flag(Tunable::kMasterIdle));
}

TEST(Tuning, ScopedValuesOverrideTheEnvironment) {
  const auto waves_before = tuning_number(Tunable::kPssWaves);
  const char* kernel_before = tuning_choice(Tunable::kMsvKernel);
  {
    const ScopedTunable waves(Tunable::kPssWaves, "9");
    const ScopedTunable kernel(Tunable::kMsvKernel, "w8");
    const ScopedTunable idle(Tunable::kMasterIdle, "1");
    EXPECT_EQ(tuning_number(Tunable::kPssWaves), 9);
    EXPECT_STREQ(tuning_choice(Tunable::kMsvKernel), "w8");
    EXPECT_TRUE(tuning_flag(Tunable::kMasterIdle));
    const ScopedTunable unset(Tunable::kFaultSlowMs, "");  // empty: unset
    EXPECT_EQ(tuning_number(Tunable::kFaultSlowMs), std::nullopt);
  }
  // Gone with the scope: the environment's values again.
  EXPECT_EQ(tuning_number(Tunable::kPssWaves), waves_before);
  EXPECT_STREQ(tuning_choice(Tunable::kMsvKernel), kernel_before);
  EXPECT_EQ(test::error_of([] { ScopedTunable bad(Tunable::kMsvKernel, "fast"); }),
            "HPCALIGN_MSV_KERNEL=fast: expected one of f16, w16, dpx, mix, w8, byte");
}

TEST(Tuning, MarkdownTableHasARowPerVariable) {
  std::ostringstream out;
  print_tunables(out, true);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(lines, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), tunables().size() + 2);  // header, rule, one per variable
  for (size_t i = 0; i < tunables().size(); ++i)
    EXPECT_EQ(rows[i + 2].rfind(std::string("| `") + tunables()[i].name + "` | ", 0), 0u) << rows[i + 2];
  EXPECT_NE(out.str().find("| `HPCALIGN_MSV_KERNEL` | f16, w16, dpx, mix, w8, byte | f16 | tuning | "),
            std::string::npos);
  EXPECT_NE(out.str().find("| `HPCALIGN_FAULT_SLOW_MS` | 0.. | off | tests | "), std::string::npos);
}

}  // namespace
}  // namespace hpc
