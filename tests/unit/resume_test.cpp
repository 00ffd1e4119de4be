// io/tile_journal.cpp, io/checkpoint.cpp and src/workloads/resume.cpp: the journal's records
// and plan notes, a torn tail, and ResumableRun's new-run / resume / refusal paths that every
// workload's --resume goes through.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "io/hdf5_columns.hpp"
#include "io/tile_journal.hpp"
#include "src/workloads/resume.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::error_of;
using test::temp_path;

std::vector<Tile> three_tiles() {
  std::vector<Tile> tiles(3);
  for (uint32_t i = 0; i < 3; ++i) {
    tiles[i].id = i;
    tiles[i].queries = {i, i + 10};
    tiles[i].part_begin = 5 * i;
    tiles[i].part_end = 5 * i + 5;
    tiles[i].cells = 100 * (i + 1);
  }
  return tiles;
}

const std::vector<checkpoint::RunParameter> kParams = {{"matrix", "BLOSUM62 crc32 0"}, {"seed", "42"}};

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// A new run of `workload` writing `out`: plan recorded, tiles 0..done-1 finished, then "killed"
// (the objects go out of scope without complete()).
void run_until_killed(const std::string& workload, const std::string& out, uint32_t done) {
  ResumableRun run(workload, out, false, true, kParams);
  h5::File file(out, h5::Mode::kCreate);
  h5::set_attribute(file, "", "program", std::string("hpcalign"));
  h5::set_attribute(file, "", "status", std::string("incomplete"));
  const std::vector<Tile> tiles = three_tiles();
  EXPECT_EQ(run.begin(file, tiles, {{"tile_subjects", 7}}).size(), 3u);
  for (uint32_t i = 0; i < done; ++i) run.record(tiles[i], "bytes of tile " + std::to_string(i));
}

TEST(TileJournal, PlanParametersNotesAndTilesRoundTrip) {
  const std::string path = temp_path("roundtrip.journal");
  {
    TileJournal j(path, three_tiles(), kParams, {{"window_sequences", "46"}});
    j.append_tile(2, std::string("\0binary\xff", 8));
    j.append_tile(0, "");
  }
  const TileJournal::Contents c = TileJournal::read(path);
  ASSERT_TRUE(c.has_plan);
  ASSERT_EQ(c.plan.size(), 3u);
  EXPECT_EQ(c.plan[1].queries, (std::vector<uint32_t>{1, 11}));
  EXPECT_EQ(c.plan[2].cells, 300u);
  ASSERT_EQ(c.params.size(), 2u);
  EXPECT_EQ(c.params[1].value, "42");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0].name, "window_sequences");
  ASSERT_EQ(c.tiles.size(), 2u);
  EXPECT_EQ(c.tiles[0].first, 2u);
  EXPECT_EQ(c.tiles[0].second, std::string("\0binary\xff", 8));
  EXPECT_EQ(c.tiles[1].second, "");
}

TEST(TileJournal, TornTailIsDroppedAndCutOnReopen) {
  const std::string path = temp_path("torn.journal");
  { TileJournal(path, three_tiles(), kParams).append_tile(1, "one"); }
  const uint64_t whole = TileJournal::read(path).valid_bytes;
  std::ofstream(path, std::ios::app) << "HPJ1T\x05";  // a record cut short by a kill
  TileJournal::Contents c = TileJournal::read(path);
  EXPECT_EQ(c.valid_bytes, whole);
  ASSERT_EQ(c.tiles.size(), 1u);
  { TileJournal(path, c.valid_bytes).append_tile(2, "two"); }
  c = TileJournal::read(path);
  ASSERT_EQ(c.tiles.size(), 2u);
  EXPECT_EQ(c.tiles[1].second, "two");
}

// Tiles of tens of MB (a global screen's CIGARs): written with one writev, checked with the
// parallel CRC, read back whole; a flipped byte inside one ends the reading there.
TEST(TileJournal, LargeTilesRoundTripAndCorruptionIsCaught) {
  const std::string path = temp_path("large.journal");
  std::string big(size_t(40) << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = char(i * 2654435761u >> 11);
  {
    TileJournal j(path, three_tiles(), kParams);
    j.append_tile(0, big);
    j.append_tile(1, "after");
  }
  TileJournal::Contents c = TileJournal::read(path);
  ASSERT_EQ(c.tiles.size(), 2u);
  EXPECT_TRUE(c.tiles[0].second == big);
  EXPECT_EQ(c.tiles[1].second, "after");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(c.valid_bytes) - std::streamoff(big.size() / 2));  // the middle of the big payload
    f.put(char(~big[big.size() / 2 + 50]));
  }
  c = TileJournal::read(path);
  EXPECT_TRUE(c.has_plan);
  EXPECT_EQ(c.tiles.size(), 0u);  // nothing from a damaged record on is trusted
}

