#include "snapshot/gc.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>
#include <git2/sys/odb_backend.h>

#include "core/disk_usage.h"
#include "snapshot/git_ptr.h"
#include "snapshot/ignore_shadow.h"
#include "snapshot/repository_lock.h"
#include "snapshot/snapshot_repository.h"
#include "snapshot/stat_index.h"
#include "snapshot/store.h"
#include "snapshot/tree_update.h"

namespace candor::snapshot {
namespace {

namespace fs = std::filesystem;

using Object = GitPtr<git_object, git_object_free>;
using PackBuilder = GitPtr<git_packbuilder, git_packbuilder_free>;
using ReferenceIterator = GitPtr<git_reference_iterator, git_reference_iterator_free>;

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("gc: {}: {}", what, git_last_error()));
}

struct OidHash {
  std::size_t operator()(const git_oid& id) const {
    std::size_t h;
    std::memcpy(&h, id.id, sizeof(h));
    return h;
  }
};
struct OidEqual {
  bool operator()(const git_oid& a, const git_oid& b) const { return git_oid_equal(&a, &b) != 0; }
};
using OidSet = std::unordered_set<git_oid, OidHash, OidEqual>;

// The repository's own objects folder, loose objects and packs, without its alternates: what
// this repository holds, and so what it may pack and must not lose.
Status open_own_objects(const std::string& objects_dir, GitOdb& out) {
  git_odb_backend* loose = nullptr;
  git_odb_backend* packs = nullptr;
  if (git_odb_new(out.out()) != 0) return git_failure("new object database");
  if (git_odb_backend_loose(&loose, objects_dir.c_str(), -1, 0, 0, 0) != 0) return git_failure("open " + objects_dir);
  if (git_odb_add_backend(out.get(), loose, 1) != 0) return git_failure("open " + objects_dir);
  if (git_odb_backend_pack(&packs, objects_dir.c_str()) != 0) return git_failure("open packs in " + objects_dir);
  if (git_odb_add_backend(out.get(), packs, 2) != 0) return git_failure("open packs in " + objects_dir);
  return ok_status();
}

std::size_t count_objects(git_odb* odb) {
  OidSet ids;
  git_odb_foreach(
      odb, [](const git_oid* id, void* set) { return static_cast<OidSet*>(set)->insert(*id), 0; }, &ids);
  return ids.size();
}

// Everything reachable from the roots, read through `repo` (which may see more than the store
// holds); `keep` gets those the repository's own objects hold.
struct Reachable {
  git_repository* repo;
  git_odb* all;  // the repository's, alternates included
  git_odb* own;
  OidSet seen;
  std::vector<git_oid> keep;
  std::size_t not_in_store = 0;

  void walk(const git_oid& root) {
    std::vector<git_oid> todo{root};
    while (!todo.empty()) {
      git_oid id = todo.back();
      todo.pop_back();
      if (!seen.insert(id).second) continue;
      if (git_odb_exists(own, &id) == 0) {
        ++not_in_store;
      } else {
        keep.push_back(id);
      }
      push_children(id, todo);
    }
  }

 private:
  void push_children(const git_oid& id, std::vector<git_oid>& todo) {
    git_object_t type = GIT_OBJECT_INVALID;
    std::size_t size = 0;
    if (git_odb_read_header(&size, &type, all, &id) != 0) return;  // missing: skipped
    if (type == GIT_OBJECT_BLOB) return;
    Object object;
    if (git_object_lookup(object.out(), repo, &id, type) != 0) return;
    if (type == GIT_OBJECT_TREE) {
      auto* tree = reinterpret_cast<git_tree*>(object.get());
      for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
        const git_tree_entry* e = git_tree_entry_byindex(tree, i);
        if (git_tree_entry_type(e) != GIT_OBJECT_COMMIT)
          todo.push_back(*git_tree_entry_id(e));  // a gitlink is not ours
      }
    } else if (type == GIT_OBJECT_COMMIT) {
      auto* commit = reinterpret_cast<git_commit*>(object.get());
      todo.push_back(*git_commit_tree_id(commit));
      for (unsigned i = 0; i < git_commit_parentcount(commit); ++i) todo.push_back(*git_commit_parent_id(commit, i));
    } else if (type == GIT_OBJECT_TAG) {
      todo.push_back(*git_tag_target_id(reinterpret_cast<git_tag*>(object.get())));
    }
  }
};

