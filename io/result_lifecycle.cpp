#include "io/result_lifecycle.hpp"

#include <unistd.h>

#include "io/hdf5_columns.hpp"

namespace hpc::result_lifecycle {

namespace {
constexpr size_t kLedgerChunk = 1024;
}  // namespace

void begin(h5::File& f, const std::string& workload) {
  h5::set_attribute(f, "", "program", std::string("hpcalign"));
  h5::set_attribute(f, "", "version", std::string(HPCALIGN_VERSION));
  if (!workload.empty()) h5::set_attribute(f, "", "workload", workload);
  h5::set_attribute(f, "", "start_time", h5::utc_now_iso8601());
  h5::set_attribute(f, "", "status", std::string("incomplete"));
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) h5::set_attribute(f, "", "host", std::string(host));
  f.flush();
}

void write_sequences(h5::File& f, const std::string& group, const SequenceSet& seqs) {
  std::vector<uint32_t> lengths(seqs.size());
  for (size_t i = 0; i < seqs.size(); ++i) lengths[i] = seqs.length(i);
  h5::write_column(f, group + "/id", seqs.ids);
  h5::write_column(f, group + "/length", lengths);
}

void create_ledger(h5::File& f) {
  h5::create_column<uint32_t>(f, "tiles/id", kLedgerChunk);
  h5::create_column<uint8_t>(f, "tiles/status", kLedgerChunk);
}

void append_ledger(h5::File& f, const std::vector<uint32_t>& tile_ids) {
  h5::append(f, "tiles/id", tile_ids);
  h5::append(f, "tiles/status", std::vector<uint8_t>(tile_ids.size(), kTileDone));
}

void complete(h5::File& f) {
  h5::set_attribute(f, "", "end_time", h5::utc_now_iso8601());
  h5::set_attribute(f, "", "status", std::string("complete"));
}

void mark_stopped(h5::File& f, const std::string& signal_name) {
  h5::set_attribute(f, "", "stopped_by_signal", signal_name);
  f.flush();
}

}  // namespace hpc::result_lifecycle