TEST(Checkpoint, Crc32AndExactValues) {
  EXPECT_EQ(checkpoint::Crc32().hex(), "00000000");
  EXPECT_EQ(checkpoint::Crc32().add("123456789", 9).hex(), "cbf43926");  // the CRC-32 check value
  // Strings carry their end: "ab" + "c" and "a" + "bc" differ.
  EXPECT_NE(checkpoint::Crc32().add(std::string("ab")).add(std::string("c")).hex(),
            checkpoint::Crc32().add(std::string("a")).add(std::string("bc")).hex());
  // A buffer large enough to be cut in pieces on several threads: the same value as one
  // pass of zlib's crc32 (computed here byte by byte with the reflected polynomial).
  std::vector<uint8_t> big(size_t(70) << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 2654435761u >> 13);
  uint32_t ref = 0xFFFFFFFFu;
  for (uint8_t b : big) {
    ref ^= b;
    for (int k = 0; k < 8; ++k) ref = (ref >> 1) ^ (0xEDB88320u & (0u - (ref & 1u)));
  }
  char want[9];
  std::snprintf(want, sizeof want, "%08x", ref ^ 0xFFFFFFFFu);
  EXPECT_EQ(checkpoint::Crc32().add(std::string("head")).add(big).hex(),
            checkpoint::Crc32().add(std::string("head")).add(big.data(), big.size()).hex());
  EXPECT_EQ(checkpoint::Crc32().add(big).hex(), want);
  EXPECT_EQ(checkpoint::exact(0.1), "0.10000000000000001");
  EXPECT_EQ(checkpoint::exact(2), "2");
}

TEST(ResumableRun, NewRunJournalsAndCompleteRemovesTheJournal) {
  const std::string out = temp_path("new.h5");
  ResumableRun run("pss", out, false, true, kParams);
  EXPECT_FALSE(run.resuming());
  h5::File file(out, h5::Mode::kCreate);
  const std::vector<Tile> to_run = run.begin(file, three_tiles(), {});
  EXPECT_EQ(to_run.size(), 3u);
  EXPECT_TRUE(checkpoint::has_plan(file));
  run.record(to_run[0], "x");
  EXPECT_EQ(TileJournal::read(TileJournal::path_for(out)).tiles.size(), 1u);
  run.complete();
  EXPECT_FALSE(exists(TileJournal::path_for(out)));
}

TEST(ResumableRun, ResumeReplaysFinishedTilesAndRunsTheOthers) {
  const std::string out = temp_path("resume.h5");
  run_until_killed("msv", out, 2);
  ResumableRun run("msv", out, true, true, kParams);
  ASSERT_TRUE(run.resuming());
  EXPECT_EQ(run.stored_plan().size(), 3u);
  EXPECT_EQ(plan_note(run.stored_notes(), "tile_subjects"), 7);
  EXPECT_EQ(plan_note(run.stored_notes(), "absent"), 0);
  ASSERT_EQ(run.finished_count(), 2u);
  std::vector<std::pair<uint32_t, std::string>> replayed;
  run.replay([&](uint32_t id, const std::string& bytes) { replayed.emplace_back(id, bytes); });
  ASSERT_EQ(replayed.size(), 2u);
  EXPECT_EQ(replayed[1], std::make_pair(1u, std::string("bytes of tile 1")));
  EXPECT_EQ(run.finished_cells(), 300u);
  h5::File file(out, h5::Mode::kCreate);  // a resumed run refills a new output
  const std::vector<Tile> to_run = run.begin(file, run.stored_plan(), run.stored_notes());
  ASSERT_EQ(to_run.size(), 1u);
  EXPECT_EQ(to_run[0].id, 2u);
  run.record(to_run[0], "bytes of tile 2");  // appended to the same journal
  EXPECT_EQ(TileJournal::read(TileJournal::path_for(out)).tiles.size(), 3u);
}

