#include "assertions/workspace_repository.h"

#include <sys/stat.h>

#include <filesystem>

#include <fmt/format.h>

namespace candor::assertions {
namespace {

namespace fs = std::filesystem;

// How many entries of a git folder are looked at for symbolic links before giving up (refusing).
constexpr int kMaxGitEntries = 200000;

bool beneath(const fs::path& path, const fs::path& dir) {
  auto rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

// A symbolic link in `git_dir` whose target is outside it, as "link -> target"; "" when there is
// none. Loose objects are not looked at one by one (libgit2 writes them by rename, which replaces a
// link rather than following it); their folders are.
std::string link_leading_out(const fs::path& git_dir, std::string& error) {
  std::error_code ec;
  fs::path root = fs::canonical(git_dir, ec);
  if (ec) {
    error = fmt::format("cannot resolve {}: {}", git_dir.string(), ec.message());
    return {};
  }
  int seen = 0;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (++seen > kMaxGitEntries) {
      error = fmt::format("{} has more than {} entries to check", root.string(), kMaxGitEntries);
      return {};
    }
    const fs::path& p = it->path();
    fs::path rel = p.lexically_relative(root);
    if (it.depth() == 1 && rel.begin()->string() == "objects" && rel.filename().string().size() == 2) {
      it.disable_recursion_pending();
    }
    if (!it->is_symlink(ec)) continue;
    fs::path target = fs::weakly_canonical(p.parent_path() / fs::read_symlink(p, ec), ec);
    if (ec || !beneath(target, root)) return fmt::format("{} -> {}", rel.string(), fs::read_symlink(p, ec).string());
  }
  if (ec) error = fmt::format("cannot read {}: {}", root.string(), ec.message());
  return {};
}

}  // namespace

std::string open_workspace_repository(const sandbox::Workspace& workspace, GitRepo& repo) {
  git_init_once();
  const std::string& root = workspace.root();
  std::string dot_git = root + "/.git";
  struct stat st{};
  if (::lstat(dot_git.c_str(), &st) != 0) {
    return "no git repository at the workspace root (repositories above it are not searched)";
  }
  const auto& at_open = workspace.git_at_open();
  if (!at_open) return "refused: the workspace's .git was created during the run";
  if (at_open->first != st.st_dev || at_open->second != st.st_ino) {
    return "refused: the workspace's .git was replaced during the run";
  }
  if (S_ISLNK(st.st_mode)) return "refused: the workspace's .git is a symbolic link";
  std::string ceiling = fs::path(root).parent_path().string();
  if (git_repository_open_ext(&repo.p, root.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, ceiling.c_str()) != 0) {
    return fmt::format("no git repository at the workspace root ({})", git_last_error());
  }
  const char* workdir = git_repository_workdir(repo.p);
  if (workdir == nullptr || fs::path(workdir).lexically_normal() != fs::path(root + "/").lexically_normal()) {
    return fmt::format("refused: the repository's work tree is {}, not the workspace", workdir ? workdir : "none (bare)");
  }
  for (const char* dir : {git_repository_path(repo.p), git_repository_commondir(repo.p)}) {
    std::string error;
    std::string link = link_leading_out(dir, error);
    if (!error.empty()) return "refused: " + error;
    if (!link.empty()) return fmt::format("refused: the git folder holds a symbolic link leading out of it ({})", link);
  }
  return {};
}

}  // namespace candor::assertions
