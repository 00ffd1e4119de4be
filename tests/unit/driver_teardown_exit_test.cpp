// exit_leaving_driver_teardown: the status reaches the waiting parent at once, no pipe or
// output stays open behind it, and the files under the prefix (the GPU driver's, here a FIFO
// standing in for them) are held by a helper that leaves once the process is gone.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "src/core/driver_teardown_exit.hpp"
#include "test_support.hpp"

using hpc::exit_leaving_driver_teardown;
using hpc::test::temp_path;

namespace {

// Forks a process that opens `hold` (if not empty) for writing and the write end of `out`,
// then calls exit_leaving_driver_teardown(7, prefix); 99 if it returned.
pid_t spawn(const std::string& hold, const std::string& prefix, int out[2]) {
  const pid_t pid = fork();
  if (pid == 0) {
    close(out[0]);
    if (!hold.empty() && open(hold.c_str(), O_WRONLY) < 0) _exit(98);
    exit_leaving_driver_teardown(7, prefix);
    _exit(99);
  }
  close(out[1]);
  return pid;
}

int exit_status(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace

TEST(DriverTeardownExit, ReturnsWhereNoDriverFileIsOpen) {
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t pid = spawn("", temp_path("no_such_driver"), out);
  EXPECT_EQ(exit_status(pid), 99);
  char c;
  EXPECT_EQ(read(out[0], &c, 1), 0);
  close(out[0]);
}

TEST(DriverTeardownExit, HandsTheDriverFilesToAHelperAndExitsWithTheStatus) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // the orphaned helper comes back to this test
  const std::string fifo = temp_path("driver_fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int driver = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // the writer's open then succeeds
  ASSERT_GE(driver, 0);
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t pid = spawn(fifo, temp_path("driver_"), out);
  EXPECT_EQ(exit_status(pid), 7);
  char c;
  EXPECT_EQ(read(out[0], &c, 1), 0);  // end of file: the helper closed the pipe, the process is gone
  int status = 0;
  const pid_t helper = waitpid(-1, &status, 0);  // a second process existed, and left cleanly
  EXPECT_GT(helper, 0);
  EXPECT_NE(helper, pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  fcntl(driver, F_SETFL, 0);
  EXPECT_EQ(read(driver, &c, 1), 0);  // and no writer of the driver's file is left
  close(driver);
  close(out[0]);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  std::remove(fifo.c_str());
}
