#include "src/report/fasta_descriptions.hpp"

#include <zlib.h>

#include <memory>

#include "src/core/error.hpp"

namespace hpc {
namespace {

const char* const kIdEnd = " \t\r\v\f";  // what ends the id (the sequence reader's first word)

}  // namespace

std::vector<std::string> fasta_header_lines(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose_r);
  if (!file) throw Error("cannot open " + path);
  std::vector<std::string> out;
  char buf[1 << 16];
  bool line_start = true, in_header = false, first = true;
  std::string header;
  while (gzgets(file.get(), buf, sizeof buf)) {
    std::string piece(buf);
    if (first && piece.compare(0, 3, "\xEF\xBB\xBF") == 0) piece.erase(0, 3);
    first = false;
    const bool line_end = !piece.empty() && piece.back() == '\n';
    if (line_start && !piece.empty() && piece[0] == '>') in_header = true, header.clear();
    if (in_header) header += piece;
    if (line_end && in_header) {
      header.pop_back();
      if (!header.empty() && header.back() == '\r') header.pop_back();
      out.push_back(header.substr(1));
      in_header = false;
    }
    line_start = line_end;
  }
  int err = 0;
  gzerror(file.get(), &err);
  if (err != Z_OK && err != Z_STREAM_END) throw Error("cannot read " + path);
  return out;
}

std::string fasta_description(const std::string& line) {
  // The text after the id's run of blanks up to the first '\r' or Ctrl-A (NCBI nr's separator of
  // merged deflines) or the line's end, trailing blanks kept: easel's description, as hmmsearch
  // prints it ("desc \t" for ">id desc \t"). Blanks between '>' and the id are skipped.
  const size_t id_begin = line.find_first_not_of(" \t");
  const size_t id_end = line.find_first_of(kIdEnd, id_begin);
  const size_t desc = line.find_first_not_of(" \t", id_end);
  return desc == std::string::npos ? "" : line.substr(desc, line.find_first_of("\r\x01", desc) - desc);
}

std::vector<std::string> fasta_descriptions(const std::string& path) {
  std::vector<std::string> out = fasta_header_lines(path);
  for (std::string& line : out) line = fasta_description(line);
  return out;
}

std::string blast_title(const std::string& line) {
  std::string out;
  for (const char ch : line.substr(0, line.find('\r'))) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\t')
      out += "   ";
    else if (c == 0x01)
      out += ' ';
    else
      out += c < 0x20 || c >= 0x7f ? '#' : ch;
  }
  return out;
}

std::string mmseqs_header(const std::string& line) {
  const size_t id_begin = line.find_first_not_of(kIdEnd);
  if (id_begin == std::string::npos) return "";
  const size_t id_end = line.find_first_of(kIdEnd, id_begin);
  const std::string id = line.substr(id_begin, id_end - id_begin);
  return id_end == std::string::npos || id_end + 1 == line.size() ? id : id + " " + line.substr(id_end + 1);
}

}  // namespace hpc
