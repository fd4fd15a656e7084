#include "snapshot/snapshot_repository.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <git2/sys/repository.h>

#include "snapshot/git_ptr.h"
#include "snapshot/pack_writer.h"
#include "snapshot/snapshot_objects.h"

namespace candor::snapshot {
namespace {

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("snapshot: {}: {}", what, git_last_error()));
}

// Raw bytes in, raw bytes out: no end-of-line conversion or filters from the workspace's
// .gitattributes, so a snapshot is what was on disk. info/attributes outranks .gitattributes.
constexpr const char* kAttributes = "* -text -eol -ident -filter\n";
// The root's .candor is fingerprinted apart (protected_paths.cc); nothing else is left out by name.
constexpr const char* kExclude = "/.candor/\n";

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

Status init_repository(git_repository** out, const std::string& repo_path, const std::string& workspace_root) {
  git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
  opts.description = "candor snapshots";
  if (git_repository_init_ext(out, repo_path.c_str(), &opts) != 0) return git_failure("init " + repo_path);
  try {
    write_text(std::filesystem::path(repo_path) / "info" / "attributes", kAttributes);
    write_text(std::filesystem::path(repo_path) / "info" / "exclude", kExclude);
    write_text(std::filesystem::path(repo_path) / "candor-workspace", workspace_root + "\n");
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot write {}: {}", repo_path, e.what()));
  }
  return ok_status();
}

}  // namespace

Status refresh_exclude(const std::string& repo_path) {
  const std::filesystem::path file = std::filesystem::path(repo_path) / "info" / "exclude";
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (in && text.str() == kExclude) return ok_status();
  // A store made by an older candor also left out `.candor-tmp-*` everywhere: a name a step can
  // give any file.
  try {
    write_text(file, kExclude);
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot write {}: {}", file.string(), e.what()));
  }
  return ok_status();
}

Status use_own_config(git_repository* repo, const std::string& repo_path, const std::string& final_path) {
  GitPtr<git_config, git_config_free> cfg;
  if (git_config_open_ondisk(cfg.out(), (repo_path + "/config").c_str()) != 0) return git_failure("open config");
  if (git_repository_set_config(repo, cfg.get()) != 0) return git_failure("use config");
  const std::pair<const char*, std::string> settings[] = {
      {"core.autocrlf", "false"},
      {"core.filemode", "true"},
      {"core.symlinks", "true"},
      {"core.excludesfile", final_path + "/info/no-excludes"},
      {kPromisorSettings[0].first, kPromisorSettings[0].second},
      {kPromisorSettings[1].first, kPromisorSettings[1].second},
  };
  for (const auto& setting : settings) {
    const char* key = setting.first;  // not a structured binding: clang 14 cannot capture one
    const std::string& value = setting.second;
    auto is_set = [&] {
      GitPtr<git_config, git_config_free> snapshot;  // reads of a live config need a snapshot
      const char* current = nullptr;
      return git_config_snapshot(snapshot.out(), cfg.get()) == 0 &&
             git_config_get_string(&current, snapshot.get(), key) == 0 && value == current;
    };
    if (is_set()) continue;
    // Written when the repository is created (create_repository does it before the rename), so
    // this is for repositories made by an older candor. A run opening it at the same moment may
    // hold the lock while it writes the same value: wait for it rather than fail.
    bool written = false;
    for (int attempt = 0; attempt < 100 && !written; ++attempt) {
      written = git_config_set_string(cfg.get(), key, value.c_str()) == 0 || is_set();
      if (!written) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!written) return git_failure(std::string("set ") + key);
  }
  return ok_status();
}

namespace {

// fsync of every file and folder beneath `root` (its own included), deepest first.
Status sync_tree(const std::string& root) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_symlink(ec)) paths.push_back(it->path().string());
  }
  if (ec) return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot list {}: {}", root, ec.message()));
  paths.push_back(root);
  for (auto p = paths.rbegin(); p != paths.rend(); ++p) {
    int fd = ::open(p->c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    bool ok = fd >= 0 && ::fsync(fd) == 0;
    int err = errno;
    if (fd >= 0) ::close(fd);
    if (!ok) return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot sync {}: {}", *p, std::strerror(err)));
  }
  return ok_status();
}

}  // namespace

Status create_repository(const std::string& repo_path, const std::string& workspace_root) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = fmt::format("{}.tmp-{}-{}", repo_path, ::getpid(), counter++);
  {
    GitRepo repo;
    TRY_STATUS(init_repository(repo.out(), tmp, workspace_root));
    // Settings too, while the repository is still private: nobody races for its config.lock.
    TRY_STATUS(use_own_config(repo.get(), tmp, repo_path));
  }
  // On disk before it has its name (docs/design.md, Durability); the folders holding it after.
  TRY_STATUS(sync_tree(tmp));
  std::error_code ec;
  if (::rename(tmp.c_str(), repo_path.c_str()) == 0) {
    std::filesystem::path snapshots = std::filesystem::path(repo_path).parent_path();
    TRY_STATUS(sync_folder(snapshots.string()));
    return sync_folder(snapshots.parent_path().string());  // snapshots/ itself may be new
  }
  int err = errno;
  std::filesystem::remove_all(tmp, ec);
  if (err == EEXIST || err == ENOTEMPTY) return ok_status();  // another run made it first
  return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot create {}: {}", repo_path, std::strerror(err)));
}

}  // namespace candor::snapshot

namespace candor::snapshot {

std::string read_index_tree(const std::string& repo_path, std::size_t entries, const std::string& index_checksum,
                            git_odb* objects) {
  std::ifstream in(repo_path + "/" + kIndexTree);
  std::string tree, checksum;
  if (!(in >> tree >> checksum) || entries == 0 || index_checksum.empty() || checksum != index_checksum) return "";
  git_oid id;
  if (git_oid_fromstr(&id, tree.c_str()) != 0 || !git_odb_exists(objects, &id)) return "";
  return tree;
}

}  // namespace candor::snapshot
