// A workspace's own `.git/index` arrives with the repository, from anywhere: a first snapshot
// seeds its stat cache from it, so every byte of it is hostile input. Each case is an index a
// hostile repository could ship that once made a snapshot other than the workspace.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "snapshot/git_ptr.h"
#include "snapshot/sha1.h"
#include "snapshot/stat_index.h"
#include "snapshot/store.h"
#include "snapshot/workdir_walk.h"
#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;
using snapshot::StatEntry;
namespace fs = std::filesystem;

namespace {

// `entries` as a version 2 index, in the order given (duplicates and all), with a good checksum:
// what git would write if it wrote whatever it was told.
std::string raw_index(const std::vector<StatEntry>& entries) {
  std::string out = "DIRC";
  auto u32 = [&out](std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
  };
  u32(2);
  u32(static_cast<std::uint32_t>(entries.size()));
  for (const StatEntry& e : entries) {
    const std::size_t start = out.size();
    for (std::uint32_t n : {e.ctime_s, e.ctime_ns, e.mtime_s, e.mtime_ns, e.dev, e.ino, e.mode, e.uid, e.gid, e.size})
      u32(n);
    out.append(reinterpret_cast<const char*>(e.id.id), GIT_OID_RAWSZ);
    out += static_cast<char>((e.path.size() >> 8) & 0x0f);
    out += static_cast<char>(e.path.size() & 0xff);
    out += e.path;
    do out += '\0';
    while ((out.size() - start) % 8 != 0);
  }
  snapshot::Sha1 sum;
  sum.update(out.data(), out.size());
  return out + sum.final();
}

// An entry vouching, with `file`'s own stat data, that it holds `content`.
StatEntry vouching(const std::string& file, std::string_view path, const std::string& content) {
  struct stat st {};
  REQUIRE(::lstat(file.c_str(), &st) == 0);
  return snapshot::stat_entry(st, blob_id(content), path);
}

// A workspace with a repository, `files` in it (path -> content), its index to be written by the test.
std::string workspace_with_repository(const std::map<std::string, std::string>& files, std::string ws = "") {
  if (ws.empty()) ws = make_temp_dir("ws");
  REQUIRE(run_command({"/usr/bin/git", "init", "-q", ws}).exit_code == 0);
  for (const auto& [path, content] : files) write_file(ws + "/" + path, content);
  return ws;
}

// Writes the workspace's index, dated well after its files: no entry is racy, so every entry whose
// stat data match is believed, as git believes it.
void write_workspace_index(const std::string& ws, const std::string& bytes) {
  const std::string file = ws + "/.git/index";
  write_file(file, bytes);
  struct timespec times[2] = {{::time(nullptr) + 3600, 0}, {::time(nullptr) + 3600, 0}};
  REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
}

// The content of `path` in the first snapshot a fresh store takes of `ws`; nullopt when the
// snapshot has no such file.
std::optional<std::string> first_snapshot_content(const std::string& ws, const std::string& path) {
  auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
  REQUIRE_MESSAGE(snap.ok(), snap.error().message);
  auto scanned = (*snap)->scan();
  REQUIRE_MESSAGE(scanned.ok(), scanned.error().message);
  auto tree = (*snap)->write_tree();
  REQUIRE(tree.ok());
  auto content = (*snap)->read(*tree, path);
  REQUIRE(content.ok());
  return *content;
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE(
      "hostile index: a path named twice at stage 0 (libgit2 reads such an index, git lists both) does not take the "
      "file out of the snapshot") {
    git_init_once();
    // keep.log is ignored, but tracked: a snapshot holds it as git does.
    const std::string ws = workspace_with_repository(
        {{"a.txt", "hello\n"}, {"b.txt", "b\n"}, {".gitignore", "*.log\n"}, {"keep.log", "kept\n"}});
    // Out of order, so candor's reader refuses it and libgit2's reads it; one entry is a lie its
    // stat data vouch for, the other the truth, in either order.
    for (bool lie_first : {true, false}) {
      CAPTURE(lie_first);
      std::vector<StatEntry> twice = {
          vouching(ws + "/a.txt", "a.txt", "lie\n"), vouching(ws + "/a.txt", "a.txt", "hello\n"),
          vouching(ws + "/keep.log", "keep.log", "kept\n"), vouching(ws + "/keep.log", "keep.log", "kept\n")};
      if (!lie_first) std::swap(twice[0], twice[1]);
      write_workspace_index(ws, raw_index(twice));
      CHECK(first_snapshot_content(ws, "a.txt") == std::optional<std::string>("hello\n"));
      CHECK(first_snapshot_content(ws, "b.txt") == std::optional<std::string>("b\n"));
      CHECK(first_snapshot_content(ws, "keep.log") == std::optional<std::string>("kept\n"));
    }
  }

  TEST_CASE(
      "hostile index: an entry git smudged (size 0, content not empty) is not believed, as git does not believe it") {
    git_init_once();
    // git records a size of 0 for an entry that was racily clean when it wrote the index: its stat
    // data can no longer vouch for the content. Here the file really is empty since.
    const std::string ws = workspace_with_repository({{"f.txt", ""}, {"empty.txt", ""}});
    std::vector<StatEntry> entries = {vouching(ws + "/empty.txt", "empty.txt", ""),
                                      vouching(ws + "/f.txt", "f.txt", "abc\n")};
    REQUIRE(entries[1].size == 0);
    write_workspace_index(ws, raw_index(entries));
    auto r = run_command({"/usr/bin/git", "-C", ws, "diff-files", "--name-only"});
    CHECK(r.out == "f.txt\n");  // git's own verdict: changed, whatever its stat data say
    CHECK(first_snapshot_content(ws, "f.txt") == std::optional<std::string>(""));

    snapshot::FileStat f{};
    f.mode = entries[0].mode;
    f.size = 0;
    f.mtime_s = entries[0].mtime_s;
    f.mtime_ns = entries[0].mtime_ns;
    f.ctime_s = entries[0].ctime_s;
    f.ctime_ns = entries[0].ctime_ns;
    f.ino = entries[0].ino;
    f.uid = entries[0].uid;
    f.gid = entries[0].gid;
    CHECK(snapshot::stat_matches(entries[0], f));  // the empty blob: size 0 is its true size
    StatEntry smudged = entries[0];
    smudged.id = blob_id("abc\n");
    CHECK_FALSE(snapshot::stat_matches(smudged, f));
  }

  TEST_CASE("hostile index: one too large to be git's (a sparse file of 64 GiB) seeds nothing, and the store opens") {
    git_init_once();
    const std::string ws = workspace_with_repository({{"a.txt", "hello\n"}});
    const std::string file = ws + "/.git/index";
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, "DIRC\0\0\0\2\0\0\0\1", 12) == 12);
    REQUIRE(::ftruncate(fd, off_t{64} << 30) == 0);  // a hole: no disk space
    ::close(fd);
    CHECK(first_snapshot_content(ws, "a.txt") == std::optional<std::string>("hello\n"));
  }
}

TEST_SUITE("e2e") {
  TEST_CASE("hostile index: a workspace index naming a file twice cannot make a step that changed nothing a success") {
    git_init_once();
    Env env(make_temp_dir("empty"));
    workspace_with_repository({{"a.txt", "hello\n"}}, env.ws);
    write_workspace_index(
        env.ws, raw_index({vouching(env.ws + "/a.txt", "a.txt", ""), vouching(env.ws + "/a.txt", "a.txt", "hello\n")}));
    // The step writes what a.txt already holds; both assertions passed before the run too.
    const std::string plan =
        env.plan_file(R"({"goal_kind": "modify", "then": "finish", "steps": [{"id": "s1", "tool": "file_write",
        "args": {"path": "a.txt", "content": "hello\n"},
        "assert": [{"type": "file_exists", "path": "a.txt"}, {"type": "file_contains", "path": "a.txt", "text": "hello"}]}]})");
    auto r = env.exec(plan, {"--judge", "never"});
    json report = json::parse(r.out);
    CHECK(report["mutations"].empty());
    CHECK(report["verdict"] != "success");
  }
}
