#include "src/workloads/resume.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

#include "io/hdf5_columns.hpp"
#include "io/result_file.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// An existing output must be an unfinished hpcalign result (it is rebuilt from the journal,
// so one damaged by the kill is fine); refuses a complete run and foreign files.
void check_resumable_output(const std::string& path, bool have_journal) {
  if (!file_exists(path)) return;
  if (!h5::is_hdf5(path)) throw Error("--resume: " + path + " is not an hpcalign result file; refusing to overwrite it");
  std::string program, status;
  try {
    program = read_string_attribute(path, "program");
    status = read_string_attribute(path, "status");
  } catch (const Error& e) {
    if (have_journal) return;  // damaged by the kill: rebuilt from the journal
    throw Error("--resume: " + path + " cannot be read (" + e.what() + ") and there is no journal " +
                TileJournal::path_for(path) + " to rebuild it from");
  }
  if (program != "hpcalign") throw Error("--resume: " + path + " is not an hpcalign result file; refusing to overwrite it");
  if (status == "complete")
    throw Error("--resume: " + path + " has status 'complete'; only an unfinished run can be resumed");
}

std::vector<checkpoint::RunParameter> to_strings(const PlanNotes& notes) {
  std::vector<checkpoint::RunParameter> out;
  for (const auto& [name, value] : notes) out.push_back({name, std::to_string(value)});
  return out;
}

PlanNotes from_strings(const std::vector<checkpoint::RunParameter>& notes) {
  PlanNotes out;
  for (const auto& n : notes) out.emplace_back(n.name, std::stoll(n.value));
  return out;
}

// The plan as the run left it: each journalled split, in order, replaces its tile by its pieces.
std::vector<Tile> apply_splits(std::vector<Tile> plan, const std::vector<std::pair<uint32_t, std::vector<Tile>>>& splits,
                               const std::string& journal_path) {
  for (const auto& [parent, pieces] : splits) {
    auto at = std::find_if(plan.begin(), plan.end(), [id = parent](const Tile& t) { return t.id == id; });
    if (at == plan.end())
      throw Error("--resume: " + journal_path + " splits tile " + std::to_string(parent) + ", which its plan does not hold");
    at = plan.erase(at);
    plan.insert(at, pieces.begin(), pieces.end());
  }
  return plan;
}

}  // namespace

int64_t plan_note(const PlanNotes& notes, const std::string& name) {
  for (const auto& [n, v] : notes)
    if (n == name) return v;
  return 0;
}

ResumableRun::ResumableRun(const std::string& workload, const std::string& out_path, bool resume, bool quiet,
                           std::vector<checkpoint::RunParameter> params)
    : out_path_(out_path), params_(std::move(params)), quiet_(quiet) {
  // The workload first: a resume with the wrong subcommand names it before anything else.
  params_.insert(params_.begin(), {"workload", workload});
  if (!resume) return;
  const std::string journal_path = TileJournal::path_for(out_path);
  check_resumable_output(out_path, file_exists(journal_path));
  TileJournal::Contents j;
  if (file_exists(journal_path)) j = TileJournal::read(journal_path, false);
  if (!j.has_plan) {
    if (!quiet) std::cerr << "hpcalign: --resume: no plan recorded yet in " << journal_path << "; starting afresh\n";
    return;
  }
  checkpoint::verify_parameters(out_path, j.params, params_);
  resuming_ = true;
  plan_ = apply_splits(std::move(j.plan), j.splits, journal_path);
  notes_ = from_strings(j.notes);
  std::set<uint32_t> planned, seen;
  for (const Tile& t : plan_) planned.insert(t.id);
  // A tile journalled twice (run again by rerun_unless) counts once.
  for (const auto& tile : j.records)
    if (planned.count(tile.id)) {
      records_.push_back(tile);
      if (seen.insert(tile.id).second) finished_.push_back(tile);
    }
  remaining_ = checkpoint::remaining_tiles(plan_, std::vector<uint32_t>(seen.begin(), seen.end()));
  for (const Tile& t : plan_)
    if (seen.count(t.id)) finished_cells_ += t.cells;
  journal_ = std::make_unique<TileJournal>(journal_path, j.valid_bytes);
  if (!quiet)
    std::cerr << "hpcalign: --resume: " << finished_.size() << " of " << plan_.size()
              << " tiles already done; running the other " << remaining_.size() << "\n";
}

std::vector<Tile> ResumableRun::begin(h5::File& out, const std::vector<Tile>& plan, const PlanNotes& notes) {
  checkpoint::store_plan(out, plan, params_);
  if (resuming_) return remaining_;
  journal_ = std::make_unique<TileJournal>(TileJournal::path_for(out_path_), plan, params_, to_strings(notes));
  return plan;
}

void ResumableRun::rerun_unless(const std::function<bool(uint32_t, const std::string&)>& keep) {
  if (records_.empty()) return;
  const std::string path = TileJournal::path_for(out_path_);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("--resume: cannot reopen the journal " + path);
  std::set<uint32_t> kept;
  finished_.clear();
  for (const auto& tile : records_)
    if (!kept.count(tile.id) && keep(tile.id, TileJournal::read_tile(in, tile))) {
      kept.insert(tile.id);
      finished_.push_back(tile);
    }
  const size_t before = plan_.size() - remaining_.size();
  remaining_ = checkpoint::remaining_tiles(plan_, std::vector<uint32_t>(kept.begin(), kept.end()));
  finished_cells_ = 0;
  for (const Tile& t : plan_)
    if (kept.count(t.id)) finished_cells_ += t.cells;
  if (!quiet_ && kept.size() < before)
    std::cerr << "hpcalign: --resume: " << before - kept.size()
              << " journalled tile(s) whose results did not reach the disk run again\n";
}

void ResumableRun::replay(const std::function<void(uint32_t, const std::string&)>& store) const {
  if (finished_.empty()) return;
  const std::string path = TileJournal::path_for(out_path_);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("--resume: cannot reopen the journal " + path);
  for (const auto& tile : finished_) store(tile.id, TileJournal::read_tile(in, tile));
}

void ResumableRun::record(const Tile& tile, const std::string& bytes) { journal_->append_tile(tile.id, bytes); }

void ResumableRun::record_split(uint32_t parent, const std::vector<Tile>& pieces) {
  journal_->append_split(parent, pieces);
}

void ResumableRun::complete() {
  if (journal_) journal_->remove();
}

}  // namespace hpc
