#pragma once
// `hpcalign search --resume` (issue 7): finds what an unfinished run finished, refuses other
// parameters, and hands the run the stored plan, the finished tiles to replay into a fresh
// HDF5 file, and the tiles still to do. The source of truth is the journal OUT.journal
// (io/tile_journal.hpp says why not the HDF5 ledger alone).
#include <memory>
#include <utility>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/database.hpp"
#include "io/result_file.hpp"
#include "io/tile_journal.hpp"
#include "src/stats/karlin.hpp"
#include "src/workloads/search.hpp"

namespace hpc {

struct SearchResume {
  bool active = false;                                     // resuming: use `plan`, replay `finished`
  std::vector<Tile> plan;                                  // the stored plan (all tiles)
  std::vector<Tile> remaining;                             // its tiles not yet finished
  std::vector<std::pair<uint32_t, std::string>> finished;  // finished tiles' worker results
  uint64_t done_cells = 0;
  std::unique_ptr<TileJournal> journal;  // open for appending when resuming (a new run creates it with its plan)
};

// Everything that changes the results: content fingerprints (not paths: a file may move
// between nodes) and the scoring and reporting options.
std::vector<checkpoint::RunParameter> search_run_parameters(const SearchOptions& opt, const SequenceSet& queries,
                                                            const Database& db, const ScoreMatrix& matrix,
                                                            const KarlinParams& karlin);

// On the master: creates the output file (always new: a resumed run replays the finished
// tiles into it). With opt.resume, reads the journal and fills `resume`; with no journal or
// one cut off before its plan, starts afresh (so a requeued job can always pass --resume).
// Throws hpc::Error for a complete output, a foreign file, or other parameters.
std::unique_ptr<ResultFile> open_search_output(const SearchOptions& opt,
                                               const std::vector<checkpoint::RunParameter>& params,
                                               SearchResume& resume);

}  // namespace hpc
