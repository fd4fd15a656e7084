#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "tests/test_support.h"
#include "verify/beneath.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::write_file;
using verify::Entry;
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
      auto root = verify::BeneathRoot::open(ws, fallback);
      REQUIRE(root.ok());
      if (!fallback && !root->uses_openat2()) MESSAGE("this kernel has no openat2: both rows use the fallback");

      Entry file = root->look("a/b/f.txt");
      REQUIRE(file.kind == Entry::Kind::kFile);
      std::string content;
      REQUIRE(verify::read_to_end(file.fd.get(), content));
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
      verify::Opened through = root->open("l/b", O_RDONLY | O_DIRECTORY);
      CHECK_FALSE(through.fd.valid());
      CHECK(verify::is_gone(through.error));
      CHECK(root->open("a/b", O_RDONLY | O_DIRECTORY).fd.valid());
    }
  }
}
