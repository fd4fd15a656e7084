// How scans read the workspace: through descriptors beneath it, saying what they could not read.
#include <doctest/doctest.h>

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::make_workspace;
using candor::testing::write_file;
namespace fs = std::filesystem;

namespace {

constexpr const char* kCanary = "CANARY: this file lies outside the workspace\n";

std::unique_ptr<snapshot::SnapshotStore> open_scanned(const std::string& store, const std::string& ws) {
  auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
  REQUIRE(snap.ok());
  REQUIRE((*snap)->scan().ok());
  REQUIRE((*snap)->freeze_ignore_rules({}).ok());
  return std::move(*snap);
}

// What a scan run as another user saw, sent back through a pipe as lines: "ok" or "error: ...",
// then "changed <path>" and "unread <path>" lines.
struct ChildScan {
  std::string status;
  std::vector<std::string> changed, unread;
};

// Tests run as root, which reads every file (CAP_DAC_OVERRIDE). To meet a folder it cannot read,
// the scan runs in a child that has dropped to nobody (65534) first.
ChildScan scan_as_nobody(const std::string& store, const std::string& ws) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      out = "error: cannot drop to nobody\n";
    } else {
      auto snap = snapshot::SnapshotStore::open(store, ws, system_clock());
      auto s = snap.ok() ? (*snap)->scan() : Result<std::vector<std::string>>(snap.error());
      out = s.ok() ? "ok\n" : "error: " + s.error().message + "\n";
      if (s.ok()) {
        for (const auto& p : *s) out += "changed " + p + "\n";
        for (const auto& p : (*snap)->unread()) out += "unread " + p + "\n";
      }
    }
    (void)!::write(fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ChildScan r;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string line = text.substr(start, nl - start);
    if (line.rfind("changed ", 0) == 0) {
      r.changed.push_back(line.substr(8));
    } else if (line.rfind("unread ", 0) == 0) {
      r.unread.push_back(line.substr(7));
    } else {
      r.status = line;
    }
  }
  return r;
}

