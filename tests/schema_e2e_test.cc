// `candor schema`: each shipped schema printed byte for byte (from the binary alone: it is embedded
// at build time), the list of names, and an unknown name refused with the valid ones.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "tests/e2e_support.h"

namespace candor::testing {
namespace {

std::set<std::string> shipped_names() {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(source_root() + "/share/candor/schemas")) {
    std::string file = e.path().filename().string();
    const std::string suffix = ".schema.json";
    REQUIRE(file.size() > suffix.size());
    REQUIRE(file.substr(file.size() - suffix.size()) == suffix);
    out.insert(file.substr(0, file.size() - suffix.size()));
  }
  return out;
}

TEST_SUITE("e2e") {
  TEST_CASE("candor schema NAME prints the shipped file byte for byte, for every file shipped") {
    Env env;
    std::set<std::string> names = shipped_names();
    CHECK(names == std::set<std::string>{"config", "plan", "report", "script"});
    for (const std::string& name : names) {
      CAPTURE(name);
      // From a folder where no share/ is near: the binary needs no installed file.
      CommandResult r = env.candor({"schema", name}, make_temp_dir("elsewhere"));
      CHECK(r.exit_code == 0);
      CHECK(r.err.empty());
      std::string shipped = read_file(source_root() + "/share/candor/schemas/" + name + ".schema.json");
      CHECK(r.out.size() == shipped.size());
      CHECK(r.out == shipped);
      auto parsed = nlohmann::json::parse(r.out);
      CHECK(parsed.at("$schema") == "https://json-schema.org/draft/2020-12/schema");
    }
  }

  TEST_CASE("candor schema with no name lists each name once, with what it describes") {
    Env env;
    CommandResult r = env.candor({"schema"});
    CHECK(r.exit_code == 0);
    for (const std::string& name : shipped_names()) {
      CAPTURE(name);
      bool listed = r.out.find("\n" + name + " ") != std::string::npos || r.out.rfind(name + " ", 0) == 0;
      CHECK(listed);
    }
    CHECK(r.out.find("config   the workspace's .candor/config.json\n") != std::string::npos);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 4);
  }

  TEST_CASE("candor schema with an unknown name exits 64 naming the valid ones") {
    Env env;
    CommandResult r = env.candor({"schema", "plans"});
    CHECK(r.exit_code == 64);
    CHECK(r.out.empty());
    CHECK(r.err == "candor: schema: unknown schema \"plans\"; the schemas are: config, plan, report, script\n");
  }
}

}  // namespace
}  // namespace candor::testing
