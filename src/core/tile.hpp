#pragma once
// A tile is the unit of work, scheduling, checkpointing and output. In src/core because every
// layer passes tiles on: the planner makes them, io journals them, the schedulers send them.
// search: (query batch) x (database length partition).
#include <cstdint>
#include <string>
#include <vector>

namespace hpc {

struct Tile {
  uint32_t id = 0;
  std::vector<uint32_t> queries;   // query indices (file order), similar lengths
  uint32_t part_begin = 0;         // range of positions in Database::by_length
  uint32_t part_end = 0;
  uint64_t cells = 0;              // cost estimate: sum over pairs of |q| x |t|
};

// Sorts tiles largest first (LPT: the scheduler hands them out in this order), stable, and
// numbers them 0..n-1 in that order.
void number_largest_first(std::vector<Tile>& tiles);

// Wire format of a Tile: MPI messages and the resume journal's plan.
std::string encode_tile(const Tile& t);
Tile decode_tile(const std::string& bytes);

}  // namespace hpc