// "runs/<id>/..." under refs/candor/: the run's id; "" for any other ref.
std::string run_of_ref(const std::string& name) {
  const std::string prefix = "refs/candor/runs/";
  if (name.rfind(prefix, 0) != 0) return "";
  return name.substr(prefix.size(), name.find('/', prefix.size()) - prefix.size());
}

struct RefPlan {
  std::vector<std::string> drop;
  std::vector<git_oid> roots;
};

Result<RefPlan> plan_refs(git_repository* repo, const std::function<bool(const std::string&)>& drop_run) {
  RefPlan plan;
  ReferenceIterator it;
  if (git_reference_iterator_new(it.out(), repo) != 0) return git_failure("list refs");
  git_reference* raw = nullptr;
  while (git_reference_next(&raw, it.get()) == 0) {
    GitReference ref;
    ref.p = raw;
    std::string name = git_reference_name(ref.get());
    std::string run = run_of_ref(name);
    if (!run.empty() && drop_run(run)) {
      plan.drop.push_back(name);
      continue;
    }
    GitReference resolved;
    if (git_reference_resolve(resolved.out(), ref.get()) == 0 && git_reference_target(resolved.get()) != nullptr) {
      plan.roots.push_back(*git_reference_target(resolved.get()));
    }
  }
  return plan;
}

Status drop_refs(git_repository* repo, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    int rc = git_reference_remove(repo, name.c_str());
    if (rc != 0 && rc != GIT_ENOTFOUND) return git_failure("remove " + name);  // not found: another gc was first
  }
  return ok_status();
}

// The tree of the index as it is saved: its entries' blobs and the tree the next run's write_tree
// returns without writing it (or builds its next tree from): the one saved beside the index when it
// still describes it, else one built from the index here (trees only) so both are reachable.
// nullopt: there is no index, or none that can be read.
Result<std::optional<git_oid>> index_tree(git_repository* repo, git_odb* own, const std::string& repo_path) {
  std::string path = repo_path + "/index";
  if (!fs::exists(path)) return std::optional<git_oid>();
  auto loaded = StatIndex::load(path);
  // One that is not an index is a cache the next run starts over without (SnapshotStore::open):
  // nothing it names needs keeping, and it goes (git fsck refuses a repository holding it).
  if (!loaded.ok() && loaded.error().code == ErrorCode::kInvalidInput) {
    std::error_code ec;
    fs::remove(path, ec);
    if (ec)
      return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot remove the damaged {}: {}", path, ec.message()));
    return std::optional<git_oid>();
  }
  if (!loaded.ok()) return loaded.error();
  const StatIndex& index = *loaded;
  git_oid tree;
  if (std::string saved = read_index_tree(repo_path, index.size(), index.checksum(), own);
      !saved.empty() && git_oid_fromstr(&tree, saved.c_str()) == 0) {
    return std::optional<git_oid>(tree);
  }
  TRY(tree, build_tree(repo, index, odb_tree_sink(repo)));
  return std::optional<git_oid>(tree);
}

void mark_index_entries(const std::string& repo_path, Reachable& reach) {
  auto index = StatIndex::load(repo_path + "/index");
  if (!index.ok()) return;
  for (std::size_t i = 0; i < index->size(); ++i) reach.walk(index->at(i).id);
}

