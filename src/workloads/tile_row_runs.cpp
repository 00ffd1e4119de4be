#include "src/workloads/tile_row_runs.hpp"

#include <filesystem>

#include "io/run_files.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

enum TileRowsKind : uint8_t { kInRunFile = 'R', kInline = 'P' };

}  // namespace

TileRowWriter::TileRowWriter(const std::string& out_path, int worker, const RowSchema& schema)
    : run_dir_(run_directory_for(out_path)), file_(run_dir_, "w" + std::to_string(worker), schema) {}

void TileRowWriter::put(WireWriter& w, uint32_t tile, const std::string& packed) {
  // The master creates the directory before it hands out the first tile.
  if (!sees_run_dir_) sees_run_dir_ = std::filesystem::is_directory(run_dir_);
  if (*sees_run_dir_) {
    w.put<uint8_t>(kInRunFile);
    file_.write(tile, packed).put(w);
  } else {
    w.put<uint8_t>(kInline);
    w.put(packed);
  }
}

TileRows TileRows::get(WireReader& r) {
  TileRows t;
  const uint8_t kind = r.get<uint8_t>();
  if (kind == kInRunFile)
    t.run = RowRun::get(r);
  else if (kind == kInline)
    t.inline_rows = true, t.packed = r.get_string();
  else
    throw Error("internal: a tile's rows of unknown kind " + std::to_string(int(kind)));
  return t;
}

TileRowRuns::TileRowRuns(const std::string& out_path, RowSchema schema)
    : run_dir_(run_directory_for(out_path)), schema_(std::move(schema)) {}

void TileRowRuns::prepare(bool resume) const { prepare_run_directory(run_dir_, !resume); }

bool TileRowRuns::replayable(const TileRows& t) const { return t.inline_rows || is_whole(run_dir_, t.run, schema_); }

void TileRowRuns::store(uint32_t tile_id, const TileRows& t) {
  if (t.inline_rows) {
    if (!master_file_) master_file_ = std::make_unique<RowRunWriter>(run_dir_, "master", schema_);
    runs_.push_back(master_file_->write(tile_id, t.packed));
  } else {
    runs_.push_back(t.run);
  }
  rows_ += runs_.back().rows;
}

void TileRowRuns::merge_into(h5::File& out) {
  master_file_.reset();
  merge_row_runs(run_dir_, runs_, schema_, out);
}

void TileRowRuns::remove() const { remove_run_directory(run_dir_); }

}  // namespace hpc
