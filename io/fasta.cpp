#include "io/fasta.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"

// Decisions (see io/fasta.hpp for the contract):
// - BLAST's rules: a single '*' ending a record is a stop-codon marker and is dropped (as
//   BLAST does); a '*' elsewhere is kept as the stop code. HMMER's rules keep it (hmmsearch
//   counts it in the target's length).
// - Whitespace (including '\r' of CRLF files) inside sequence lines is skipped; blank
//   lines anywhere are ignored.
// - A NUL byte (or, before the first header, any non-text byte) means the file is binary.

namespace hpc {

namespace {

constexpr size_t kReadBlock = size_t(1) << 20;    // bytes per gzread call
constexpr unsigned kZlibBuffer = 1u << 18;        // zlib's own input buffer
constexpr uint8_t kSkip = 0xFE;                   // whitespace inside a sequence line
constexpr uint8_t kRare = 0xFD;                   // U/O/J: stored as X, counted

// Byte -> code, with whitespace and the rare letters marked, so the hot loop has a
// single test (code < kAlphabetSize) for the usual case.
std::array<uint8_t, 256> build_byte_classes(ResidueRules rules) {
  std::array<uint8_t, 256> t = residue_codes(rules);
  for (unsigned char c : {' ', '\t', '\r', '\v', '\f'}) t[c] = kSkip;
  if (rules == ResidueRules::kBlast)
    for (unsigned char c : {'U', 'O', 'J', 'u', 'o', 'j'}) t[c] = kRare;
  return t;
}

std::string describe_byte(unsigned char c) {
  char buf[32];
  if (c >= 0x21 && c < 0x7F)
    std::snprintf(buf, sizeof buf, "'%c'", c);
  else
    std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
  return buf;
}

// Formats users give for FASTA by mistake, named by their first bytes (the reader takes plain
// and gzip text only; anything else would be reported as stray text or binary data).
const char* misgiven_format(const unsigned char* p, size_t n) {
  const auto starts = [&](const char* magic, size_t len) { return n >= len && std::memcmp(p, magic, len) == 0; };
  if (starts("BZh", 3) && n >= 4 && p[3] >= '1' && p[3] <= '9')
    return "bzip2-compressed: hpcalign reads plain or gzip FASTA (decompress it, e.g. bunzip2 -k, or recompress with gzip)";
  if (starts("\xFD" "7zXZ", 5))
    return "xz-compressed: hpcalign reads plain or gzip FASTA (decompress it, e.g. xz -dk, or recompress with gzip)";
  if (starts("\x28\xB5\x2F\xFD", 4))
    return "zstd-compressed: hpcalign reads plain or gzip FASTA (decompress it, e.g. zstd -d, or recompress with gzip)";
  if (starts("PK\x03\x04", 4)) return "a zip archive, not a FASTA file (unzip it first)";
  if (starts("\x89HDF", 4))  // the signature's '\n' ends the first line after 5 bytes
    return "an HDF5 file (a makedb database or a result file), not FASTA: give the FASTA file here";
  return nullptr;
}

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose_r(f); }
};

class FastaParser {
 public:
  FastaParser(const std::string& path, ResidueRules rules)
      : path_(path), classes_(build_byte_classes(rules)), drop_final_stop_(rules == ResidueRules::kBlast) {
    set_.source = path;
    for (unsigned char c : {'A', 'C', 'G', 'T'}) acgt_codes_ |= uint64_t(1) << classes_[c];
    nucleotide_codes_ = acgt_codes_ | uint64_t(1) << classes_['N'] | uint64_t(1) << kCodeX;  // U: X (BLAST's rules)
    if (classes_['U'] < 64) nucleotide_codes_ |= uint64_t(1) << classes_['U'];
  }

  // Residues can be at most the bytes of a plain file: one allocation, no regrowth.
  void reserve(size_t residues) {
    if (keep_residues_) set_.residues.reserve(residues);
  }
  // Header lines alone, no residues kept (every length 0): each record's residues checked, then
  // dropped (kChecked), or its residue lines passed over unread (kSkipped: a file this run has
  // read and checked already, at the cost of finding line ends).
  void headers_only(ResidueLines how) { keep_residues_ = false, skip_residues_ = how == ResidueLines::kSkipped; }
  // Each record's header line goes to `lines` too (nullptr: none kept, as by default).
  void keep_header_lines(std::vector<std::string>* lines) {
    header_lines_ = lines;
    if (lines) lines->clear();
  }
  void feed(const char* p, size_t n);
  SequenceSet finish();
  size_t rare_letters() const { return rare_; }
  size_t nucleotide_like() const { return nucleotide_like_; }

 private:
  void start_record();
  void end_record();
  void parse_sequence(const unsigned char* p, size_t n);
  bool looks_like_nucleotides(size_t start) const;
  [[noreturn]] void fail(const std::string& what) const { throw InputError(path_, line_, what); }

