#include "snapshot/worktree_cache.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <git2/odb.h>
#include <nlohmann/json.hpp>

#include "core/disk_usage.h"
#include "snapshot/gc.h"
#include "snapshot/pack_writer.h"

namespace candor::snapshot {
namespace {

namespace fs = std::filesystem;

constexpr const char* kIndexFile = "index";
constexpr const char* kBaseFile = "base.json";

// Keeps the kWorktreeCachesKept folders of `worktrees` saved last; the others go. Best effort: a
// folder another candor is saving into at that moment is only a cache it saves again.
void prune(const std::string& worktrees) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> caches;
  for (const auto& e : fs::directory_iterator(worktrees, ec)) {
    auto when = fs::last_write_time(e.path() / kBaseFile, ec);
    caches.emplace_back(ec ? fs::file_time_type::min() : when, e.path());
  }
  if (caches.size() <= kWorktreeCachesKept) return;
  std::sort(caches.begin(), caches.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = kWorktreeCachesKept; i < caches.size(); ++i) fs::remove_all(caches[i].second, ec);
}

}  // namespace

std::string worktree_cache_dir(const std::string& store_dir, const std::string& root) {
  git_oid name_hash;
  git_odb_hash(&name_hash, root.data(), root.size(), GIT_OBJECT_BLOB);
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &name_hash);
  return fmt::format("{}/worktrees/{}", store_dir, std::string(hex).substr(0, 16));
}

WorktreeRecordsUsage worktree_records_usage(const std::string& store_dir) {
  WorktreeRecordsUsage out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(store_dir + "/worktrees", ec)) {
    if (e.is_directory(ec)) ++out.records;
  }
  out.bytes = disk_usage(store_dir + "/worktrees").bytes;
  return out;
}

WorktreeCache WorktreeCache::load(const std::string& store_dir, const std::string& root) {
  WorktreeCache cache;
  cache.dir_ = worktree_cache_dir(store_dir, root);
  cache.root_ = root;
  std::ifstream in(cache.dir_ + "/" + kBaseFile);
  if (!in) {
    cache.why_none_ = "no earlier read of this working tree was saved";
    return cache;
  }
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json base = nlohmann::json::parse(text.str(), nullptr, false);
  auto field = [&base](const char* name) {
    return base.is_object() && base.contains(name) && base[name].is_string() ? base[name].get<std::string>()
                                                                             : std::string();
  };
  if (!base.is_object() || field("root") != root) {
    cache.why_none_ = fmt::format("the saved read {}/{} is damaged or of another working tree", cache.dir_, kBaseFile);
    return cache;
  }
  auto files = StatIndex::load(cache.dir_ + "/" + kIndexFile, true);
  if (!files.ok() || files->checksum().empty()) {
    cache.why_none_ = files.ok() ? "the saved read lists no files" : files.error().message;
    return cache;
  }
  cache.files_ = std::move(*files);
  // The files alone still vouch for themselves by stat; the clock only with the files it was saved with.
  if (field("index") != cache.files_.checksum()) {
    cache.why_none_ = "the saved clock is not the saved files' (another candor saved one of them meanwhile)";
  } else if (field("clock").empty()) {
    cache.why_none_ = "the earlier read of this working tree saved no Watchman clock";
  } else {
    cache.base_ = WorktreeCacheBase{field("clock"), field("daemon"), field("rules")};
  }
  return cache;
}

Status WorktreeCache::save(std::optional<StatIndex> files, const std::optional<WorktreeCacheBase>& base) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return make_error(ErrorCode::kIo, fmt::format("cannot make {}: {}", dir_, ec.message()));
  if (files) {
    // Through a name of this process's own, renamed over the last: a reader never maps a file
    // being written, and a writer that died leaves no lock behind to stop the next.
    const std::string mine = fmt::format("{}/{}.{}", dir_, kIndexFile, ::getpid());
    fs::remove(mine + ".lock", ec);
    files->forget_file();
    TRY_STATUS(files->write(mine));
    if (::rename(mine.c_str(), (dir_ + "/" + kIndexFile).c_str()) != 0) {
      fs::remove(mine, ec);
      return make_error(ErrorCode::kIo, fmt::format("cannot rename {} to {}/{}", mine, dir_, kIndexFile));
    }
    files_ = std::move(*files);
  }
  nlohmann::json j = {{"root", root_}, {"index", files_.checksum()}};
  if (base) {
    j["clock"] = base->clock;
    j["daemon"] = base->daemon;
    j["rules"] = base->rules;
  }
  TRY_STATUS(write_file_atomically(dir_, kBaseFile, j.dump() + "\n", false));
  base_ = base;
  prune(fs::path(dir_).parent_path().string());
  return ok_status();
}

}  // namespace candor::snapshot