// Lets uid 65534 into a scratch folder and write the store.
void share_with_nobody(const std::string& ws, const std::string& store) {
  fs::permissions(fs::path(ws).parent_path(), fs::perms::others_exec, fs::perm_options::add);
  for (const auto& e : fs::recursive_directory_iterator(store)) ::lchown(e.path().c_str(), 65534, 65534);
  ::chown(store.c_str(), 65534, 65534);
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE("a folder swapped for a symlink to the outside between the walk and the read is never read through") {
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/f.txt", kCanary);
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/d/f.txt", "inside\n");
    auto snap = open_scanned(make_temp_dir("store"), ws);

    write_file(ws + "/d/f.txt", "inside, edited\n");  // a candidate for reading in the next scan
    snap->set_after_walk_hook_for_tests([&] {
      fs::rename(ws + "/d", ws + "/d.moved");
      fs::create_directory_symlink(outside, ws + "/d");
    });
    auto s = snap->scan();
    REQUIRE(s.ok());
    snap->set_after_walk_hook_for_tests(nullptr);
    std::string t1 = snap->write_tree().value();
    CHECK(snap->read(t1, "d/f.txt").value() != std::optional<std::string>(kCanary));
    CHECK_FALSE(snap->read(t1, "d/f.txt").value().has_value());  // it vanished from where it was
    CHECK(snap->unread().empty());

    REQUIRE(snap->scan().ok());  // the next scan sees the symlink as a symlink
    std::string t2 = snap->write_tree().value();
    auto link = snap->read_file(t2, "d").value();
    REQUIRE(link.has_value());
    CHECK(link->mode == 0120000u);
    CHECK(link->content == outside);
    CHECK(snap->read(t2, "d.moved/f.txt").value() == std::optional<std::string>("inside, edited\n"));
  }

  TEST_CASE("a symlink swapped in for a file between the walk and the read is recorded as a symlink") {
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/secret", kCanary);
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/f.txt", "inside\n");
    auto snap = open_scanned(make_temp_dir("store"), ws);
    write_file(ws + "/f.txt", "inside, edited\n");
    snap->set_after_walk_hook_for_tests([&] {
      fs::remove(ws + "/f.txt");
      fs::create_symlink(outside + "/secret", ws + "/f.txt");
    });
    REQUIRE(snap->scan().ok());
    auto f = snap->read_file(snap->write_tree().value(), "f.txt").value();
    if (f.has_value()) {  // recorded as the symlink it now is, or as gone; never the target's bytes
      CHECK(f->mode == 0120000u);
      CHECK(f->content == outside + "/secret");
    }
  }

  TEST_CASE("a first scan, whose walk stats no file, reads what was swapped in after the walk as what it is now") {
    // Nothing is tracked: the walk takes files from the listing alone, and the read proves each.
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/f.txt", kCanary);
    std::string ws = make_workspace({{"pipe.txt", "a file, then a FIFO\n"},
                                     {"link.txt", "a file, then a symlink\n"},
                                     {"dir.txt", "a file, then a folder\n"},
                                     {"d/f.txt", "inside\n"},
                                     {"e/f.txt", "before\n"},
                                     {"run.sh", "#!/bin/sh\n"}});
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE(snap.ok());
    (*snap)->set_after_walk_hook_for_tests([&] {
      fs::remove(ws + "/pipe.txt");
      REQUIRE(::mkfifo((ws + "/pipe.txt").c_str(), 0644) == 0);
      fs::remove(ws + "/link.txt");
      fs::create_symlink(outside + "/f.txt", ws + "/link.txt");
      fs::remove(ws + "/dir.txt");
      write_file(ws + "/dir.txt/inner", "not seen by this walk\n");
      fs::rename(ws + "/d", ws + "/d.moved");
      fs::create_directory_symlink(outside, ws + "/d");
      write_file(ws + "/e/f.txt", "after, longer\n");
      fs::permissions(ws + "/run.sh", fs::perms::owner_exec, fs::perm_options::add);
    });
    auto s = (*snap)->scan();  // a FIFO read would block here
    REQUIRE(s.ok());
    REQUIRE((*snap)->freeze_ignore_rules({}).ok());
    CHECK(*s == std::vector<std::string>{"e/f.txt", "link.txt", "run.sh"});
    CHECK((*snap)->unread().empty());
    std::string t = (*snap)->write_tree().value();
    auto link = (*snap)->read_file(t, "link.txt").value();
    REQUIRE(link.has_value());
    CHECK(link->mode == 0120000u);
    CHECK(link->content == outside + "/f.txt");
    CHECK_FALSE((*snap)->read(t, "pipe.txt").value().has_value());
    CHECK_FALSE((*snap)->read(t, "dir.txt").value().has_value());
    CHECK_FALSE((*snap)->read(t, "d/f.txt").value().has_value());
    CHECK((*snap)->read(t, "e/f.txt").value() == std::optional<std::string>("after, longer\n"));
    auto run = (*snap)->read_file(t, "run.sh").value();
    REQUIRE(run.has_value());
    CHECK(run->mode == 0100755u);  // the mode from the file read, not from the listing
    fs::remove(ws + "/pipe.txt");
  }

  TEST_CASE("a file that vanishes between the walk and the read is a deletion, not an unread path") {
    std::string ws = make_workspace({{"f.txt", "one\n"}, {"g.txt", "two\n"}});
    auto snap = open_scanned(make_temp_dir("store"), ws);
    write_file(ws + "/f.txt", "one, edited\n");
    snap->set_after_walk_hook_for_tests([&] { fs::remove(ws + "/f.txt"); });
    CHECK(snap->scan().value() == std::vector<std::string>{"f.txt"});
    CHECK_FALSE(snap->read(snap->write_tree().value(), "f.txt").value().has_value());
    CHECK(snap->unread().empty());
  }

  TEST_CASE("a folder or file the scan cannot read is named in unread(), and what it held is not reported deleted") {
    std::string ws = make_temp_dir("ws");
    std::string store = make_temp_dir("store");
    write_file(ws + "/open.txt", "open\n");
    write_file(ws + "/locked/a.txt", "a\n");
    write_file(ws + "/locked/deep/b.txt", "b\n");
    write_file(ws + "/sealed.txt", "sealed\n");
    {
      auto snap = open_scanned(store, ws);
      CHECK(snap->unread().empty());
      REQUIRE(snap->flush().ok());
    }
    ::chmod((ws + "/locked").c_str(), 0);
    write_file(ws + "/sealed.txt", "sealed, edited\n");  // must be read again, and cannot be
    ::chmod((ws + "/sealed.txt").c_str(), 0);
    write_file(ws + "/newdir/x.txt", "x\n");
    ::chmod((ws + "/newdir").c_str(), 0);
    share_with_nobody(ws, store);

    ChildScan r = scan_as_nobody(store, ws);
    CHECK(r.status == "ok");
    CHECK(r.changed.empty());
    CHECK(r.unread == std::vector<std::string>{"locked/", "newdir/", "sealed.txt"});
    ::chmod((ws + "/locked").c_str(), 0755);
    ::chmod((ws + "/newdir").c_str(), 0755);
  }
}