// Writes `objects` (all in `own`) as one pack in `pack_dir`; returns its name ("" for none).
Result<std::string> write_pack(git_odb* own, const std::vector<git_oid>& objects, const std::string& pack_dir) {
  if (objects.empty()) return std::string();
  GitRepo wrapped;
  if (git_repository_wrap_odb(wrapped.out(), own) != 0) return git_failure("wrap objects");
  PackBuilder pb;
  if (git_packbuilder_new(pb.out(), wrapped.get()) != 0) return git_failure("new pack");
  for (const auto& id : objects) {
    if (git_packbuilder_insert(pb.get(), &id, nullptr) != 0)
      return git_failure("pack " + std::string(git_oid_tostr_s(&id)));
  }
  if (git_packbuilder_write(pb.get(), pack_dir.c_str(), 0, nullptr, nullptr) != 0)
    return git_failure("write pack in " + pack_dir);
  std::string name = std::string("pack-") + git_packbuilder_name(pb.get());
  // The store is a partial clone (snapshot_objects.h): its trees name blobs only the workspace
  // holds, which git accepts only behind a promisor pack. Written before any old pack goes.
  std::ofstream promisor(pack_dir + "/" + name + ".promisor", std::ios::binary | std::ios::trunc);
  promisor.close();
  if (!promisor)
    return make_error(ErrorCode::kIo, fmt::format("snapshot gc: cannot write {}/{}.promisor", pack_dir, name));
  return name;
}

// The packs in `pack_dir` that git reads (those with an .idx), by base name ("pack-<hash>").
std::vector<std::string> packs_in(const std::string& pack_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(pack_dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("pack-", 0) == 0 && e.path().extension() == ".idx") out.push_back(e.path().stem().string());
  }
  return out;
}

bool has_loose_objects(const std::string& objects_dir) {
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(objects_dir, ec)) {
    if (dir.path().filename().string().size() == 2 && !fs::is_empty(dir.path(), ec)) return true;
  }
  return false;
}

struct Collector {
  const SnapshotGcOptions& options;
  void step(const std::string& name) const {
    if (options.at_step) options.at_step(name);
  }

  // Deletes old packs (their .idx first: a pack without one is invisible), then every loose
  // object, then what a killed writer left in the object folders.
  void prune(const std::string& objects_dir, const std::vector<std::string>& old_packs,
             const std::string& new_pack) const {
    std::string pack_dir = objects_dir + "/pack";
    std::error_code ec;
    fs::remove(pack_dir + "/multi-pack-index", ec);  // it would name the packs about to go
    for (const auto& base : old_packs) {
      if (base == new_pack || fs::exists(pack_dir + "/" + base + ".keep")) continue;
      for (const char* ext : {".idx", ".pack", ".rev", ".bitmap", ".mtimes", ".promisor"})
        fs::remove(pack_dir + "/" + base + ext, ec);
      step("removed " + base);
    }
    for (const auto& dir : fs::directory_iterator(objects_dir, ec)) {
      std::string name = dir.path().filename().string();
      if (name.size() != 2 || !std::isxdigit(static_cast<unsigned char>(name[0])) ||
          !std::isxdigit(static_cast<unsigned char>(name[1])))
        continue;
      std::error_code inner;
      for (const auto& f : fs::directory_iterator(dir.path(), inner)) {
        fs::remove(f.path(), inner);
        step("removed loose object");
      }
      fs::remove(dir.path(), inner);
    }
    // Files of no pack git reads: a killed pack write's temporary files, a .pack without .idx.
    std::vector<std::string> live = packs_in(pack_dir);
    for (const auto& f : fs::directory_iterator(pack_dir, ec)) {
      std::string stem = f.path().stem().string();
      if (std::find(live.begin(), live.end(), stem) == live.end()) fs::remove(f.path(), ec);
    }
  }

  void collect(const std::string& repo_path, const std::set<std::string>& runs, RepositoryGc& out) const {
    GitRepo repo;
    if (git_repository_open_bare(repo.out(), repo_path.c_str()) != 0) {
      out.outcome = RepositoryGc::Outcome::kFailed;
      out.error = git_failure("open " + repo_path).message;
      return;
    }
    Status done = collect_open(repo.get(), repo_path, runs, out);
    if (!done.ok()) {
      out.outcome = RepositoryGc::Outcome::kFailed;
      out.error = done.error().message;
    }
  }

