#include "src/core/tuning.hpp"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "src/core/error.hpp"

namespace hpc {
namespace {

using K = TunableKind;
constexpr long long kNoMax = LLONG_MAX;

const std::vector<TunableSpec> kTable = {
    {Tunable::kTilesPerWorker, "HPCALIGN_TILES_PER_WORKER", K::kNumber, {}, 1, kNoMax, nullptr, "the planner's: search 1, msv 28, hmmsearch 28 (on GPUs: 14 / GPUs)",
     false, "search, msv, hmmsearch: tiles per worker the planner aims at (smaller tiles: finer balance and resume points)"},
    {Tunable::kWorkersPerGpu, "HPCALIGN_WORKERS_PER_GPU", K::kNumber, {}, 1, kNoMax, nullptr,
     "search 1 (from 4,096 queries on: 12 against at most 16,384 subjects, 8 against at most 65,536, else 4); msv, pss, allvsall 4 (score-only allvsall 8); hmmsearch, hmmscan 16", false, "workers (backend instances) sharing one GPU in a local run"},
    {Tunable::kMasterIdle, "HPCALIGN_MASTER_IDLE", K::kFlag, {}, 0, 0, nullptr, "off", false,
     "under MPI, rank 0 only schedules and writes (runs no worker)"},
    {Tunable::kForceMpi, "HPCALIGN_FORCE_MPI", K::kFlag, {}, 0, 0, nullptr, "off", false,
     "start MPI although no launcher's variables (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_SIZE) are set"},
    {Tunable::kCudaTiming, "HPCALIGN_CUDA_TIMING", K::kFlag, {}, 0, 0, nullptr, "off", false,
     "print per-launch and per-tile stage timings on stderr"},
    {Tunable::kCudaVariant, "HPCALIGN_CUDA_VARIANT", K::kChoice, {"c40", "c32", "c48", "c24"}, 0, 0, "c40", "",
     false, "search score kernel's variant (columns per pass; kernels/cuda/sw_kernels.cu)"},
    {Tunable::kPackedLanes, "HPCALIGN_PACKED_LANES", K::kChoice, {"auto", "subjects", "queries", "query-table"}, 0, 0,
     "auto", "", false,
     "force one packed Smith-Waterman score kernel: subject pairs, query row groups or the "
     "query-pair table"},
    {Tunable::kCudaTracebackBytes, "HPCALIGN_CUDA_TRACEBACK_BYTES", K::kNumber, {}, 1, kNoMax, nullptr,
     "half the free GPU memory", false, "GPU memory for one batch of traceback direction bits"},
    {Tunable::kCudaLongPairCells, "HPCALIGN_CUDA_LONG_PAIR_CELLS", K::kNumber, {}, 1, kNoMax, nullptr,
     "2^24, or twice a GPU thread's share of a large launch", false,
     "GPU score kernels: pairs of this many cells or more are scored by the traceback kernels' stripes on many thread blocks, not by one thread"},
    {Tunable::kPssWaves, "HPCALIGN_PSS_WAVES", K::kNumber, {}, 1, kNoMax, "4", "", false,
     "pss on a GPU: permuted copies per launch, in units of what the GPU holds at once"},
    {Tunable::kPssBlocksPerSm, "HPCALIGN_PSS_BLOCKS_PER_SM", K::kChoice, {"7", "8"}, 0, 0, "7", "", false,
     "pss PSSM kernel's minimum resident blocks per SM (registers against occupancy)"},
    {Tunable::kMsvKernel, "HPCALIGN_MSV_KERNEL", K::kChoice, {"f16", "w16", "dpx", "mix", "w8", "byte"}, 0, 0, "f16",
     "", false,
     "msv on a GPU: the 16-bit kernel's profile format, fp16 (f16), int16 pairs (w16 or dpx), a mix or signed "
     "bytes (w8), or the byte kernel; all give the same scores"},
    {Tunable::kMsvQ, "HPCALIGN_MSV_Q", K::kNumber, {}, 0, kNoMax, "0", "the planner's choice", false,
     "msv on a GPU: nodes per slot of every pack of the 16-bit kernel (a compiled size)"},
    {Tunable::kHmmParsers, "HPCALIGN_HMM_PARSERS", K::kChoice, {"forward", "device", "host"}, 0, 0, "host", "",
     false,
     "hmmsearch, hmmscan on a GPU: where the Viterbi survivors' Forward/Backward parsers run: on the worker's host threads "
     "(host); the Forward parser on the GPU, a block a target, and the rest for those past the Forward filter on "
     "the host threads (forward); both parsers on the GPU, Backward one thread a target (device). Same results; "
     "the GPU choices are slower end to end for now"},
    {Tunable::kHmmBias, "HPCALIGN_HMM_BIAS", K::kChoice, {"device", "host"}, 0, 0, "device", "", false,
     "hmmsearch, hmmscan, msv on a GPU: where the bias filter of the pairs past the MSV filter runs: one GPU thread a "
     "pair (device) or the worker's host threads (host). Same scores"},
    {Tunable::kMergeFanIn, "HPCALIGN_MERGE_FAN_IN", K::kNumber, {}, 2, kNoMax, "16384", "", false,
     "the runs a merge of search's and allvsall's result rows reads at once; past it, groups of runs are merged "
     "into intermediate runs first (same rows)"},
    {Tunable::kMergeMemory, "HPCALIGN_MERGE_MEMORY_MIB", K::kNumber, {}, 16, 1 << 20, "200", "", false,
     "MiB the merge of search's and allvsall's result rows holds (its segments and merged tables), whatever the "
     "number of runs; more: fewer, larger segments (same rows)"},
    {Tunable::kFinalMergeMemory, "HPCALIGN_FINAL_MERGE_MEMORY_MIB", K::kNumber, {}, 16, 1 << 20, "512", "", false,
     "MiB allvsall's final merge (the one writing /hits) holds; its intermediate and background merges and "
     "search's merge keep HPCALIGN_MERGE_MEMORY_MIB; more: fewer, larger segments (same rows)"},
    {Tunable::kFaultFailTile, "HPCALIGN_FAULT_FAIL_TILE", K::kNumber, {}, 0, kNoMax, nullptr, "off", true,
     "the backend fails with an error on the tile of this id"},
    {Tunable::kFaultExitTile, "HPCALIGN_FAULT_EXIT_TILE", K::kNumber, {}, 0, kNoMax, nullptr, "off", true,
     "the process exits (status 42) on the tile of this id"},
    {Tunable::kFaultOomCells, "HPCALIGN_FAULT_OOM_CELLS", K::kNumber, {}, 0, kNoMax, nullptr, "off", true,
     "a tile of more cells fails as out of memory (split and retried)"},
    {Tunable::kFaultSlowMs, "HPCALIGN_FAULT_SLOW_MS", K::kNumber, {}, 0, kNoMax, nullptr, "off", true,
     "every tile waits this many milliseconds (so tests can stop a run midway)"},
    {Tunable::kTestData, "HPCALIGN_TEST_DATA", K::kPath, {}, 0, 0, nullptr, "the source tree's tests/data", true,
     "test binaries: the test data directory"},
    {Tunable::kBinary, "HPCALIGN_BINARY", K::kPath, {}, 0, 0, nullptr, "the built hpcalign", true,
     "test binaries: the hpcalign they run"},
    {Tunable::kBenchDb, "HPCALIGN_BENCH_DB", K::kPath, {}, 0, 0, nullptr, "the synthetic 207M-residue database", true,
     "GPU benchmark test (CudaSearch.DISABLED_Benchmark): the database it searches"},
};

bool is_off_word(const std::string& v) { return v == "0" || v == "no" || v == "off" || v == "false"; }

std::string joined(const std::vector<const char*>& words, const char* sep) {
  std::string s;
  for (const char* w : words) s += (s.empty() ? "" : sep) + std::string(w);
  return s;
}

std::string range_text(const TunableSpec& s) {
  return std::to_string(s.min) + ".." + (s.max == kNoMax ? std::string() : std::to_string(s.max));
}

long long parse_number(const TunableSpec& s, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (errno || end == v.c_str() || *end || n < s.min || n > s.max)
    throw Error(std::string(s.name) + "=" + v + ": expected a whole number in " + range_text(s));
  return n;
}

using Values = std::vector<std::optional<std::string>>;  // indexed by Tunable

Values read_environment() {
  Values v;
  for (const auto& s : kTable) v.push_back(check_tunable(s, std::getenv(s.name)));
  return v;
}

// The environment, read on first use; C++ runs this initialisation once, whichever thread comes first.
const Values& environment() {
  static const Values values = read_environment();
  return values;
}

std::mutex overrides_mutex;
std::map<Tunable, std::optional<std::string>> overrides;
std::atomic<int> override_count{0};

std::optional<std::string> value_of(Tunable id) {
  if (override_count.load(std::memory_order_acquire) > 0) {
    std::lock_guard<std::mutex> lock(overrides_mutex);
    auto it = overrides.find(id);
    if (it != overrides.end()) return it->second;
  }
  return environment()[size_t(id)];
}

std::string values_text(const TunableSpec& s, const char* separator) {
  switch (s.kind) {
    case K::kFlag: return "1";
    case K::kNumber: return range_text(s);
    case K::kChoice: return joined(s.choices, separator);
    case K::kPath: return "path";
  }
  return "";
}

std::string default_text(const TunableSpec& s) {
  if (!s.default_value) return s.default_note;
  return *s.default_note ? std::string(s.default_value) + ", " + s.default_note : std::string(s.default_value);
}

}  // namespace

const std::vector<TunableSpec>& tunables() { return kTable; }

const TunableSpec& tunable(Tunable id) { return kTable.at(size_t(id)); }

const TunableSpec& tunable_named(const std::string& name) {
  for (const auto& s : kTable)
    if (name == s.name) return s;
  throw Error(name + " is not a tuning variable (hpcalign --help-tuning lists them)");
}

std::optional<std::string> check_tunable(const TunableSpec& s, const char* text) {
  if (!text || !*text) return std::nullopt;
  const std::string v = text;
  switch (s.kind) {
    case K::kFlag:
      if (is_off_word(v))
        throw Error(std::string(s.name) + "=" + v + ": a flag is on whenever it is set; unset it to turn it off");
      break;
    case K::kNumber:
      parse_number(s, v);
      break;
    case K::kChoice: {
      bool known = false;
      for (const char* w : s.choices) known = known || v == w;
      if (!known) throw Error(std::string(s.name) + "=" + v + ": expected one of " + joined(s.choices, ", "));
      break;
    }
    case K::kPath:
      break;
  }
  return v;
}

void check_tuning_environment() { environment(); }

bool tuning_flag(Tunable id) { return value_of(id).has_value(); }

std::optional<long long> tuning_number(Tunable id) {
  const TunableSpec& s = tunable(id);
  if (const auto v = value_of(id)) return parse_number(s, *v);
  if (s.default_value) return parse_number(s, s.default_value);
  return std::nullopt;
}

const char* tuning_choice(Tunable id) {
  const TunableSpec& s = tunable(id);
  const auto v = value_of(id);
  for (const char* w : s.choices)
    if (v ? *v == w : std::strcmp(w, s.default_value) == 0) return w;
  throw Error(std::string(s.name) + ": no such choice");  // unreachable: values and defaults are checked
}

std::optional<std::string> tuning_path(Tunable id) { return value_of(id); }

void print_tunables(std::ostream& out, bool markdown) {
  if (markdown) {
    out << "| variable | values | default | for | what it does |\n|---|---|---|---|---|\n";
    for (const auto& s : kTable)
      out << "| `" << s.name << "` | " << values_text(s, ", ") << " | " << default_text(s) << " | "
          << (s.test_only ? "tests" : "tuning") << " | " << s.meaning << " |\n";
    return;
  }
  out << "Environment variables for tuning and for tests (not options: no result depends on them;\n"
         "the fault injections fail runs on purpose). An empty value counts as unset; a bad value\n"
         "stops the program naming the variable.\n\n";
  for (const auto& s : kTable)
    out << "  " << s.name << "=" << values_text(s, "|") << "  (default: " << default_text(s) << ")"
        << (s.test_only ? "  [tests only]" : "") << "\n      " << s.meaning << "\n";
}

ScopedTunable::ScopedTunable(Tunable id, const char* value) : id_(id) {
  std::optional<std::string> v = check_tunable(tunable(id), value);
  std::lock_guard<std::mutex> lock(overrides_mutex);
  overrides[id] = std::move(v);
  override_count.fetch_add(1, std::memory_order_release);
}

ScopedTunable::~ScopedTunable() {
  std::lock_guard<std::mutex> lock(overrides_mutex);
  overrides.erase(id_);
  override_count.fetch_sub(1, std::memory_order_release);
}

}  // namespace hpc
