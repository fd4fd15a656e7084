// A Watchman daemon of a test's own (its socket, state and log in a temporary folder), for the
// cases of snapshot.fsmonitor "watchman": clients find it through WATCHMAN_SOCK=sock.
#pragma once

#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace candor::testing {

inline bool have_watchman() { return ::access("/usr/bin/watchman", X_OK) == 0; }

// Started on construction, shut down at the end.
struct WatchmanDaemon {
  std::string dir = make_temp_dir("watchman");
  std::string sock = dir + "/sock";
  std::string program = "/usr/bin/watchman";
  std::vector<std::string> env;  // more NAME=VALUE for the daemon
  int pid = 0;

  WatchmanDaemon() { start(); }
  ~WatchmanDaemon() { stop(); }
  WatchmanDaemon(const WatchmanDaemon&) = delete;
  WatchmanDaemon& operator=(const WatchmanDaemon&) = delete;

  void start() {
    std::filesystem::remove(sock);  // a daemon shut down may leave it, and the client then connects to nothing
    CommandResult r =
        run_command({program, "--sockname=" + sock, "--statefile=" + dir + "/state", "--logfile=" + dir + "/log",
                     "--pidfile=" + dir + "/pid", "--no-save-state", "get-pid"},
                    env, dir);
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    pid = nlohmann::json::parse(r.out).value("pid", 0);
  }
  // Shut down, and gone: a new daemon would not start while the old one holds its pid file.
  void stop() {
    (void)run_command({program, "--sockname=" + sock, "--no-spawn", "shutdown-server"}, {}, dir);
    for (int i = 0; i < 500 && pid > 0 && ::kill(pid, 0) == 0; ++i) ::usleep(10000);
    pid = 0;
  }
};

}  // namespace candor::testing
