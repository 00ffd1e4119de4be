#pragma once
// What every result file shares, whatever its table (/hits, /pss, /msv; README.md, "Result
// file"): the provenance attributes and the status, the sequence groups, the ledger of
// finished tiles, and the end. io/result_file.hpp (search, allvsall, merge), the pss file
// (src/pss/pss_output.hpp) and the msv file (src/workloads/msv_output.hpp) go through it, so a
// reader (view, merge, --resume, h5py) finds the same things in each.
#include <cstdint>
#include <string>
#include <vector>

#include "src/core/sequence.hpp"

namespace hpc {

namespace h5 {
class File;
}

namespace result_lifecycle {

constexpr uint8_t kTileDone = 1;  // /tiles/status of a finished tile

// Attributes program, version, start_time, host and status "incomplete" (and workload when
// given), flushed: a run that dies before its first tile still leaves a readable file.
void begin(h5::File& f, const std::string& workload = "");
// /<group>/{id,length} (group: "queries", "targets").
void write_sequences(h5::File& f, const std::string& group, const SequenceSet& seqs);
// The ledger of finished tiles, /tiles/{id,status}: a tile's entry lands in the flush that
// stores its rows (io/checkpoint.hpp).
void create_ledger(h5::File& f);
void append_ledger(h5::File& f, const std::vector<uint32_t>& tile_ids);
// end_time and status "complete" (the caller has written every row).
void complete(h5::File& f);
// A signal stopped the run: attribute stopped_by_signal, flushed; status stays "incomplete"
// (the journal beside the file is what --resume continues from).
void mark_stopped(h5::File& f, const std::string& signal_name);

}  // namespace result_lifecycle
}  // namespace hpc
