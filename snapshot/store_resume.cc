// A run begun by one process and ended by another (the live gate: a turn starts in one hook call and
// ends in the next): the store picks up where the snapshot before the run left it. Shares
// store_impl.h with store.cc.
#include <algorithm>
#include <string_view>

#include "snapshot/changed_paths.h"
#include "snapshot/store_impl.h"

namespace candor::snapshot {
namespace {

Result<git_oid> tree_oid(const std::string& s) {
  git_oid oid;
  if (git_oid_fromstr(&oid, s.c_str()) != 0)
    return make_error(ErrorCode::kInvalidInput, "snapshot: bad tree id \"" + s + "\"");
  return oid;
}

bool is_gitignore(std::string_view path) {
  constexpr std::string_view kName = ".gitignore";
  return path.size() >= kName.size() && path.substr(path.size() - kName.size()) == kName &&
         (path.size() == kName.size() || path[path.size() - kName.size() - 1] == '/');
}

// A file of a tree as an index entry holds it: its id and git's mode, no stat data (so the next
// scan reads it). `path` is a view the caller keeps alive until the entry is put.
StatEntry unstated(std::string_view path, const git_oid& id, std::uint32_t mode) {
  StatEntry e;
  e.id = id;
  e.mode = mode;
  e.path = path;
  return e;
}

struct HeldFile {
  std::string path;
  git_oid id;
  std::uint32_t mode;
};

int collect_file(const char* root, const git_tree_entry* entry, void* payload) {
  if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return 0;
  auto* files = static_cast<std::vector<HeldFile>*>(payload);
  files->push_back({std::string(root) + git_tree_entry_name(entry), *git_tree_entry_id(entry),
                    static_cast<std::uint32_t>(git_tree_entry_filemode(entry))});
  return 0;
}

}  // namespace

// The index made to hold exactly `tree_id`: from the tree the saved index is known to make, only
// the paths the two trees differ at change (a warm start: the rest keep their stat data); with no
// such tree, every file of `tree_id`, keeping the stat data of an entry that names the same content.
Status SnapshotStore::Impl::hold_tree(const std::string& tree_id) {
  if (index_tree == tree_id) return ok_status();
  TRY(git_oid to_id, tree_oid(tree_id));
  GitTree to;
  if (git_tree_lookup(to.out(), trees_repo.get(), &to_id) != 0) return git_failure("look up the snapshot " + tree_id);
  std::vector<std::string> paths;  // owns what the entries' views point to
  std::vector<StatEntry> entries;
  std::vector<std::string_view> gone;
  if (!index_tree.empty()) {
    TRY(git_oid from_id, tree_oid(index_tree));
    GitTree from;
    if (git_tree_lookup(from.out(), trees_repo.get(), &from_id) != 0)
      return git_failure("look up the tree of the saved index " + index_tree);
    // Only the folders whose trees differ are read: a turn changes a few files of many.
    TRY(paths, changed_paths(trees_repo.get(), from.get(), to.get()));
    std::sort(paths.begin(), paths.end());
    for (const auto& path : paths) {
      GitTreeEntry entry;
      bool held = git_tree_entry_bypath(entry.out(), to.get(), path.c_str()) == 0;
      git_object_t type = held ? git_tree_entry_type(entry.get()) : GIT_OBJECT_INVALID;
      if (type == GIT_OBJECT_COMMIT) continue;  // no snapshot holds one
      if (type == GIT_OBJECT_BLOB) {
        entries.push_back(unstated(path, *git_tree_entry_id(entry.get()),
                                   static_cast<std::uint32_t>(git_tree_entry_filemode(entry.get()))));
      } else {
        gone.push_back(path);  // not in the snapshot, or a folder there now (its files are listed)
      }
    }
    index.remove_all(gone);
    index.put_sorted(entries);
    entries_since_save += paths.size();
  } else {
    std::vector<HeldFile> files;
    if (git_tree_walk(to.get(), GIT_TREEWALK_PRE, collect_file, &files) != 0)
      return git_failure("read the snapshot " + tree_id);
    std::sort(files.begin(), files.end(), [](const HeldFile& a, const HeldFile& b) { return a.path < b.path; });
    entries.reserve(files.size());
    for (const auto& f : files) {
      std::size_t pos = index.find(f.path);
      if (pos != StatIndex::npos && git_oid_equal(&index.at(pos).id, &f.id) && index.at(pos).mode == f.mode) {
        StatEntry kept = index.at(pos);
        kept.path = f.path;
        entries.push_back(kept);
      } else {
        entries.push_back(unstated(f.path, f.id, f.mode));
      }
    }
    index.clear();
    index.put_sorted(entries);
    rewrite_index = true;
  }
  // The index holds the tree now: later scans' changes build on it.
  tree_base.clear();
  changed_since_base.clear();
  index_tree = tree_id;
  index_tree_saved = false;
  index_dirty = true;
  return ok_status();
}

Status SnapshotStore::Impl::fix_rules_from_index(const std::string& repo_path) {
  std::vector<std::string> gitignores;
  for (std::size_t i = 0; i < index.size(); ++i) {
    const StatEntry& e = index.at(i);
    // git reads no .gitignore that is a symlink; neither does the shadow.
    if (is_gitignore(e.path) && (e.mode == 0100644 || e.mode == 0100755)) gitignores.emplace_back(e.path);
  }
  return fix_rules(std::move(gitignores), repo_path, [this](const std::string& rel) {
    std::size_t pos = index.find(rel);
    GitBlob blob;
    if (pos == StatIndex::npos || git_blob_lookup(blob.out(), repo.get(), &index.at(pos).id) != 0)
      return Entry::Kind::kUnreadable;
    std::string_view content(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                             static_cast<std::size_t>(git_blob_rawsize(blob.get())));
    return shadow.write(rel, content) ? Entry::Kind::kFile : Entry::Kind::kUnreadable;
  });
}

Status SnapshotStore::resume(const std::string& before_tree, const std::vector<std::string>& extra_patterns) {
  Impl& m = *impl_;
  if (m.scanned || m.frozen.get() != nullptr)
    return make_error(ErrorCode::kInternal, "snapshot: a run is resumed before any scan");
  TRY_STATUS(m.hold_tree(before_tree));
  m.extras_fixed = true;
  m.frozen_ignore = std::set<std::string>(extra_patterns.begin(), extra_patterns.end());
  m.open_ignore = m.frozen_ignore;  // what the rules' handles below follow
  TRY_STATUS(m.fix_rules_from_index(repository_path()));
  m.started = true;
  m.resumed = true;
  return ok_status();
}

std::vector<std::string> SnapshotStore::held_paths(const std::function<bool(std::string_view)>& keep) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < impl_->index.size(); ++i) {
    std::string_view path = impl_->index.at(i).path;
    if (keep(path)) out.emplace_back(path);
  }
  return out;
}

std::vector<std::pair<std::string, std::uint32_t>> SnapshotStore::held_modes(
    const std::function<bool(std::string_view, std::uint32_t)>& keep) const {
  std::vector<std::pair<std::string, std::uint32_t>> out;
  for (std::size_t i = 0; i < impl_->index.size(); ++i) {
    const StatEntry& e = impl_->index.at(i);
    if (e.full_mode != 0 && keep(e.path, e.full_mode)) out.emplace_back(std::string(e.path), e.full_mode);
  }
  return out;
}

}  // namespace candor::snapshot
