#include "io/database.hpp"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <numeric>

#include "io/fasta.hpp"
#include "io/hdf5_columns.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"

namespace hpc {
namespace {

constexpr const char* kFormat = "hpcalign-db";
// Version 2 stores the residues and the ids (each followed by '\n') as contiguous, unfiltered
// bytes: a 207M-residue load went from ~0.6 s (inflating chunks, then 590k variable-length
// strings through HDF5's heap) to the time of a page-cache copy, for ~30% more disk.
// Version 1 files (deflated residues, /db/ids as strings) are still read.
constexpr int64_t kFormatVersion = 2;

[[noreturn]] void reject(const std::string& path, const std::string& why) {
  throw InputError(path, 0, "is not an hpcalign database (" + why + ")");
}

// Checks everything later stages index with, so a damaged file fails here with its
// name rather than as an out-of-bounds read inside a kernel.
void validate(const Database& db) {
  const SequenceSet& s = db.seqs;
  const std::string& path = db.path;
  if (s.ids.empty()) reject(path, "it holds no sequences");
  if (s.offsets.size() != s.ids.size() + 1)
    reject(path, "/db/offsets has " + std::to_string(s.offsets.size()) + " entries for " +
                     std::to_string(s.ids.size()) + " sequences");
  if (s.offsets.front() != 0) reject(path, "/db/offsets does not start at 0");
  for (size_t i = 1; i < s.offsets.size(); ++i) {
    if (s.offsets[i] < s.offsets[i - 1]) reject(path, "/db/offsets decreases at entry " + std::to_string(i));
    if (s.offsets[i] - s.offsets[i - 1] > UINT32_MAX)
      reject(path, "sequence " + std::to_string(i - 1) + " is longer than 2^32-1 residues");
  }
  if (s.offsets.back() != s.residues.size())
    reject(path, "/db/offsets ends at " + std::to_string(s.offsets.back()) + " but /db/residues holds " +
                     std::to_string(s.residues.size()));
  // A max that vectorises, on all cores, first (a search byte by byte took ~70 ms for 207M residues).
  const size_t parts = s.residues.size() < (size_t(16) << 20) ? 1 : usable_cores();
  std::vector<uint8_t> part_max(parts, 0);
  run_parts(parts, [&](size_t k) {
    const size_t n = s.residues.size();
    uint8_t m = 0;
    for (size_t i = n * k / parts; i < n * (k + 1) / parts; ++i) m = std::max(m, s.residues[i]);
    part_max[k] = m;
  });
  const uint8_t highest = *std::max_element(part_max.begin(), part_max.end());
  const auto bad = highest < kAlphabetSize ? s.residues.end()
                                           : std::find_if(s.residues.begin(), s.residues.end(),
                                                          [](uint8_t c) { return c >= kAlphabetSize; });
  if (bad != s.residues.end())
    reject(path, "residue code " + std::to_string(*bad) + " at position " +
                     std::to_string(bad - s.residues.begin()) + " is outside the alphabet");

  if (db.by_length.size() != s.size())
    reject(path, "/db/by_length has " + std::to_string(db.by_length.size()) + " entries for " +
                     std::to_string(s.size()) + " sequences");
  std::vector<bool> seen(s.size(), false);
  for (size_t k = 0; k < db.by_length.size(); ++k) {
    const uint32_t i = db.by_length[k];
    if (i >= s.size() || seen[i]) reject(path, "/db/by_length is not a permutation of the sequences");
    seen[i] = true;
    if (k > 0 && !before_in_length_order(s, db.by_length[k - 1], i))
      reject(path, "/db/by_length is not sorted by length, then index");
  }
}

// "id\nid\n...": one id per '\n'-terminated line (ids are first words, so hold none).
std::vector<std::string> split_id_text(const std::vector<uint8_t>& text, const std::string& path) {
  if (!text.empty() && text.back() != '\n') reject(path, "/db/id_text does not end with a newline");
  std::vector<std::string> ids;
  ids.reserve(size_t(std::count(text.begin(), text.end(), uint8_t('\n'))));
  const char* p = reinterpret_cast<const char*>(text.data());
  const char* const end = p + text.size();
  while (p < end) {
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    ids.emplace_back(p, eol);
    p = eol + 1;
  }
  return ids;
}

Database read_hdf5_database(const std::string& path) {
  h5::File f(path, h5::Mode::kReadOnly);
  if (!h5::has_attribute(f, "", "format")) reject(path, "no 'format' attribute");
  const std::string format = h5::read_string_attribute(f, "", "format");
  if (format != kFormat) reject(path, "format is '" + format + "'");
  const int64_t version = h5::has_attribute(f, "", "format_version") ? h5::read_int_attribute(f, "", "format_version") : -1;
  if (version != 1 && version != kFormatVersion)
    throw InputError(path, 0, "hpcalign database format version " + std::to_string(version) +
                                  " is not supported (this build reads versions 1 and " + std::to_string(kFormatVersion) +
                                  ")");
  const char* ids_column = version == 1 ? "db/ids" : "db/id_text";
  for (const char* column : {"db/residues", "db/offsets", ids_column, "db/by_length"})
    if (!f.exists(column)) reject(path, std::string("missing /") + column);

  Database db;
  db.path = path;
  // Whole datasets in one read each.
  db.seqs.residues = h5::read_all<uint8_t>(f, "db/residues");
  db.seqs.offsets = h5::read_all<uint64_t>(f, "db/offsets");
  db.seqs.ids = version == 1 ? h5::read_all<std::string>(f, ids_column)
                             : split_id_text(h5::read_all<uint8_t>(f, ids_column), path);
  db.by_length = h5::read_all<uint32_t>(f, "db/by_length");
  db.seqs.source = path;
  validate(db);
  return db;
}

}  // namespace

Database make_database(SequenceSet seqs) {
  if (seqs.size() > UINT32_MAX) throw Error(seqs.source + ": more than 2^32-1 sequences");
  Database db;
  db.path = seqs.source;
  db.by_length.resize(seqs.size());
  std::iota(db.by_length.begin(), db.by_length.end(), 0u);
  std::sort(db.by_length.begin(), db.by_length.end(),
            [&](uint32_t a, uint32_t b) { return before_in_length_order(seqs, a, b); });
  db.seqs = std::move(seqs);
  return db;
}

Database load_database(const std::string& path, ResidueRules rules, FastaReport* report,
                       std::vector<std::string>* header_lines) {
  if (is_hdf5_file(path)) {
    if (header_lines) header_lines->clear();
    if (rules == ResidueRules::kHmmer)
      std::cerr << "hpcalign: warning: " << path << " was encoded by makedb under BLAST's residue rules (U, O, J "
                   "read as X, a final '*' dropped); for hmmsearch's rules give the FASTA file\n";
    return read_hdf5_database(path);
  }
  Database db = make_database(read_fasta(path, report, rules, header_lines));
  db.path = path;
  return db;
}

void write_database(const Database& db, const std::string& path) {
  const SequenceSet& s = db.seqs;
  if (db.by_length.size() != s.size())
    throw Error("cannot write " + path + ": database order has " + std::to_string(db.by_length.size()) +
                " entries for " + std::to_string(s.size()) + " sequences");
  h5::File f(path, h5::Mode::kCreate);
  std::vector<uint8_t> id_text;
  for (const std::string& id : s.ids) {
    if (id.find('\n') != std::string::npos) throw Error("cannot write " + path + ": sequence id '" + id + "' holds a newline");
    id_text.insert(id_text.end(), id.begin(), id.end());
    id_text.push_back('\n');
  }
  h5::write_contiguous_column(f, "db/residues", s.residues);
  h5::write_column(f, "db/offsets", s.offsets);
  h5::write_contiguous_column(f, "db/id_text", id_text);
  h5::write_column(f, "db/by_length", db.by_length);
  h5::set_attribute(f, "", "format", std::string(kFormat));
  h5::set_attribute(f, "", "format_version", kFormatVersion);
  h5::set_attribute(f, "", "sequences", static_cast<int64_t>(s.size()));
  h5::set_attribute(f, "", "residues", static_cast<int64_t>(s.total_residues()));
  h5::set_attribute(f, "", "source", s.source.empty() ? db.path : s.source);
  h5::set_attribute(f, "", "program", std::string("hpcalign"));
  h5::set_attribute(f, "", "version", std::string(HPCALIGN_VERSION));
  f.close();
}

bool is_hdf5_file(const std::string& path) { return h5::is_hdf5(path); }

}  // namespace hpc
