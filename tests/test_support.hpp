#pragma once
// Helpers shared by the test executables.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include <zlib.h>

#include "io/fasta.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"

namespace hpc::test {

// A float's bits: what "bit for bit" compares (0 and -0, or two NaNs, differ here).
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// HMMER's tutorial and testsuite models (tests/data/hmm) whose every pair the filter tests score.
inline constexpr const char* kFilterTestModels[] = {"globins4.hmm",      "Pkinase.hmm", "fn3.hmm",
                                                    "20aa.hmm.gz",       "2OG-FeII_Oxy_3.hmm.gz",
                                                    "Caudal_act.hmm.gz", "LuxC.hmm.gz", "M1.hmm",
                                                    "RRM_1.hmm.gz",      "XYPPX.hmm"};

// The compiled-in paths can be overridden by the environment (src/core/tuning.hpp), so test
// binaries built here also run on the GPU machine, where the tree lives elsewhere.
inline std::string data_path(const std::string& name) {
  return tuning_path(Tunable::kTestData).value_or(HPCALIGN_TEST_DATA) + "/" + name;
}
inline std::string binary_path() { return tuning_path(Tunable::kBinary).value_or(HPCALIGN_BINARY); }

// Path of a fresh temporary directory (removed by the OS's tmp cleaning, not by us).
inline std::string temp_dir() {
  char tmpl[] = "/tmp/hpcalign-test-XXXXXX";
  const char* d = mkdtemp(tmpl);
  return d ? std::string(d) : std::string("/tmp");
}

// A path in one temporary directory per test binary.
inline std::string temp_path(const std::string& name) {
  static const std::string dir = temp_dir();
  return dir + "/" + name;
}

// Writes `content` gzipped to `path`.
inline void write_gz_file(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary | std::ios::trunc);
  gzFile f = gzopen(path.c_str(), "wb");
  if (!f || gzwrite(f, content.data(), unsigned(content.size())) != int(content.size()) || gzclose(f) != Z_OK)
    throw std::runtime_error("cannot write " + path);
}

// The message of the hpc::Error that f throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Runs a shell command, returns its stdout; sets *status to the exit code.
inline std::string run_command(const std::string& cmd, int* status = nullptr) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  if (status) *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

inline bool have_program(const std::string& name) {
  int st = 0;
  run_command("command -v " + name + " >/dev/null 2>&1", &st);
  return st == 0;
}

}  // namespace hpc::test
