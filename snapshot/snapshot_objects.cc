#include "snapshot/snapshot_objects.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <git2/sys/odb_backend.h>

#include "snapshot/git_names.h"
#include "snapshot/pack_writer.h"

namespace candor::snapshot {
namespace {

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("snapshot: {}: {}", what, git_last_error()));
}

// A backend that forwards reads to another object database and refuses everything else. Its
// `freshen` says "not here", so libgit2 writes an object the workspace already has into the
// store rather than touching the workspace's copy (which is what `freshen` would do) and
// leaving the store without it.
struct ReadOnlyView {
  git_odb_backend parent;  // first: libgit2 hands us this pointer
  git_odb* source;
};

// Hands `len` bytes at `from` to libgit2 as a read's result, in memory it will free.
int hand_over(git_odb_backend* b, const void* from, size_t len, void** data) {
  *data = git_odb_backend_data_alloc(b, len);
  if (*data == nullptr && len > 0) return -1;
  std::memcpy(*data, from, len);
  return 0;
}

using ReadFn = int (*)(void**, size_t*, git_object_t*, git_odb_backend*, const git_oid*);
using HeaderFn = int (*)(size_t*, git_object_t*, git_odb_backend*, const git_oid*);
using ExistsFn = int (*)(git_odb_backend*, const git_oid*);
void init_backend(git_odb_backend& b, ReadFn read, HeaderFn header, ExistsFn exists, ExistsFn freshen,
                  void (*free)(git_odb_backend*)) {
  git_odb_init_backend(&b, GIT_ODB_BACKEND_VERSION);
  b.read = read;
  b.read_header = header;
  b.exists = exists;
  b.freshen = freshen;
  b.free = free;
}

git_odb* source_of(git_odb_backend* b) { return reinterpret_cast<ReadOnlyView*>(b)->source; }

int view_read(void** data, size_t* len, git_object_t* type, git_odb_backend* b, const git_oid* id) {
  git_odb_object* object = nullptr;
  if (int rc = git_odb_read(&object, source_of(b), id); rc != 0) return rc;
  *len = git_odb_object_size(object);
  *type = git_odb_object_type(object);
  int rc = hand_over(b, git_odb_object_data(object), *len, data);
  git_odb_object_free(object);
  return rc;
}

int view_read_header(size_t* len, git_object_t* type, git_odb_backend* b, const git_oid* id) {
  return git_odb_read_header(len, type, source_of(b), id);
}

int view_exists(git_odb_backend* b, const git_oid* id) { return git_odb_exists(source_of(b), id); }

int view_freshen(git_odb_backend*, const git_oid*) { return GIT_ENOTFOUND; }

int view_refresh(git_odb_backend* b) { return git_odb_refresh(source_of(b)); }

void view_free(git_odb_backend* b) {
  auto* view = reinterpret_cast<ReadOnlyView*>(b);
  git_odb_free(view->source);
  delete view;
}

struct OidHash {
  std::size_t operator()(const git_oid& id) const {
    std::size_t h;
    std::memcpy(&h, id.id, sizeof(h));  // an object id is already uniformly distributed
    return h;
  }
};
struct OidEqual {
  bool operator()(const git_oid& a, const git_oid& b) const { return git_oid_equal(&a, &b) != 0; }
};

}  // namespace

// Objects written since the last pack, kept as libgit2 hands them over (uncompressed).
struct MemoryObjects {
  git_odb_backend parent;  // first: libgit2 hands us this pointer
  struct Object {
    git_object_t type;
    std::string data;
  };
  std::unordered_map<git_oid, Object, OidHash, OidEqual> objects;
};

namespace {

MemoryObjects& memory_of(git_odb_backend* b) { return *reinterpret_cast<MemoryObjects*>(b); }

int memory_read(void** data, size_t* len, git_object_t* type, git_odb_backend* b, const git_oid* id) {
  auto it = memory_of(b).objects.find(*id);
  if (it == memory_of(b).objects.end()) return GIT_ENOTFOUND;
  *len = it->second.data.size();
  *type = it->second.type;
  return hand_over(b, it->second.data.data(), *len, data);
}

int memory_read_header(size_t* len, git_object_t* type, git_odb_backend* b, const git_oid* id) {
  auto it = memory_of(b).objects.find(*id);
  if (it == memory_of(b).objects.end()) return GIT_ENOTFOUND;
  *len = it->second.data.size();
  *type = it->second.type;
  return 0;
}

int memory_exists(git_odb_backend* b, const git_oid* id) { return memory_of(b).objects.count(*id) != 0 ? 1 : 0; }

int memory_freshen(git_odb_backend* b, const git_oid* id) { return memory_exists(b, id) ? 0 : GIT_ENOTFOUND; }

int memory_write(git_odb_backend* b, const git_oid* id, const void* data, size_t len, git_object_t type) {
  memory_of(b).objects.try_emplace(*id, MemoryObjects::Object{type, std::string(static_cast<const char*>(data), len)});
  return 0;
}

void memory_free(git_odb_backend* b) { delete &memory_of(b); }

bool is_git_file_mode(std::uint32_t mode) { return mode == 0100644 || mode == 0100755 || mode == 0120000; }

}  // namespace