// The driver's out-of-memory splits: tile 1 split into 3 and 4, 4 split again into 5 and 6, 3 and
// 5 finished before the kill. The resume works with the pieces in the parent's place, replays
// the finished pieces once and runs only tile 0, 6 and 2 (never a split tile again).
TEST(ResumableRun, ResumeAppliesJournalledSplits) {
  const std::string out = temp_path("splits.h5");
  auto piece = [](uint32_t id, uint64_t cells) {
    Tile t;
    t.id = id;
    t.queries = {id};
    t.cells = cells;
    return t;
  };
  {
    ResumableRun run("search", out, false, true, kParams);
    h5::File file(out, h5::Mode::kCreate);
    h5::set_attribute(file, "", "program", std::string("hpcalign"));
    h5::set_attribute(file, "", "status", std::string("incomplete"));
    run.begin(file, three_tiles(), {});
    run.record_split(1, {piece(3, 80), piece(4, 120)});
    run.record(piece(3, 80), "bytes of tile 3");
    run.record_split(4, {piece(5, 60), piece(6, 60)});
    run.record(piece(5, 60), "bytes of tile 5");
  }
  ResumableRun run("search", out, true, true, kParams);
  ASSERT_TRUE(run.resuming());
  std::vector<uint32_t> ids;
  for (const Tile& t : run.stored_plan()) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 3, 5, 6, 2}));
  EXPECT_EQ(run.finished_count(), 2u);
  EXPECT_EQ(run.finished_cells(), 140u);
  std::vector<uint32_t> replayed;
  run.replay([&](uint32_t id, const std::string&) { replayed.push_back(id); });
  EXPECT_EQ(replayed, (std::vector<uint32_t>{3, 5}));
  std::vector<uint32_t> to_run;
  for (const Tile& t : run.to_run(run.stored_plan())) to_run.push_back(t.id);
  EXPECT_EQ(to_run, (std::vector<uint32_t>{0, 6, 2}));
}

// rerun_unless: a journalled tile whose results did not reach the disk (a workload keeping
// its rows outside the journal says so) runs again; once it has a second record that stands,
// the next resume keeps that one.
TEST(ResumableRun, TilesWhoseResultsAreLostRunAgain) {
  const std::string out = temp_path("rerun.h5");
  run_until_killed("allvsall", out, 2);
  const auto lost = [](uint32_t, const std::string& bytes) { return bytes != "bytes of tile 0"; };
  {
    ResumableRun run("allvsall", out, true, true, kParams);
    run.rerun_unless(lost);
    ASSERT_EQ(run.finished_count(), 1u);
    EXPECT_EQ(run.finished_cells(), 200u);
    h5::File file(out, h5::Mode::kCreate);
    const std::vector<Tile> to_run = run.begin(file, run.stored_plan(), run.stored_notes());
    ASSERT_EQ(to_run.size(), 2u);
    EXPECT_EQ(to_run[0].id, 0u);
    EXPECT_EQ(to_run[1].id, 2u);
    run.record(to_run[0], "bytes of tile 0, again");  // then killed
  }
  ResumableRun run("allvsall", out, true, true, kParams);
  run.rerun_unless(lost);
  std::vector<std::pair<uint32_t, std::string>> replayed;
  run.replay([&](uint32_t id, const std::string& bytes) { replayed.emplace_back(id, bytes); });
  ASSERT_EQ(replayed.size(), 2u);
  EXPECT_EQ(replayed[0], std::make_pair(1u, std::string("bytes of tile 1")));
  EXPECT_EQ(replayed[1], std::make_pair(0u, std::string("bytes of tile 0, again")));
  h5::File file(out, h5::Mode::kCreate);
  const std::vector<Tile> to_run = run.begin(file, run.stored_plan(), run.stored_notes());
  ASSERT_EQ(to_run.size(), 1u);
  EXPECT_EQ(to_run[0].id, 2u);
}

TEST(ResumableRun, RefusesOtherParametersOtherWorkloadsAndCompleteFiles) {
  const std::string out = temp_path("refuse.h5");
  run_until_killed("allvsall", out, 1);
  const std::string seed = error_of([&] { ResumableRun("allvsall", out, true, true, {kParams[0], {"seed", "7"}}); });
  EXPECT_NE(seed.find("seed: the file has '42', this run '7'"), std::string::npos) << seed;
  const std::string workload = error_of([&] { ResumableRun("pss", out, true, true, kParams); });
  EXPECT_NE(workload.find("workload: the file has 'allvsall', this run 'pss'"), std::string::npos) << workload;
  {
    h5::File file(out, h5::Mode::kReadWrite);
    h5::set_attribute(file, "", "status", std::string("complete"));
  }
  EXPECT_NE(error_of([&] { ResumableRun("allvsall", out, true, true, kParams); }).find("status 'complete'"),
            std::string::npos);
  const std::string foreign = temp_path("foreign.h5");
  std::ofstream(foreign) << "not hdf5";
  EXPECT_NE(error_of([&] { ResumableRun("allvsall", foreign, true, true, kParams); }).find("not an hpcalign result"),
            std::string::npos);
}

TEST(ResumableRun, ResumeWithoutAnOutputOrAPlanStartsAfresh) {
  EXPECT_FALSE(ResumableRun("msv", temp_path("absent.h5"), true, true, kParams).resuming());
  const std::string out = temp_path("noplan.h5");
  {
    h5::File file(out, h5::Mode::kCreate);  // killed before its plan: no journal
    h5::set_attribute(file, "", "program", std::string("hpcalign"));
    h5::set_attribute(file, "", "status", std::string("incomplete"));
  }
  EXPECT_FALSE(ResumableRun("msv", out, true, true, kParams).resuming());
}

}  // namespace
}  // namespace hpc
