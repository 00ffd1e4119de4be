#pragma once
// Every HPCALIGN_* environment variable the program and its tests read, in one table: tuning
// knobs for benchmarks and A/B runs (none changes a result), and the variables only the tests
// set (fault injection, which fails runs on purpose, and the tests' paths). They are not
// options: `hpcalign --help-tuning` prints the table and README's table is generated from it
// (tools/check_tuning_table.sh keeps the two equal).
//
// The environment is read once, at first use, every variable together (thread-safe), and
// checked then: a bad value is an Error naming the variable and the values it takes. An
// empty value counts as unset. Variables of other programs' conventions (OMP_NUM_THREADS,
// TMPDIR, the MPI launchers' rank variables) are read where they are used, not here.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace hpc {

enum class Tunable {
  kTilesPerWorker,
  kWorkersPerGpu,
  kMasterIdle,
  kForceMpi,
  kCudaTiming,
  kCudaVariant,
  kPackedLanes,
  kCudaTracebackBytes,
  kCudaLongPairCells,
  kPssWaves,
  kPssBlocksPerSm,
  kMsvKernel,
  kMsvQ,
  kHmmParsers,
  kHmmBias,
  kMergeFanIn,
  kMergeMemory,
  kFinalMergeMemory,
  kFaultFailTile,
  kFaultExitTile,
  kFaultOomCells,
  kFaultSlowMs,
  kTestData,
  kBinary,
  kBenchDb,
};

enum class TunableKind {
  kFlag,    // on when set (to anything but 0, no, off or false, which are refused as ambiguous)
  kNumber,  // a decimal integer in [min, max]
  kChoice,  // one of `choices`
  kPath,    // any text
};

struct TunableSpec {
  Tunable id;
  const char* name;
  TunableKind kind;
  std::vector<const char*> choices;  // kChoice: the words it takes
  long long min = 0, max = 0;        // kNumber: the range it takes
  const char* default_value;         // what applies when unset; nullptr: the reader decides (see default_note)
  const char* default_note;          // the default in words, for the table ("" when default_value says it all)
  bool test_only;                    // set by the tests, never needed by users
  const char* meaning;
};

const std::vector<TunableSpec>& tunables();
const TunableSpec& tunable(Tunable id);
const TunableSpec& tunable_named(const std::string& name);  // throws Error for a name not in the table

// The values (a ScopedTunable's while one lives, else the environment's at first use).
bool tuning_flag(Tunable id);
// The number set, else the table's default, else nullopt (the reader decides).
std::optional<long long> tuning_number(Tunable id);
// The word set, else the table's default; a pointer into the table (valid for ever).
const char* tuning_choice(Tunable id);
std::optional<std::string> tuning_path(Tunable id);

// One value checked as the environment's are: nullopt for unset or empty, else the value.
// Throws Error "NAME=VALUE: expected ..." for a value the variable does not take.
std::optional<std::string> check_tunable(const TunableSpec& spec, const char* text);

// Reads and checks the whole environment now (the program's first step, so that a bad value
// stops every rank before any work starts). Throws the first bad variable's Error.
void check_tuning_environment();

// The table, for `hpcalign --help-tuning` (text) and README (markdown).
void print_tunables(std::ostream& out, bool markdown);

// Tests only: `id` takes `value` (nullptr: unset) for this object's lifetime, whatever the
// environment says. The value is checked like the environment's. Not nestable per variable.
class ScopedTunable {
 public:
  ScopedTunable(Tunable id, const char* value);
  ~ScopedTunable();
  ScopedTunable(const ScopedTunable&) = delete;
  ScopedTunable& operator=(const ScopedTunable&) = delete;

 private:
  Tunable id_;
};

}  // namespace hpc
