#include "src/report/fasta_descriptions.hpp"

#include "io/fasta.hpp"

namespace hpc {
namespace {

const char* const kIdEnd = " \t\r\v\f";  // what ends the id (the sequence reader's first word)

}  // namespace

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
  std::vector<std::string> out;
  if (is_read_once(path)) return out;
  read_fasta_headers(path, &out, ResidueRules::kHmmer, ResidueLines::kSkipped);  // the run read and checked it
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
