#pragma once
// The resume journal of a tiled run: OUT.journal next to the HDF5 output (kill/resume).
//
// Why a journal besides the HDF5 /tiles ledger: serial HDF5 1.10 reuses file space freed
// within a session (a column's last chunk moves when it grows), so a kill -9 in the middle
// of a flush can leave metadata that points at bytes already overwritten: data committed
// by an earlier flush becomes unreadable ("inflate() failed" - seen in the dead-worker
// test). An append-only file of checksummed records has no such window: a record is
// either whole or a torn tail that the reader drops. The HDF5 file keeps its staging rows
// and ledger (for `view` of a partial run); --resume rebuilds it from the journal.
//
// Records: "HPJ1" kind(u8) length(u64) payload crc32(u32). Kinds: 'P' the plan, the run
// parameters and the plan notes (first record), 'T' one finished tile (id + the worker's
// result bytes), 'S' a tile split by the driver because it did not fit its device (the
// parent's id and the tiles that replace it, src/workloads/tile_splits.hpp). Plan notes say how the planner chose the tiles (window sizes, batch
// sizes): a resumed run reports them in its attributes without planning again.
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/checkpoint.hpp"
#include "src/core/tile.hpp"

namespace hpc {

class TileJournal {
 public:
  static std::string path_for(const std::string& out_path) { return out_path + ".journal"; }

  struct TileRecord {
    uint32_t id = 0;
    uint64_t offset = 0, length = 0;  // the record's payload in the file
  };
  struct Contents {
    bool has_plan = false;
    std::vector<Tile> plan;
    std::vector<checkpoint::RunParameter> params;
    std::vector<checkpoint::RunParameter> notes;
    std::vector<TileRecord> records;                       // finished tiles, in arrival order
    std::vector<std::pair<uint32_t, std::vector<Tile>>> splits;  // parent id, its tiles; in order
    std::vector<std::pair<uint32_t, std::string>> tiles;  // their bytes (with_payloads only)
    uint64_t valid_bytes = 0;                              // length of the whole records
  };
  // Reads every whole record, one at a time; a torn or corrupt tail ends the reading (it is
  // dropped). Without `with_payloads` only the tiles' places are kept (a journal holds every
  // result of a run: a resume replays them one by one with read_tile).
  static Contents read(const std::string& path, bool with_payloads = true);
  // The worker bytes of one tile, read again from the journal open in `in`.
  static std::string read_tile(std::istream& in, const TileRecord& record);

  // Creates (truncates) the journal and writes the plan record.
  TileJournal(const std::string& path, const std::vector<Tile>& plan,
              const std::vector<checkpoint::RunParameter>& params,
              const std::vector<checkpoint::RunParameter>& notes = {});
  // Reopens a journal for appending after its last whole record (the torn tail is cut).
  TileJournal(const std::string& path, uint64_t valid_bytes);
  ~TileJournal();
  TileJournal(const TileJournal&) = delete;
  TileJournal& operator=(const TileJournal&) = delete;

  // Appends one finished tile (written before returning; synced to disk by the first record a
  // second or more after the last sync, or at close: see sync()).
  void append_tile(uint32_t tile_id, const std::string& result);
  // Appends a split: tile `parent` is replaced by `pieces` (synced at once: the pieces'
  // results, journalled later, are meaningless without it).
  void append_split(uint32_t parent, const std::vector<Tile>& pieces);
  // Deletes the journal (the run finished: the HDF5 file is complete).
  void remove();

 private:
  void write_record(char kind, const std::string& payload);
  void sync(bool now);
  std::string path_;
  int fd_ = -1;
  std::chrono::steady_clock::time_point synced_{};
};

}  // namespace hpc
