#include "src/workloads/search_resume.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <iostream>
#include <set>

#include "io/hdf5_columns.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

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

}  // namespace

std::vector<checkpoint::RunParameter> search_run_parameters(const SearchOptions& opt, const SequenceSet& queries,
                                                            const Database& db, const ScoreMatrix& matrix,
                                                            const KarlinParams& karlin) {
  return {
      {"queries", checkpoint::fingerprint(queries)},
      {"database", checkpoint::fingerprint(db.seqs)},
      {"matrix", checkpoint::fingerprint(matrix)},
      {"gap_open", std::to_string(opt.gap_open)},
      {"gap_extend", std::to_string(opt.gap_extend)},
      {"max_hits", std::to_string(opt.max_hits)},
      {"evalue", exact(opt.max_evalue)},
      {"lambda", exact(karlin.lambda)},
      {"K", exact(karlin.K)},
  };
}

std::unique_ptr<ResultFile> open_search_output(const SearchOptions& opt,
                                               const std::vector<checkpoint::RunParameter>& params,
                                               SearchResume& resume) {
  resume = SearchResume{};
  const std::string journal_path = TileJournal::path_for(opt.out_path);
  if (opt.resume) {
    check_resumable_output(opt.out_path, file_exists(journal_path));
    TileJournal::Contents j;
    if (file_exists(journal_path)) j = TileJournal::read(journal_path);
    if (!j.has_plan) {
      if (!opt.quiet) std::cerr << "hpcalign: --resume: no plan recorded yet in " << journal_path << "; starting afresh\n";
    } else {
      checkpoint::verify_parameters(opt.out_path, j.params, params);
      resume.active = true;
      resume.plan = std::move(j.plan);
      std::set<uint32_t> planned, seen;
      for (const Tile& t : resume.plan) planned.insert(t.id);
      for (auto& tile : j.tiles)
        if (planned.count(tile.first) && seen.insert(tile.first).second) resume.finished.push_back(std::move(tile));
      std::vector<uint32_t> done(seen.begin(), seen.end());
      resume.remaining = checkpoint::remaining_tiles(resume.plan, done);
      for (const Tile& t : resume.plan)
        if (seen.count(t.id)) resume.done_cells += t.cells;
      resume.journal = std::make_unique<TileJournal>(journal_path, j.valid_bytes);
      if (!opt.quiet)
        std::cerr << "hpcalign: --resume: " << resume.finished.size() << " of " << resume.plan.size()
                  << " tiles already done; running the other " << resume.remaining.size() << "\n";
    }
  }
  return std::make_unique<ResultFile>(opt.out_path);
}

}  // namespace hpc
