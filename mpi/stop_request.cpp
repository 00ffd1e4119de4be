// The stop flag behind SIGTERM/SIGUSR1 (mpi/scheduler.hpp). The handler only stores the
// signal number into a lock-free atomic: the one thing that is async-signal-safe.
#include <csignal>

#include "mpi/scheduler.hpp"

namespace hpc {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // blocking calls resume; the master polls the flag
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);
}

void request_stop(int signal_number) { g_stop_signal = signal_number ? signal_number : SIGTERM; }
bool stop_requested() { return g_stop_signal != 0; }
int stop_signal() { return g_stop_signal; }

const char* stop_signal_name() {
  switch (g_stop_signal) {
    case 0: return "";
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGINT: return "SIGINT";
    default: return "signal";
  }
}

void clear_stop_request() { g_stop_signal = 0; }

}  // namespace hpc