  std::string path_;
  std::array<uint8_t, 256> classes_;
  bool drop_final_stop_;
  SequenceSet set_;
  long line_ = 1;              // line of the byte being read
  bool at_line_start_ = true;
  bool in_header_ = false;
  bool in_record_ = false;     // a header has been seen
  long header_line_ = 0;
  std::string header_;
  std::vector<std::string>* header_lines_ = nullptr;
  bool keep_residues_ = true;
  bool skip_residues_ = false;
  size_t filled_ = 0;          // residues of set_.residues in use (the rest is slack)
  size_t rare_ = 0;
  uint64_t acgt_codes_ = 0, nucleotide_codes_ = 0;  // bit c: code c is one of those letters
  size_t nucleotide_like_ = 0;
};

void FastaParser::feed(const char* data, size_t n) {
  const char* p = data;
  const char* end = data + n;
  while (p < end) {
    if (at_line_start_ && *p == '>') {
      end_record();
      header_.clear();
      header_line_ = line_;
      in_header_ = true;
      ++p;
    }
    at_line_start_ = false;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    const char* stop = nl ? nl : end;
    if (in_header_)
      header_.append(p, size_t(stop - p));
    else if (!skip_residues_)
      parse_sequence(reinterpret_cast<const unsigned char*>(p), size_t(stop - p));
    if (!nl) return;
    if (in_header_) start_record();
    in_header_ = false;
    at_line_start_ = true;
    ++line_;
    p = nl + 1;
  }
}

void FastaParser::start_record() {
  // Id: the first whitespace-delimited word of the header.
  if (header_.find('\0') != std::string::npos)
    throw InputError(path_, header_line_, "binary data (NUL byte): not a FASTA file");
  const char* ws = " \t\r\v\f";
  const size_t b = header_.find_first_not_of(ws);
  if (b == std::string::npos) throw InputError(path_, header_line_, "header with an empty id");
  const size_t e = header_.find_first_of(ws, b);
  set_.ids.emplace_back(header_, b, e == std::string::npos ? std::string::npos : e - b);
  if (header_lines_) {  // the line as it is, but for the '\r' of a "\r\n" end
    header_lines_->push_back(header_);
    if (header_.back() == '\r') header_lines_->back().pop_back();
  }
  in_record_ = true;
}

void FastaParser::end_record() {
  if (!in_record_) return;
  if (skip_residues_) {
    set_.offsets.push_back(filled_);
    in_record_ = false;
    return;
  }
  const size_t start = set_.offsets.back();
  const bool stop_dropped = drop_final_stop_ && filled_ > start && set_.residues[filled_ - 1] == kCodeStop;
  if (stop_dropped) --filled_;  // stop-codon marker
  if (filled_ == start) {
    std::string why = "sequence '" + set_.ids.back() + "' has no residues";
    if (stop_dropped) why += " (only a '*', the stop-codon marker BLAST's rules drop)";
    // A file whose lines end in CR alone reads as one header line holding the whole file.
    const size_t cr = header_.find('\r');
    if (cr != std::string::npos && header_.find_first_not_of(" \t\r\v\f", cr) != std::string::npos)
      why += ": the header holds a CR followed by more text, as a file whose lines end in CR alone (old Mac "
             "text) reads; convert its line ends to LF (e.g. tr '\\r' '\\n')";
    throw InputError(path_, header_line_, why);
  }
  if (looks_like_nucleotides(start)) ++nucleotide_like_;
  if (!keep_residues_) filled_ = start;
  set_.offsets.push_back(filled_);
  in_record_ = false;
}

// A DNA/RNA record given as protein (a CDS file, PDB seqres's mol:na entries): 20+ residues, all
// A/C/G/T/U/N (U read as X), at least half A/C/G/T, with A, C and G all present (Gly/Ala-rich
// peptides are not taken for DNA). Proteins fail on their first other letter.
bool FastaParser::looks_like_nucleotides(size_t start) const {
  const size_t n = filled_ - start;
  if (n < 20) return false;
  size_t acgt = 0;
  uint64_t seen = 0;
  for (size_t i = start; i < filled_; ++i) {
    const uint8_t c = set_.residues[i];
    if (c >= 64 || !(nucleotide_codes_ >> c & 1)) return false;
    acgt += acgt_codes_ >> c & 1;
    seen |= uint64_t(1) << c;
  }
  const uint64_t acg = uint64_t(1) << classes_['A'] | uint64_t(1) << classes_['C'] | uint64_t(1) << classes_['G'];
  return 2 * acgt >= n && (seen & acg) == acg;
}

