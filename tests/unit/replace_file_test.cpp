// write_then_rename: a whole file appears under its name at once; special files are written
// in place (renaming over /dev/null once replaced the device node by a regular file).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <sstream>

#include "src/cli/replace_file.hpp"
#include "src/core/error.hpp"
#include "src/core/rename_over.hpp"
#include "test_support.hpp"

using hpc::cli::write_text_file;
using hpc::cli::write_then_rename;
using hpc::test::temp_path;
namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(ReplaceFile, ReplacesARegularFileWhole) {
  const std::string path = temp_path("replace_regular.txt");
  write_text_file(path, "old contents that are longer\n");
  write_text_file(path, "new\n");
  EXPECT_EQ(read_all(path), "new\n");
  EXPECT_FALSE(fs::exists(path + ".tmp." + std::to_string(::getpid())));
}

// rename_over: rename's results (an exchange and a removal where the target is a file, which
// spares ext4's flush of the new file inside a replacing rename).
TEST(ReplaceFile, RenameOverReplacesMovesAndFailsAsRename) {
  const std::string from = temp_path("rename_over_from"), to = temp_path("rename_over_to");
  fs::remove_all(to);
  std::ofstream(from) << "new";
  std::ofstream(to) << "old, longer";
  EXPECT_EQ(hpc::rename_over(from, to), 0);
  EXPECT_EQ(read_all(to), "new");
  EXPECT_FALSE(fs::exists(from));  // neither name holds the old file
  EXPECT_EQ(hpc::rename_over(from, to), ENOENT);  // nothing to move
  EXPECT_EQ(read_all(to), "new");
  fs::remove(to);
  std::ofstream(from) << "moved";
  EXPECT_EQ(hpc::rename_over(from, to), 0);  // no file there: a plain rename
  EXPECT_EQ(read_all(to), "moved");
  EXPECT_FALSE(fs::exists(from));
  fs::remove(to);
  fs::create_directory(to);
  std::ofstream(from) << "kept";
  EXPECT_EQ(hpc::rename_over(from, to), EISDIR);  // a directory is not exchanged for a file
  EXPECT_TRUE(fs::is_directory(to));
  EXPECT_EQ(read_all(from), "kept");
  fs::remove_all(to);
  fs::remove(from);
}

TEST(ReplaceFile, AFailedWriteLeavesTheOldFile) {
  const std::string path = temp_path("replace_failed.txt");
  write_text_file(path, "kept\n");
  EXPECT_THROW(write_then_rename(path, [](const std::string& tmp) {
                 std::ofstream(tmp) << "half";
                 throw hpc::Error("disk full");
               }),
               hpc::Error);
  EXPECT_EQ(read_all(path), "kept\n");
  EXPECT_FALSE(fs::exists(path + ".tmp." + std::to_string(::getpid())));
}

TEST(ReplaceFile, DevNullStaysADevice) {
  write_text_file("/dev/null", "discarded\n");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a character device";
}

TEST(ReplaceFile, AFifoIsWrittenInPlace) {
  const std::string path = temp_path("replace_fifo");
  fs::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] { return read_all(path); });
  write_text_file(path, "through the pipe\n");
  EXPECT_EQ(reader.get(), "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(path)));
  fs::remove(path);
}

TEST(ReplaceFile, ALinkKeepsPointingAtTheNewFile) {
  const std::string file = temp_path("replace_link_target.txt");
  const std::string link = temp_path("replace_link");
  write_text_file(file, "old\n");
  fs::remove(link);
  fs::create_symlink(file, link);
  write_text_file(link, "new\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_all(file), "new\n");
}
