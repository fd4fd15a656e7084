#include "tests/postgres_fixture.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

#include "tests/test_support.h"

namespace candor::testing {
namespace {

std::string script() {
  const char* root = std::getenv("CANDOR_SOURCE_ROOT");
  return std::string(root != nullptr ? root : ".") + "/tests/postgres/pg_server.sh";
}

struct Server {
  std::string dir;
  std::string error;
  int databases = 0;
  ~Server() {
    if (!dir.empty()) (void)run_command({"/bin/sh", script(), "stop", dir});
  }
};

Server& server() {
  static Server s;
  return s;
}

}  // namespace

bool postgres_installed() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    if (std::filesystem::exists(entry.path() / "bin" / "initdb") &&
        std::filesystem::exists(entry.path() / "bin" / "pg_ctl"))
      return true;
  }
  return false;
}

std::string new_postgres_database() {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  Server& s = server();
  if (s.dir.empty() && s.error.empty()) {
    auto started = run_command({"/bin/sh", script(), "start"});
    std::istringstream lines(started.out);
    std::getline(lines, s.dir);
    if (started.exit_code != 0 || s.dir.empty()) {
      s.error = fmt::format("tests/postgres/pg_server.sh start exited {}: {}", started.exit_code, started.err);
      s.dir.clear();
    }
  }
  REQUIRE_MESSAGE(s.error.empty(), s.error);
  std::string name = fmt::format("t{}", ++s.databases);
  auto made = run_command({"/bin/sh", script(), "createdb", s.dir, name});
  REQUIRE_MESSAGE(made.exit_code == 0, made.err);
  std::string url = made.out.substr(0, made.out.find('\n'));
  REQUIRE(!url.empty());
  return url;
}

std::string postgres_server_dir() { return server().dir; }

}  // namespace candor::testing