  Status collect_open(git_repository* repo, const std::string& repo_path, const std::set<std::string>& runs,
                      RepositoryGc& out) const {
    std::string objects_dir = repo_path + "/objects";
    // A killed libgit2 write (a ref this gc was removing, say) leaves its lock file, which would
    // make the same write fail now; nobody else holds the repository.
    if (!options.dry_run) remove_stale_locks(repo_path);
    GitOdb own;
    TRY_STATUS(open_own_objects(objects_dir, own));
    out.objects_before = count_objects(own.get());
    TRY(RefPlan plan, plan_refs(repo, [&](const std::string& run) { return runs.count(run) == 0; }));
    out.refs_removed = plan.drop.size();
    GitOdb all;
    if (git_repository_odb(all.out(), repo) != 0) return git_failure("open objects of " + repo_path);
    Reachable reach{repo, all.get(), own.get(), {}, {}, 0};
    for (const auto& root : plan.roots) reach.walk(root);
    if (options.dry_run) {
      mark_index_entries(repo_path, reach);
      out.objects_after = reach.keep.size();
      out.not_in_store = reach.not_in_store;
      out.bytes_after = out.bytes_before;
      out.outcome = RepositoryGc::Outcome::kPacked;
      return ok_status();
    }
    TRY_STATUS(drop_refs(repo, plan.drop));
    step("refs dropped");
    TRY(auto indexed, index_tree(repo, own.get(), repo_path));
    if (indexed) reach.walk(*indexed);
    std::vector<std::string> old_packs = packs_in(objects_dir + "/pack");
    // Already one pack of exactly what is reachable (the last gc's, nothing since): a 100,000-object
    // pack is not rewritten for nothing.
    bool collected =
        old_packs.size() <= 1 && !has_loose_objects(objects_dir) && reach.keep.size() == out.objects_before;
    if (!collected) {
      TRY(std::string new_pack, write_pack(own.get(), reach.keep, objects_dir + "/pack"));
      step("pack written");
      prune(objects_dir, old_packs, new_pack);
    }
    remove_all_shadows(repo_path);
    out.objects_after = reach.keep.size();
    out.not_in_store = reach.not_in_store;
    out.outcome = RepositoryGc::Outcome::kPacked;
    return ok_status();
  }

  // Lock files a killed libgit2 write left (nobody else holds the repository now).
  static void remove_stale_locks(const std::string& repo_path) {
    std::error_code ec;
    for (const char* name : {"index.lock", "config.lock", "HEAD.lock", "packed-refs.lock"})
      fs::remove(repo_path + "/" + name, ec);
    for (auto it = fs::recursive_directory_iterator(repo_path + "/refs", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().extension() == ".lock") fs::remove(it->path(), ec);
    }
  }
};

std::string read_workspace(const std::string& repo_path) {
  std::ifstream in(repo_path + "/candor-workspace");
  std::string line;
  std::getline(in, line);
  return line;
}

