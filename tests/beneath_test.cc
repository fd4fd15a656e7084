#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "snapshot/beneath.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::make_workspace;
using candor::testing::write_file;
using snapshot::Entry;
namespace fs = std::filesystem;

TEST_SUITE("verify") {
  TEST_CASE("reads beneath the workspace never follow a symlink, with openat2 and with the O_NOFOLLOW walk") {
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/secret", "CANARY\n");
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/a/b/f.txt", "inside\n");
    fs::create_directory_symlink("a", ws + "/l");
    fs::create_symlink("a/b/f.txt", ws + "/s");
    fs::create_directory_symlink(outside, ws + "/out");
    REQUIRE(::mkfifo((ws + "/pipe").c_str(), 0644) == 0);

    for (bool fallback : {false, true}) {
      CAPTURE(fallback);
      auto root = snapshot::BeneathRoot::open(ws, fallback);
      REQUIRE(root.ok());
      if (!fallback && !root->uses_openat2()) MESSAGE("this kernel has no openat2: both rows use the fallback");

      Entry file = root->look("a/b/f.txt");
      REQUIRE(file.kind == Entry::Kind::kFile);
      std::string content;
      REQUIRE(snapshot::read_to_end(file.fd.get(), content));
      CHECK(content == "inside\n");
      CHECK(file.st.st_size == 7);

      Entry link = root->look("s");
      CHECK(link.kind == Entry::Kind::kSymlink);
      CHECK(link.target == "a/b/f.txt");
      CHECK(root->look("out").kind == Entry::Kind::kSymlink);

      for (const char* gone : {"l/b/f.txt", "out/secret", "missing", "a/missing", "a", "pipe", "a/b/f.txt/x"}) {
        CAPTURE(gone);
        CHECK(root->look(gone).kind == Entry::Kind::kGone);
      }
      snapshot::Opened through = root->open("l/b", O_RDONLY | O_DIRECTORY);
      CHECK_FALSE(through.fd.valid());
      CHECK(snapshot::is_gone(through.error));
      CHECK(root->open("a/b", O_RDONLY | O_DIRECTORY).fd.valid());
    }
  }

  TEST_CASE(
      "a looker reads by name in a folder it opened beneath the root: what is there now, never through a symlink") {
    std::string outside = make_temp_dir("outside");
    write_file(outside + "/f.txt", "CANARY\n");
    std::string ws =
        make_workspace({{"a/f.txt", "one\n"}, {"a/g.txt", "two\n"}, {"b/f.txt", "three\n"}, {"top.txt", "top\n"}});

    for (bool fallback : {false, true}) {
      CAPTURE(fallback);
      auto root = snapshot::BeneathRoot::open(ws, fallback);
      REQUIRE(root.ok());
      snapshot::BeneathLooker looker(*root);
      auto content = [](Entry e) {
        std::string out;
        REQUIRE(e.kind == Entry::Kind::kFile);
        REQUIRE(snapshot::read_size(e.fd.get(), static_cast<std::size_t>(e.st.st_size), out));
        return out;
      };
      CHECK(content(looker.look("a/f.txt")) == "one\n");
      CHECK(content(looker.look("top.txt")) == "top\n");

      // Swapped in the folder it keeps open: a FIFO (not opened for reading, never blocks) and a
      // folder are gone, a symlink is a symlink, a file is read as it is now.
      CHECK(content(looker.look("a/f.txt")) == "one\n");
      fs::remove(ws + "/a/g.txt");
      REQUIRE(::mkfifo((ws + "/a/g.txt").c_str(), 0644) == 0);
      CHECK(looker.look("a/g.txt").kind == Entry::Kind::kGone);
      fs::remove(ws + "/a/g.txt");
      fs::create_directory(ws + "/a/g.txt");
      CHECK(looker.look("a/g.txt").kind == Entry::Kind::kGone);
      fs::remove(ws + "/a/g.txt");
      fs::create_symlink(outside + "/f.txt", ws + "/a/g.txt");
      Entry link = looker.look("a/g.txt");
      CHECK(link.kind == Entry::Kind::kSymlink);
      CHECK(link.target == outside + "/f.txt");
      fs::remove(ws + "/a/g.txt");
      write_file(ws + "/a/g.txt", "two, again\n");
      CHECK(content(looker.look("a/g.txt")) == "two, again\n");
      CHECK(looker.look("a/missing").kind == Entry::Kind::kGone);

      // A folder swapped for a symlink to the outside: opened again through the root when a path of
      // it comes after one of another folder, it is gone.
      CHECK(content(looker.look("b/f.txt")) == "three\n");
      CHECK(content(looker.look("top.txt")) == "top\n");
      fs::rename(ws + "/b", ws + "/b.moved");
      fs::create_directory_symlink(outside, ws + "/b");
      CHECK(looker.look("b/f.txt").kind == Entry::Kind::kGone);
      CHECK(looker.look("b/g.txt").kind == Entry::Kind::kGone);
      // Swapped while it is the folder kept open: still the folder opened beneath the root (now
      // b.moved), never the outside.
      fs::remove(ws + "/b");
      fs::rename(ws + "/b.moved", ws + "/b");
      CHECK(content(looker.look("b/f.txt")) == "three\n");
      fs::rename(ws + "/b", ws + "/b.moved");
      fs::create_directory_symlink(outside, ws + "/b");
      CHECK(content(looker.look("b/f.txt")) == "three\n");
      fs::remove(ws + "/b");
      fs::rename(ws + "/b.moved", ws + "/b");
    }
  }

  TEST_CASE("read_size reads what the stat said, fewer bytes when the file ends before") {
    std::string ws = make_temp_dir("ws");
    write_file(ws + "/f", "0123456789");
    auto root = snapshot::BeneathRoot::open(ws);
    REQUIRE(root.ok());
    for (std::size_t size : {0u, 4u, 10u, 20u}) {
      CAPTURE(size);
      snapshot::Opened f = root->open("f", O_RDONLY);
      REQUIRE(f.fd.valid());
      std::string out = "stale";
      REQUIRE(snapshot::read_size(f.fd.get(), size, out));
      CHECK(out == std::string("0123456789").substr(0, size));
    }
  }
}