bool attach_workspace_objects(git_odb* odb, const std::string& git_dir) {
  struct stat st {};
  std::string objects = git_dir + "/objects";
  if (::stat(objects.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  git_odb* source = nullptr;
  if (git_odb_open(&source, objects.c_str()) != 0) return false;
  auto* view = new ReadOnlyView{};
  init_backend(view->parent, view_read, view_read_header, view_exists, view_freshen, view_free);
  view->source = source;
  view->parent.refresh = view_refresh;
  // Lowest priority: the store's own objects are looked at first.
  if (git_odb_add_alternate(odb, &view->parent, 0) != 0) {
    view_free(&view->parent);
    return false;
  }
  return true;
}

Result<PackedWrites> PackedWrites::attach(git_repository* repo, const std::string& repo_path) {
  PackedWrites out;
  GitOdb odb;
  if (git_repository_odb(odb.out(), repo) != 0) return git_failure("open object database");
  auto* memory = new MemoryObjects{};
  init_backend(memory->parent, memory_read, memory_read_header, memory_exists, memory_freshen, memory_free);
  memory->parent.write = memory_write;
  // Above the loose (1) and pack (2) backends: every write lands here.
  if (git_odb_add_backend(odb.get(), &memory->parent, 1000) != 0) {
    memory_free(&memory->parent);
    return git_failure("add the memory backend");
  }
  out.repo_ = repo;
  out.memory_ = memory;
  out.pack_dir_ = repo_path + "/objects/pack";
  return out;
}

void PackedWrites::add(const git_oid& id, git_object_t type, std::string content) {
  memory_->objects.try_emplace(id, MemoryObjects::Object{type, std::move(content)});
}

Status PackedWrites::write_pack() {
  if (memory_->objects.empty()) return ok_status();
  std::vector<PackObject> objects;
  objects.reserve(memory_->objects.size());
  for (const auto& [id, object] : memory_->objects) objects.push_back({id, object.type, &object.data});
  // Git's partial-clone convention: objects this pack names but nobody copied (blobs the
  // workspace's repository holds) are allowed to be missing. libgit2 ignores the marker.
  TRY(std::string name, write_pack_files(pack_dir_, std::move(objects), "promisor"));
  (void)name;
  GitOdb odb;
  if (git_repository_odb(odb.out(), repo_) != 0 || git_odb_refresh(odb.get()) != 0) return git_failure("reload packs");
  memory_->objects.clear();
  return ok_status();
}

std::size_t seed_from_index(StatIndex& index, const std::string& index_file, std::set<std::string>* racy,
                            const std::function<bool(std::string_view)>& keep) {
  struct stat st {};
  if (::stat(index_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  // The repository's index arrives with it, from anywhere: a sparse file of any size costs it no
  // disk, and reading one takes its size in memory. A seed is only a head start: past the size of
  // any index git writes for a workspace candor can scan, the first scan reads every file instead.
  constexpr off_t kLargestSeed = off_t{1} << 30;
  if (st.st_size > kLargestSeed) return 0;
  auto racy_entry = [&st](std::int64_t mtime) { return mtime >= st.st_mtim.tv_sec - 1; };
  // Read as the store's own index is (no allocation per entry) when git wrote version 2 or 3.
  if (index.empty()) {
    if (auto read = StatIndex::load(index_file); read.ok()) {
      GitNameCheck names;
      read->keep_if(
          [&](const StatEntry& e) { return is_git_file_mode(e.mode) && keep(e.path) && names.holds(e.path); });
      if (racy != nullptr) {
        for (std::string_view path : read->racy()) racy->emplace(path);
      }
      read->forget_file();
      read->release_file();
      index = std::move(*read);
      return index.size();
    }
  }
  // libgit2 reads what git may have written (version 4, split or sparse indexes it refuses).
  GitIndex source;
  if (git_index_open(source.out(), index_file.c_str()) != 0) return 0;
  GitNameCheck names;
  std::vector<StatEntry> seeds;
  seeds.reserve(git_index_entrycount(source.get()));
  for (std::size_t i = 0; i < git_index_entrycount(source.get()); ++i) {
    const git_index_entry* e = git_index_get_byindex(source.get(), i);
    if (GIT_INDEX_ENTRY_STAGE(e) != 0 || (e->flags & GIT_INDEX_ENTRY_VALID) != 0 ||
        (e->flags_extended & (GIT_INDEX_ENTRY_INTENT_TO_ADD | GIT_INDEX_ENTRY_SKIP_WORKTREE)) != 0 ||
        !is_git_file_mode(e->mode) || !keep(e->path) || !names.holds(e->path)) {
      continue;
    }
    StatEntry seed;
    seed.ctime_s = static_cast<std::uint32_t>(e->ctime.seconds);
    seed.ctime_ns = e->ctime.nanoseconds;
    seed.mtime_s = static_cast<std::uint32_t>(e->mtime.seconds);
    seed.mtime_ns = e->mtime.nanoseconds;
    seed.dev = e->dev;
    seed.ino = e->ino;
    seed.mode = e->mode;
    seed.uid = e->uid;
    seed.gid = e->gid;
    seed.size = e->file_size;
    seed.id = e->id;
    seed.path = e->path;
    seeds.push_back(seed);
    if (racy != nullptr && racy_entry(e->mtime.seconds)) racy->insert(e->path);
  }
  auto by_path = [](const StatEntry& a, const StatEntry& b) { return a.path < b.path; };
  if (!std::is_sorted(seeds.begin(), seeds.end(), by_path)) std::sort(seeds.begin(), seeds.end(), by_path);
  // libgit2 reads an index naming a path twice at stage 0 (git lists both). Held twice in the stat
  // cache, the path would be found by the walk once and dropped as gone once; so it is held once,
  // tracked as git has it, and racy: which entry would vouch for the file is anyone's guess, so the
  // first scan reads it.
  std::vector<StatEntry> once;
  once.reserve(seeds.size());
  for (std::size_t i = 0; i < seeds.size();) {
    std::size_t next = i + 1;
    while (next < seeds.size() && seeds[next].path == seeds[i].path) ++next;
    once.push_back(seeds[i]);
    if (racy != nullptr && next != i + 1) racy->emplace(seeds[i].path);
    i = next;
  }
  index.put_sorted(once);
  return once.size();
}

}  // namespace candor::snapshot