// A folder built (SnapshotStore::open) or being removed (below) by a candor that died:
// `<hash>.git.tmp-<pid>-...`, whose process is gone. Only once it is ten minutes old: a candor in
// another PID namespace sharing the store has a pid this one cannot see.
bool is_dead_candors_folder(const fs::path& path) {
  std::string name = path.filename().string();
  auto at = name.find(".git.tmp-");
  if (at == std::string::npos) return false;
  long pid = std::strtol(name.c_str() + at + 9, nullptr, 10);
  std::error_code ec;
  auto age = fs::file_time_type::clock::now() - fs::last_write_time(path, ec);
  return !ec && age > std::chrono::minutes(10) && pid > 0 && pid != ::getpid() &&
         ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

const char* to_string(RepositoryGc::Outcome outcome) {
  switch (outcome) {
    case RepositoryGc::Outcome::kPacked:
      return "packed";
    case RepositoryGc::Outcome::kRemoved:
      return "removed";
    case RepositoryGc::Outcome::kInUse:
      return "in use";
    case RepositoryGc::Outcome::kFailed:
      return "failed";
  }
  return "?";
}

SnapshotGc collect_snapshots(const std::string& store_dir, const std::set<std::string>& removed_runs,
                             const std::function<Result<RunsInStore>()>& runs_in_store,
                             const SnapshotGcOptions& options) {
  git_init_once();
  // The new pack must be on disk before the old objects go, even across a power cut.
  if (!options.dry_run) git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
  SnapshotGc out;
  std::string dir = store_dir + "/snapshots";
  std::vector<fs::path> repositories, orphan_locks;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (e.path().extension() == ".git" && e.is_directory(ec)) {
      repositories.push_back(e.path());
    } else if (is_dead_candors_folder(e.path()) && !options.dry_run) {
      std::error_code rm;
      fs::remove_all(e.path(), rm);
      if (!rm) out.leftovers.push_back(e.path().string());
    } else if (name.ends_with(".git.in-use") && !fs::exists(e.path().parent_path() / e.path().stem())) {
      orphan_locks.push_back(e.path());
    }
  }
  std::sort(repositories.begin(), repositories.end());
  Collector collector{options};
  for (const auto& path : repositories) {
    RepositoryGc r;
    r.path = path.string();
    r.workspace = read_workspace(r.path);
    r.bytes_before = r.bytes_after = disk_usage(r.path).bytes;
    auto lock = RepositoryLock::try_exclusive(r.path);
    if (!lock.ok() || !lock->has_value()) {
      r.outcome = lock.ok() ? RepositoryGc::Outcome::kInUse : RepositoryGc::Outcome::kFailed;
      if (!lock.ok()) r.error = lock.error().message;
      GitRepo repo;
      if (!options.dry_run && git_repository_open_bare(repo.out(), r.path.c_str()) == 0) {
        // Only the refs of runs this gc removed: a run in progress may be pinning refs the store
        // does not know yet.
        auto plan = plan_refs(repo.get(), [&](const std::string& run) { return removed_runs.count(run) != 0; });
        if (plan.ok() && drop_refs(repo.get(), plan->drop).ok()) r.refs_removed = plan->drop.size();
      }
      out.repositories.push_back(std::move(r));
      continue;
    }
    auto runs = runs_in_store();
    if (!runs.ok()) {
      r.error = runs.error().message;
      out.repositories.push_back(std::move(r));
      continue;
    }
    bool referred = false;
    for (const auto& ws : runs->workspaces)
      referred = referred || fs::path(snapshot_repository_path(store_dir, ws)).filename() == path.filename();
    if (!referred) {
      r.outcome = RepositoryGc::Outcome::kRemoved;
      r.bytes_after = 0;
      if (!options.dry_run) {
        // Renamed first: a half-removed repository is then a leftover folder, never one a run opens.
        std::string doomed = fmt::format("{}.tmp-{}-gc", r.path, ::getpid());
        std::error_code rm;
        fs::rename(r.path, doomed, rm);
        if (!rm) fs::remove_all(doomed, rm);
        if (rm) {
          r.outcome = RepositoryGc::Outcome::kFailed;
          r.error = fmt::format("gc: cannot remove {}: {}", r.path, rm.message());
        } else {
          (*lock)->remove_file();
        }
      }
      out.repositories.push_back(std::move(r));
      continue;
    }
    collector.collect(r.path, runs->run_ids, r);
    if (!options.dry_run) r.bytes_after = disk_usage(r.path).bytes;
    out.repositories.push_back(std::move(r));
  }
  for (const auto& path : orphan_locks) {
    std::string repo = (path.parent_path() / path.stem()).string();
    auto lock = RepositoryLock::try_exclusive(repo);
    if (options.dry_run || !lock.ok() || !lock->has_value() || fs::exists(repo)) continue;
    (*lock)->remove_file();
    out.leftovers.push_back(path.string());
  }
  return out;
}

SnapshotUsage snapshot_usage(const std::string& store_dir) {
  SnapshotUsage out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(store_dir + "/snapshots", ec)) {
    if (e.path().extension() != ".git" || !e.is_directory(ec)) continue;
    ++out.repositories;
    const std::string repo = e.path().string();
    if (fs::exists(repo + "/index.lock", ec) && !RepositoryLock::held_by_others(repo))
      out.stale_index_locks.push_back(repo);
  }
  out.bytes = disk_usage(store_dir + "/snapshots").bytes;
  return out;
}

bool repository_in_use(const std::string& repository_path) { return RepositoryLock::held_by_others(repository_path); }

}  // namespace candor::snapshot
