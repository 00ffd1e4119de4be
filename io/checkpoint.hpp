#pragma once
// Checkpoint/resume plumbing shared by every tiled workload (kill/resume). It works on any
// result file that follows the sink convention of io/result_file.hpp:
//   /tiles/{id,status}        ledger: a tile's row lands in the same flush as its results
//   /staging/<table>/...      result rows of finished tiles, with a 'tile' column
//   /plan/{id,part_begin,part_end,cells,query_count,queries}   the run's tiles, stored at
//       the start so that a resume uses the same tiles even when the new run has other
//       worker counts or devices (the planner sizes tiles by capacity)
//   attributes "param:<name>" on /plan: everything that changes results; a resume with
//       other values is refused.
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5_columns.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"
#include "src/core/tile.hpp"

namespace hpc::checkpoint {

struct RunParameter {
  std::string name, value;
};

void store_plan(h5::File& file, const std::vector<Tile>& tiles, const std::vector<RunParameter>& params);
bool has_plan(const h5::File& file);
std::vector<Tile> load_plan(const h5::File& file);
// Throws hpc::Error listing every parameter that differs ("matrix: file BLOSUM62, now BLOSUM50").
void verify_parameters(const h5::File& file, const std::vector<RunParameter>& params);
// The same check against parameters read from elsewhere (the resume journal); `source` names it.
void verify_parameters(const std::string& source, const std::vector<RunParameter>& stored,
                       const std::vector<RunParameter>& params);

// Makes the ledger and the staging table consistent after a crash at any instant: ledger
// rows cut short are dropped, and so are staging rows of tiles without a ledger row (a
// crash between the rows and the ledger). Returns the ids of the finished tiles.
std::vector<uint32_t> recover_ledger(h5::File& file, const std::string& staging_group);

// The plan's tiles not in `done`, in plan order.
std::vector<Tile> remaining_tiles(const std::vector<Tile>& plan, const std::vector<uint32_t>& done);

// Content fingerprints for parameters: CRC-32 of ids and residues, with the counts.
std::string fingerprint(const SequenceSet& seqs);
std::string fingerprint(const ScoreMatrix& m);

// CRC-32 over pieces, for a workload's own fingerprints (models, profiles).
class Crc32 {
 public:
  Crc32& add(const void* data, size_t bytes);
  Crc32& add(const std::string& s) { return add(s.c_str(), s.size() + 1); }  // NUL: "ab"+"c" != "a"+"bc"
  template <class T>
  Crc32& add(const std::vector<T>& v) {
    return add(v.data(), v.size() * sizeof(T));
  }
  // As add() of `bytes` bytes whose own CRC-32 (from 0) is `crc` (zlib's crc32_combine).
  Crc32& append(uint32_t crc, size_t bytes);
  std::string hex() const;  // 8 hex digits
  uint32_t value() const { return crc_; }

 private:
  uint32_t crc_ = 0;
};

// A double as a parameter value: every bit kept (%.17g), so a resume compares exactly.
std::string exact(double v);

}  // namespace hpc::checkpoint
