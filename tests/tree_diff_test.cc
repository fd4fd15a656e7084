// GitTrees::diff finds the changed paths itself, skipping folders whose tree is the same on both
// sides: what it reports must be what git's own diff-tree reports, whatever changed.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "snapshot/store.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::write_file;
namespace fs = std::filesystem;

namespace {

// "A path", "D path", "M path" lines, sorted, as git diff-tree -r --name-status says them (a
// type change, T, is a modification).
std::vector<std::string> git_diff(const std::string& repo, const std::string& from, const std::string& to) {
  auto r =
      candor::testing::run_git("", {"--git-dir=" + repo, "diff-tree", "-r", "--no-renames", "--name-status", from, to});
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string status, path; in >> status >> path;) out.push_back((status == "T" ? "M" : status) + " " + path);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> candor_diff(snapshot::SnapshotStore& snap, const std::string& from, const std::string& to) {
  auto muts = snap.diff(from, to);
  REQUIRE(muts.ok());
  std::vector<std::string> out;
  for (const auto& m : *muts)
    out.push_back(std::string(1, static_cast<char>(std::toupper(m.change[0]))) + " " + m.path);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_SUITE("verify") {
  TEST_CASE(
      "tree diffs name what git diff-tree names: folders that became files and back, modes, links, whole folders") {
    std::string ws = make_temp_dir("ws");
    auto snap = snapshot::SnapshotStore::open(make_temp_dir("store"), ws, system_clock());
    REQUIRE(snap.ok());
    std::mt19937 rng(7);
    const std::vector<std::string> names = {"a", "b/c", "b/d/e", "b/d/f", "g/h", "g", "i/j/k/l", "top"};
    std::vector<std::string> trees;
    for (int state = 0; state < 25; ++state) {
      for (int k = 0; k < 3; ++k) {
        std::string path = ws + "/" + names[rng() % names.size()];
        std::error_code ec;
        switch (rng() % 5) {
          case 0:
          case 1:
            for (fs::path p = fs::path(path).parent_path(); p.string().size() > ws.size(); p = p.parent_path()) {
              if (fs::is_regular_file(p) || fs::is_symlink(p)) fs::remove(p);
            }
            fs::remove_all(path, ec);
            write_file(path, std::to_string(rng() % 4) + "\n");
            break;
          case 2:
            fs::remove_all(path, ec);
            break;
          case 3:
            if (fs::is_regular_file(path)) fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add, ec);
            break;
          case 4:
            if (!fs::is_directory(path)) {
              fs::remove(path, ec);
              fs::create_directories(fs::path(path).parent_path(), ec);
              fs::create_symlink("target" + std::to_string(rng() % 2), path, ec);
            }
            break;
        }
      }
      REQUIRE((*snap)->scan().ok());
      trees.push_back((*snap)->write_tree().value());
    }
    std::string repo = (*snap)->repository_path();
    for (std::size_t i = 0; i < trees.size(); ++i) {
      for (std::size_t j : {i, (i + 1) % trees.size(), (i + 7) % trees.size(), trees.size() - 1 - i}) {
        CAPTURE(i);
        CAPTURE(j);
        CHECK(candor_diff(**snap, trees[i], trees[j]) == git_diff(repo, trees[i], trees[j]));
      }
    }
  }
}
