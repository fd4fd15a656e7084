// The fsmonitor base saved with the snapshot index (SnapshotStore::keep_fsmonitor_base,
// fsmonitor_base, scan_changed): what the gate's starts with Watchman rely on. A base describes
// the index it was saved with and nothing else; a scan that looks only at the named paths gives
// the tree a walk gives.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "snapshot/store.h"
#include "tests/test_support.h"

namespace candor::testing {
namespace {

namespace fs = std::filesystem;
using Base = snapshot::SnapshotStore::FsmonitorBase;

std::unique_ptr<snapshot::SnapshotStore> open_store(const std::string& store, const std::string& ws) {
  auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
  REQUIRE(snap.ok());
  return std::move(*snap);
}

// A turn's start: the first scan (a walk, or by `changed` from the saved base), its tree, the base kept.
std::string start(const std::string& store, const std::string& ws, const std::optional<Base>& keep,
                  const std::set<std::string>* changed = nullptr) {
  auto snap = open_store(store, ws);
  if (changed != nullptr) {
    REQUIRE(snap->fsmonitor_base().has_value());
    REQUIRE(snap->scan_changed(*changed).ok());
  } else {
    REQUIRE(snap->scan().ok());
  }
  REQUIRE(snap->freeze_ignore_rules({}).ok());
  std::string tree = snap->write_tree().value();
  if (keep) snap->keep_fsmonitor_base(*keep);
  REQUIRE(snap->flush().ok());
  return tree;
}

// Every file an hour old, its last change more than two seconds ago: no stat is racy, so a scan
// by names looks at nothing else.
void settle(const std::string& ws) {
  for (const auto& e : fs::recursive_directory_iterator(ws)) {
    if (e.is_regular_file()) fs::last_write_time(e.path(), fs::file_time_type::clock::now() - std::chrono::hours(1));
  }
  ::usleep(2'500'000);
}

std::optional<Base> saved_base(const std::string& store, const std::string& ws) {
  return open_store(store, ws)->fsmonitor_base();
}

}  // namespace

TEST_SUITE("snapshot") {
  TEST_CASE("fsmonitor base: kept with the index it was saved with, and gone when the index is saved without it") {
    std::string store = make_temp_dir("store");
    std::string ws = make_workspace({{"a.txt", "a\n"}, {"b.txt", "b\n"}});
    CHECK_FALSE(saved_base(store, ws).has_value());
    (void)start(store, ws, Base{"c:1:2:3:4", "watchman:7:8"});
    auto base = saved_base(store, ws);
    REQUIRE(base.has_value());
    CHECK(base->clock == "c:1:2:3:4");
    CHECK(base->daemon == "watchman:7:8");

    // A run that saves the index anew without a base (every entry changed: the index is written).
    write_file(ws + "/a.txt", "A\n");
    write_file(ws + "/b.txt", "B\n");
    (void)start(store, ws, std::nullopt);
    CHECK_FALSE(saved_base(store, ws).has_value());

    // A damaged base file is no base, and costs nothing else.
    (void)start(store, ws, Base{"c:9", "watchman:1:1"});
    REQUIRE(saved_base(store, ws).has_value());
    std::string file = open_store(store, ws)->repository_path() + "/index.fsmonitor";
    fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
    write_file(file, "{not json");
    CHECK_FALSE(saved_base(store, ws).has_value());
    auto snap = open_store(store, ws);
    CHECK(snap->scan().ok());
  }

  TEST_CASE("fsmonitor base: a first scan of the named paths gives the tree a walk gives") {
    std::map<std::string, std::string> files = {{"a.txt", "a\n"},          {"b.txt", "b\n"},
                                                {"sub/c.txt", "c\n"},      {".gitignore", "*.log\n"},
                                                {"keep.log", "ignored\n"}, {"tool.sh", "#!/bin/sh\n"}};
    std::string ws = make_workspace(files);
    ::chmod((ws + "/tool.sh").c_str(), 04755);
    settle(ws);
    std::string named_store = make_temp_dir("named"), walked_store = make_temp_dir("walked");
    (void)start(named_store, ws, Base{"c:1", "watchman:1:1"});
    (void)start(walked_store, ws, std::nullopt);
    write_file(ws + "/a.txt", "changed\n");
    fs::remove(ws + "/sub/c.txt");
    write_file(ws + "/new/d.txt", "d\n");
    write_file(ws + "/keep.log", "changed, ignored\n");
    write_file(ws + "/made.log", "made, ignored\n");
    std::set<std::string> changed = {"a.txt", "sub/c.txt", "new/d.txt", "keep.log", "made.log"};
    std::string by_names = start(named_store, ws, Base{"c:2", "watchman:1:1"}, &changed);
    std::string by_walk = start(walked_store, ws, std::nullopt);
    CHECK(by_names == by_walk);
    // The setuid file was not looked at: its mode is the saved base's.
    auto snap = open_store(named_store, ws);
    REQUIRE(snap->scan_changed({}).ok());
    auto modes = snap->held_modes([](std::string_view, std::uint32_t m) { return (m & 06000) != 0; });
    REQUIRE(modes.size() == 1);
    CHECK(modes[0].first == "tool.sh");
    snap.reset();
    // A name left out is a change not seen: the scan looked nowhere else (what the names are worth
    // is the caller's to prove: the gate asks the same Watchman daemon since the saved clock).
    settle(ws);
    (void)start(named_store, ws, Base{"c:3", "watchman:1:1"}, &changed);
    (void)start(walked_store, ws, std::nullopt);
    write_file(ws + "/b.txt", "changed, not named\n");
    std::set<std::string> none;
    CHECK(start(named_store, ws, Base{"c:4", "watchman:1:1"}, &none) != start(walked_store, ws, std::nullopt));
  }

  TEST_CASE(
      "fsmonitor base: a run's base lists its folders and watches; one that lists none, or a damaged list, walks") {
    std::string ws = make_workspace({{"a.txt", "a\n"}, {"sub/deep/c.txt", "c\n"}});
    ::chmod((ws + "/sub").c_str(), 0750);
    std::string store = make_temp_dir("store");
    auto run = [&](bool events) {
      auto snap = open_store(store, ws);
      if (events) snap->watch_changes();
      return snap;
    };
    auto first = [&](std::unique_ptr<snapshot::SnapshotStore> snap) {
      REQUIRE(snap->scan().ok());
      REQUIRE(snap->freeze_ignore_rules({}).ok());
      (void)snap->write_tree().value();
      snap->keep_fsmonitor_base(Base{"c:1", "watchman:1:1"});
      REQUIRE(snap->flush().ok());
    };
    std::string file = open_store(store, ws)->repository_path() + "/index.fsmonitor";
    // A handle without change events saves a base that lists no folders.
    first(run(false));
    CHECK(run(true)->watch_from_base().find("lists no folders") != std::string::npos);
    CHECK(run(false)->watch_from_base() == "no change events to watch with");
    // A run's lists every folder with its mode, and the folders it watched.
    first(run(true));
    auto saved = nlohmann::json::parse(read_file(file));
    CAPTURE(saved.dump());
    CHECK(saved["whole"]["watched"] == nlohmann::json{"", "sub/", "sub/deep/"});
    REQUIRE(saved["whole"]["folders"].contains("sub/"));
    CHECK((saved["whole"]["folders"]["sub/"][0].get<std::uint32_t>() & 07777) == 0750);
    CHECK(saved["whole"]["folders"].contains("./"));
    CHECK(run(true)->watch_from_base() == "");
    // The credential files a run's start found ride along, and come back as saved.
    {
      auto snap = run(true);
      REQUIRE(snap->scan().ok());
      REQUIRE(snap->freeze_ignore_rules({}).ok());
      (void)snap->write_tree().value();
      snap->keep_fsmonitor_base(Base{"c:2", "watchman:1:1"});
      snap->keep_credentials({.files = {"sub/.env"}, .identities = {{7, 11}}, .rules = "v1\n*.sample.env"});
      REQUIRE(snap->flush().ok());
    }
    auto credentials = run(true)->saved_credentials();
    REQUIRE(credentials.has_value());
    CHECK(credentials->files == std::vector<std::string>{"sub/.env"});
    CHECK(credentials->identities == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{7, 11}});
    CHECK(credentials->rules == "v1\n*.sample.env");
    saved = nlohmann::json::parse(read_file(file));
    // A credential path that climbs out is no list at all.
    saved["whole"]["credentials"]["files"] = {"sub/../../elsewhere/.env"};
    fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
    write_file(file, saved.dump());
    CHECK_FALSE(run(true)->saved_credentials().has_value());
    CHECK(run(true)->watch_from_base().find("lists no folders") != std::string::npos);
    saved["whole"]["credentials"]["files"] = {"sub/.env"};
    write_file(file, saved.dump());
    CHECK(run(true)->watch_from_base() == "");
    // A list that climbs out of the workspace is no list: the next start walks.
    saved["whole"]["watched"].push_back("../outside/");
    write_file(file, saved.dump());
    REQUIRE(run(true)->fsmonitor_base().has_value());
    CHECK(run(true)->watch_from_base().find("lists no folders") != std::string::npos);
    // As is one whose modes are not numbers.
    saved["whole"]["watched"] = nlohmann::json{"", "sub/", "sub/deep/"};
    saved["whole"]["folders"]["sub/"] = {"rwx", 0, 0};
    write_file(file, saved.dump());
    CHECK(run(true)->watch_from_base().find("lists no folders") != std::string::npos);
  }

  TEST_CASE("fsmonitor base: a first scan_changed without a saved base is refused") {
    std::string ws = make_workspace({{"a.txt", "a\n"}});
    auto snap = open_store(make_temp_dir("store"), ws);
    auto scanned = snap->scan_changed({"a.txt"});
    REQUIRE_FALSE(scanned.ok());
    CHECK(scanned.error().message.find("fsmonitor base") != std::string::npos);
  }
}

}  // namespace candor::testing