void FastaParser::parse_sequence(const unsigned char* p, size_t n) {
  if (!in_record_) {  // only blank lines may precede the first header
    if (line_ == 1 && n >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0)  // as some Windows editors save
      fail("starts with a UTF-8 byte-order mark: not a plain FASTA file (save it without the mark)");
    if (line_ == 1)
      if (const char* what = misgiven_format(p, n)) fail(what);
    for (size_t i = 0; i < n; ++i)
      if (classes_[p[i]] != kSkip) {
        if (p[i] < 0x20 || p[i] >= 0x7F) fail("binary data (" + describe_byte(p[i]) + "): not a FASTA file");
        fail("text before the first '>' header (" + describe_byte(p[i]) + ")");
      }
    return;
  }
  if (set_.residues.size() < filled_ + n)  // grow geometrically (within the reserve if any)
    set_.residues.resize(std::max(filled_ + n, std::max(2 * set_.residues.size(), set_.residues.capacity())));
  uint8_t* out = set_.residues.data() + filled_;
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t code = classes_[p[i]];
    if (code < kHmmerAlphabetSize) {  // BLAST's table has no code past kAlphabetSize
      out[k++] = code;
    } else if (code == kRare) {
      out[k++] = kCodeX;
      ++rare_;
    } else if (code != kSkip) {
      if (p[i] == 0) fail("binary data (NUL byte): not a FASTA file");
      fail("invalid character " + describe_byte(p[i]) + " in sequence '" + set_.ids.back() + "'");
    }
  }
  filled_ += k;
}

SequenceSet FastaParser::finish() {
  if (in_header_) start_record();  // last line was a header without a newline
  end_record();
  if (set_.empty()) throw InputError(path_, 0, "no sequences");
  set_.residues.resize(filled_);
  if (set_.residues.capacity() - filled_ > filled_ / 4) set_.residues.shrink_to_fit();  // give back big slack
  return std::move(set_);
}

// Reads `path` (plain or gzip) through `parser`.
SequenceSet read_file(FastaParser& parser, const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path, 0, "is a directory, not a FASTA file");

  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  gzbuffer(file.get(), kZlibBuffer);

  if (gzdirect(file.get())) parser.reserve(size_t(st.st_size));
  std::vector<char> block(kReadBlock);
  for (;;) {
    const int n = gzread(file.get(), block.data(), static_cast<unsigned>(block.size()));
    int err = Z_OK;
    const char* msg = gzerror(file.get(), &err);
    // A truncated gzip stream ends with Z_BUF_ERROR but gzread still returns 0.
    if (n < 0 || err != Z_OK) {
      std::string why = err == Z_ERRNO ? std::strerror(errno) : msg;
      if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);  // zlib prefixes the path
      throw InputError(path, 0, "corrupt or truncated gzip data (" + why + ")");
    }
    if (n == 0) break;
    parser.feed(block.data(), size_t(n));
  }
  return parser.finish();
}

}  // namespace

SequenceSet read_fasta(const std::string& path, FastaReport* report, ResidueRules rules,
                       std::vector<std::string>* header_lines) {
  FastaParser parser(path, rules);
  parser.keep_header_lines(header_lines);
  SequenceSet set = read_file(parser, path);
  if (report) *report = {parser.rare_letters(), parser.nucleotide_like(), set.size()};
  return set;
}

SequenceSet read_fasta_headers(const std::string& path, std::vector<std::string>* header_lines, ResidueRules rules,
                               ResidueLines residue_lines) {
  FastaParser parser(path, rules);
  parser.keep_header_lines(header_lines);
  parser.headers_only(residue_lines);
  return read_file(parser, path);
}

SequenceSet parse_fasta_text(const char* data, size_t size, const std::string& name, FastaReport* report,
                             ResidueRules rules) {
  FastaParser parser(name, rules);
  parser.reserve(size);
  parser.feed(data, size);
  SequenceSet set = parser.finish();
  if (report) *report = {parser.rare_letters(), parser.nucleotide_like(), set.size()};
  return set;
}

bool is_read_once(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

void warn_fasta_report(const std::string& path, const FastaReport& report) {
  if (report.rare_letters)
    std::cerr << "hpcalign: warning: " << path << ": " << report.rare_letters << " U/O/J residues scored as X\n";
  if (report.nucleotide_like)
    std::cerr << "hpcalign: warning: " << path << ": " << report.nucleotide_like << " of " << report.sequences
              << " sequences look like DNA/RNA (only A, C, G, T, U, N); they are aligned as protein\n";
}

SequenceSet read_fasta_warned(const std::string& path, bool quiet) {
  FastaReport report;
  SequenceSet set = read_fasta(path, &report);
  if (!quiet) warn_fasta_report(path, report);
  return set;
}

void write_fasta(const SequenceSet& set, const std::string& path) {
  write_fasta(set, path, path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0);
}

void write_fasta(const SequenceSet& set, const std::string& path, bool gzip) {
  constexpr uint32_t kLineWidth = 60;
  gzFile_s* file = gzopen(path.c_str(), gzip ? "wb6" : "wbT");  // T: plain text through the same calls
  if (!file) throw Error(path + ": cannot create: " + std::strerror(errno));
  std::string text;
  bool ok = true;
  for (size_t i = 0; i < set.size() && ok; ++i) {
    text = ">" + set.ids[i] + "\n";
    const SeqView v = set.view(i);
    for (uint32_t p = 0; p < v.length; p += kLineWidth)
      text += decode(v.data + p, std::min(kLineWidth, v.length - p)) + "\n";
    ok = gzwrite(file, text.data(), unsigned(text.size())) == int(text.size());
  }
  ok = gzclose_w(file) == Z_OK && ok;
  if (!ok) throw Error(path + ": write failed (disk full?)");
}

}  // namespace hpc
