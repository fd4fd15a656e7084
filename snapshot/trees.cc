#include "snapshot/trees.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <tuple>
#include <unordered_map>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "snapshot/changed_paths.h"
#include "snapshot/git_ptr.h"

namespace candor::snapshot {
namespace {

using Diff = GitDiff;

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("git: {}: {}", what, git_last_error()));
}

Result<git_oid> parse_oid(const std::string& s) {
  git_oid oid;
  if (git_oid_fromstr(&oid, s.c_str()) != 0)
    return make_error(ErrorCode::kInvalidInput, "git: bad tree id \"" + s + "\"");
  return oid;
}

// `out` stays null for the empty tree when the repository does not hold it: libgit2 diffs a null
// tree as an empty one.
Status lookup_tree(git_repository* repo, const std::string& id, GitTree& out) {
  TRY(git_oid oid, parse_oid(id));
  if (git_tree_lookup(out.out(), repo, &oid) != 0) {
    if (id == kEmptyTree) return ok_status();
    return git_failure("look up tree " + id);
  }
  return ok_status();
}

// The diff between two trees, limited to `paths` (exact paths) when not empty.
Status diff_trees(git_repository* repo, git_tree* from, git_tree* to, const std::vector<std::string>& paths,
                  git_diff** out) {
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  // Text whatever the attributes say: .gitattributes (`binary`, `-diff`, `diff`) come from the
  // workspace or the change, which the agent writes. Binary content is told by side_of().
  opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_FORCE_TEXT;
  std::vector<char*> spec;
  for (const auto& p : paths) spec.push_back(const_cast<char*>(p.c_str()));
  if (!spec.empty()) {
    opts.pathspec = {spec.data(), spec.size()};
    opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
  }
  if (git_diff_tree_to_tree(out, repo, from, to, &opts) != 0) return git_failure("diff");
  return ok_status();
}

Status diff_trees(git_repository* repo, const std::string& from_tree, const std::string& to_tree,
                  const std::string& path, git_diff** out) {
  GitTree from, to;
  TRY_STATUS(lookup_tree(repo, from_tree, from));
  TRY_STATUS(lookup_tree(repo, to_tree, to));
  return diff_trees(repo, from.get(), to.get(),
                    path.empty() ? std::vector<std::string>{} : std::vector<std::string>{path}, out);
}

// What a side of a change holds, read from its blob: its size, and whether it is binary by git's
// own test (buffer_is_binary: a NUL byte in the first 8000 bytes). No side (added, deleted), or not
// a blob (a submodule's commit): 0, not binary.
struct Side {
  std::int64_t size = 0;
  bool binary = false;
  std::int64_t lines = -1;  // counted for blobs read whole; -1 for larger ones
};

// Larger blobs are not loaded whole: their size comes from the object's header and the NUL test
// from a stream of its first bytes (a 1 GB file in a snapshot must not cost 1 GB of memory).
constexpr std::size_t kWholeBlobMax = 8 << 20;
constexpr std::size_t kBinaryTestBytes = 8000;

std::optional<Side> side_streamed(git_repository* repo, const git_oid& id) {
  GitOdb odb;
  if (git_repository_odb(odb.out(), repo) != 0) return std::nullopt;
  std::size_t size = 0;
  git_object_t type{};
  if (git_odb_read_header(&size, &type, odb.get(), &id) != 0 || type != GIT_OBJECT_BLOB) return std::nullopt;
  if (size <= kWholeBlobMax) return std::nullopt;
  GitPtr<git_odb_stream, git_odb_stream_free> stream;
  std::size_t streamed_size = 0;
  if (git_odb_open_rstream(stream.out(), &streamed_size, &type, odb.get(), &id) != 0) return std::nullopt;
  char head[kBinaryTestBytes];
  std::size_t got = 0;
  while (got < sizeof head) {
    int n = git_odb_stream_read(stream.get(), head + got, sizeof head - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  return Side{static_cast<std::int64_t>(size), std::memchr(head, 0, got) != nullptr};
}

Side side_of(git_repository* repo, const git_diff_file& f) {
  if (git_oid_is_zero(&f.id)) return {};
  if (auto streamed = side_streamed(repo, f.id)) return *streamed;
  GitBlob blob;
  if (git_blob_lookup(blob.out(), repo, &f.id) != 0) return {};
  auto size = static_cast<std::size_t>(git_blob_rawsize(blob.get()));
  const char* bytes = static_cast<const char*>(git_blob_rawcontent(blob.get()));
  Side side{static_cast<std::int64_t>(size),
            std::memchr(bytes, 0, std::min<std::size_t>(size, kBinaryTestBytes)) != nullptr};
  side.lines = std::count(bytes, bytes + size, '\n') + (size > 0 && bytes[size - 1] != '\n' ? 1 : 0);
  return side;
}

// Up to this size on both sides a text change is diffed by xdiff, whose memory and time grow with
// the lines (a 40 MB file of empty lines took 3.8 GB). Beyond it lines are counted as multisets.
constexpr std::int64_t kMaxDiffBytes = 1 << 20;
// Distinct lines a multiset count holds at most; beyond, the counts are unknown.
constexpr std::size_t kMaxDistinctLines = 1 << 20;

// Hashes of a blob's lines with their counts, read a chunk at a time. False when the blob cannot
// be streamed or has too many distinct lines to count.
bool count_lines(git_repository* repo, const git_oid& id, std::unordered_map<std::uint64_t, std::int64_t>& counts,
                 int sign) {
  GitOdb odb;
  if (git_repository_odb(odb.out(), repo) != 0) return false;
  GitPtr<git_odb_stream, git_odb_stream_free> stream;
  std::size_t size = 0;
  git_object_t type{};
  std::string whole;  // an object that cannot be streamed (a packed one: small) is read whole
  if (git_odb_open_rstream(stream.out(), &size, &type, odb.get(), &id) != 0) {
    GitBlob blob;
    if (git_blob_lookup(blob.out(), repo, &id) != 0 ||
        git_blob_rawsize(blob.get()) > static_cast<git_object_size_t>(64 << 20))
      return false;
    whole.assign(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                 static_cast<std::size_t>(git_blob_rawsize(blob.get())));
  }
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a of the line so far
  auto line_done = [&] {
    counts[hash] += sign;
    hash = 1469598103934665603ULL;
    return counts.size() <= kMaxDistinctLines;
  };
  auto feed = [&](const char* data, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
      if (data[k] == '\n') {
        if (!line_done()) return false;
      } else {
        hash = (hash ^ static_cast<unsigned char>(data[k])) * 1099511628211ULL;
      }
    }
    return true;
  };
  bool partial_line = false;
  if (!whole.empty() || stream.get() == nullptr) {
    if (!feed(whole.data(), whole.size())) return false;
    partial_line = !whole.empty() && whole.back() != '\n';
  } else {
    std::vector<char> buf(1 << 20);
    char last = '\n';
    for (;;) {
      int n = git_odb_stream_read(stream.get(), buf.data(), buf.size());
      if (n < 0) return false;
      if (n == 0) break;
      if (!feed(buf.data(), static_cast<std::size_t>(n))) return false;
      last = buf[static_cast<std::size_t>(n) - 1];
    }
    partial_line = last != '\n';
  }
  return !partial_line || line_done();
}

// Lines added and removed as multisets: a lower bound of a diff's counts (a moved line counts as
// neither), in memory proportional to the distinct lines. nullopt: not countable.
std::optional<std::pair<int, int>> multiset_line_counts(git_repository* repo, const git_diff_delta* d) {
  std::unordered_map<std::uint64_t, std::int64_t> counts;  // after minus before
  if (!git_oid_is_zero(&d->old_file.id) && !count_lines(repo, d->old_file.id, counts, -1)) return std::nullopt;
  if (!git_oid_is_zero(&d->new_file.id) && !count_lines(repo, d->new_file.id, counts, +1)) return std::nullopt;
  std::int64_t added = 0, removed = 0;
  for (const auto& [line, n] : counts) (n > 0 ? added : removed) += n > 0 ? n : -n;
  return std::make_pair(static_cast<int>(std::min<std::int64_t>(added, INT32_MAX)),
                        static_cast<int>(std::min<std::int64_t>(removed, INT32_MAX)));
}

// The mutation `d` is. Its line counts come from a text diff, made only when neither side is
// binary (a text diff of a large binary costs xdiff's worst case, for numbers nobody shows).
Result<Mutation> mutation_of(git_diff* diff, std::size_t i, git_repository* repo) {
  const git_diff_delta* d = git_diff_get_delta(diff, i);
  Mutation m;
  m.path = d->new_file.path ? d->new_file.path : d->old_file.path;
  switch (d->status) {
    case GIT_DELTA_ADDED:
      m.change = "added";
      break;
    case GIT_DELTA_DELETED:
      m.change = "deleted";
      break;
    case GIT_DELTA_RENAMED:
      m.change = "added";
      m.renamed_from = d->old_file.path;
      break;
    default:
      // The same blob under other permission bits: a change of mode only, as a run's scan says it.
      m.change =
          git_oid_equal(&d->old_file.id, &d->new_file.id) && d->old_file.mode != d->new_file.mode ? "mode" : "modified";
      break;
  }
  const Side before = side_of(repo, d->old_file), after = side_of(repo, d->new_file);
  // git's modes (644, 755, a link): what a tree holds. A run replaces them with the whole modes
  // its scans saw; for a change between commits they are all there is, and say a link is one.
  if (m.change != "added") m.mode_before = d->old_file.mode;
  if (m.change != "deleted") m.mode_after = d->new_file.mode;
  m.bytes_before = m.change == "added" ? 0 : before.size;
  m.bytes_after = m.change == "deleted" ? 0 : after.size;
  m.binary = before.binary || after.binary;
  if (!m.binary && std::max(before.size, after.size) > kMaxDiffBytes) {
    auto counts = multiset_line_counts(repo, d);
    m.lines_by = counts ? "multiset" : "unknown";
    if (counts) std::tie(m.lines_added, m.lines_removed) = *counts;
  } else if (!m.binary) {
    GitPatch patch;
    if (git_patch_from_diff(patch.out(), diff, i) != 0) return git_failure("patch");
    std::size_t context = 0, adds = 0, dels = 0;
    git_patch_line_stats(&context, &adds, &dels, patch.get());
    m.lines_added = static_cast<int>(adds);
    m.lines_removed = static_cast<int>(dels);
    if (m.change != "added") m.lines_before = static_cast<int>(std::max<std::int64_t>(before.lines, 0));
  }
  return m;
}

// A tree entry's name as a folder entry: refused when it could leave the folder or plant a
// repository in it (names come from the change, which is untrusted).
bool safe_name(const char* name) {
  std::string n = name;
  if (n.empty() || n == "." || n == ".." || n.find('/') != std::string::npos) return false;
  std::string lower;
  for (char c : n) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower != ".git";
}

// Whether a link at `path` (relative to the checkout) pointing at `target` resolves inside it,
// lexically: no absolute target, and no ".." that climbs above the root.
bool link_stays_inside(const std::string& path, const std::string& target) {
  if (target.empty() || target[0] == '/') return false;
  int depth = static_cast<int>(std::count(path.begin(), path.end(), '/'));  // folders above the link
  std::size_t start = 0;
  while (start <= target.size()) {
    std::size_t end = target.find('/', start);
    std::string part = target.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part == "..") {
      if (--depth < 0) return false;
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

Status write_tree_beneath(git_repository* repo, const git_tree* tree, int dir_fd, const std::string& shown) {
  std::size_t n = git_tree_entrycount(tree);
  for (std::size_t i = 0; i < n; ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree, i);
    const char* name = git_tree_entry_name(e);
    std::string path = shown.empty() ? name : shown + "/" + name;
    if (!safe_name(name)) continue;
    git_filemode_t mode = git_tree_entry_filemode(e);
    if (mode == GIT_FILEMODE_TREE) {
      if (::mkdirat(dir_fd, name, 0755) != 0) {
        return make_error(ErrorCode::kIo, fmt::format("checkout: cannot create {}: {}", path, std::strerror(errno)));
      }
      int sub = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0)
        return make_error(ErrorCode::kIo, fmt::format("checkout: cannot open {}: {}", path, std::strerror(errno)));
      GitTree subtree;
      Status st = git_tree_lookup(subtree.out(), repo, git_tree_entry_id(e)) == 0
                      ? write_tree_beneath(repo, subtree.get(), sub, path)
                      : Status(git_failure("look up " + path));
      ::close(sub);
      TRY_STATUS(st);
      continue;
    }
    if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE && mode != GIT_FILEMODE_LINK)
      continue;  // submodules
    GitBlob blob;
    if (git_blob_lookup(blob.out(), repo, git_tree_entry_id(e)) != 0) return git_failure("read " + path);
    const char* data = static_cast<const char*>(git_blob_rawcontent(blob.get()));
    std::size_t size = static_cast<std::size_t>(git_blob_rawsize(blob.get()));
    // A link whose target leaves the folder (absolute, or climbing above it) is written as a file
    // holding the target, as git does without core.symlinks: its target is the change's choice,
    // and a program run on the checkout would read whatever it points at.
    if (mode == GIT_FILEMODE_LINK && link_stays_inside(path, std::string(data, size))) {
      if (::symlinkat(std::string(data, size).c_str(), dir_fd, name) != 0) {
        return make_error(ErrorCode::kIo,
                          fmt::format("checkout: cannot create link {}: {}", path, std::strerror(errno)));
      }
      continue;
    }
    int fd = ::openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
    if (fd < 0)
      return make_error(ErrorCode::kIo, fmt::format("checkout: cannot create {}: {}", path, std::strerror(errno)));
    std::size_t done = 0;
    while (done < size) {
      ssize_t w = ::write(fd, data + done, size - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        int err = errno;
        ::close(fd);
        return make_error(ErrorCode::kIo, fmt::format("checkout: cannot write {}: {}", path, std::strerror(err)));
      }
      done += static_cast<std::size_t>(w);
    }
    ::close(fd);
  }
  return ok_status();
}

// Where `path` (relative to `root_fd`) leads when every link on the way is followed, as a program
// in the checkout would follow them: beneath the root, or not. A chain that is harmless link by
// link (`d -> .`, then `x -> d/d/../../secret`) can climb out; only resolving it shows that.
// A target not there (yet) is beneath as far as it went.
bool resolves_beneath(int root_fd, const std::string& path, const std::string& root) {
  struct open_how how {};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, root_fd, path.c_str(), &how, sizeof how);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    return true;
  }
  if (errno == ENOENT) return true;
  if (errno != ENOSYS && errno != EPERM) return false;  // EXDEV (it escaped), ELOOP, ...
  // No openat2 here: the kernel's own resolution, compared by prefix.
  char resolved[PATH_MAX];
  if (::realpath((root + "/" + path).c_str(), resolved) == nullptr) return errno == ENOENT;
  std::string r(resolved);
  return r == root || r.rfind(root + "/", 0) == 0;
}

// Replaces every link of the checkout that resolves outside it by a file holding its target (as
// write_tree_beneath writes one whose target leaves it lexically).
Status unlink_escaping_links(int root_fd, const std::string& root, int dir_fd, const std::string& rel) {
  DIR* d = ::fdopendir(::dup(dir_fd));
  if (d == nullptr)
    return make_error(ErrorCode::kIo,
                      fmt::format("checkout: cannot list {}: {}", rel.empty() ? "." : rel, std::strerror(errno)));
  std::vector<std::pair<std::string, unsigned char>> entries;
  while (struct dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      entries.emplace_back(e->d_name, e->d_type);
  }
  ::closedir(d);
  for (const auto& [name, type] : entries) {
    std::string path = rel.empty() ? name : rel + "/" + name;
    if (type == DT_DIR) {
      int sub = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      Status st = unlink_escaping_links(root_fd, root, sub, path);
      ::close(sub);
      TRY_STATUS(st);
    } else if (type == DT_LNK && !resolves_beneath(root_fd, path, root)) {
      char target[PATH_MAX];
      ssize_t n = ::readlinkat(dir_fd, name.c_str(), target, sizeof target);
      if (::unlinkat(dir_fd, name.c_str(), 0) != 0) {
        return make_error(ErrorCode::kIo,
                          fmt::format("checkout: cannot remove link {}: {}", path, std::strerror(errno)));
      }
      int fd = ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd >= 0) {
        if (n > 0) (void)!::write(fd, target, static_cast<std::size_t>(n));
        ::close(fd);
      }
    }
  }
  return ok_status();
}

}  // namespace

Result<std::vector<Mutation>> GitTrees::diff(const std::string& from_tree, const std::string& to_tree,
                                             const DiffOptions& options) const {
  GitTree from, to;
  TRY_STATUS(lookup_tree(repo_, from_tree, from));
  TRY_STATUS(lookup_tree(repo_, to_tree, to));
  TRY(std::vector<std::string> changed, changed_paths(repo_, from.get(), to.get()));
  if (changed.empty()) return std::vector<Mutation>{};
  Diff diff;
  TRY_STATUS(diff_trees(repo_, from.get(), to.get(), changed, diff.out()));
  if (options.detect_renames) {
    git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
    find.flags = GIT_DIFF_FIND_RENAMES;
    if (git_diff_find_similar(diff.get(), &find) != 0) return git_failure("find renames");
  }
  std::vector<Mutation> out;
  std::size_t n = git_diff_num_deltas(diff.get());
  for (std::size_t i = 0; i < n; ++i) {
    TRY(Mutation m, mutation_of(diff.get(), i, repo_));
    if (!m.renamed_from.empty()) {
      // The old path is gone: a deletion like any other, so an assertion must account for it too.
      Mutation gone;
      gone.path = m.renamed_from;
      gone.change = "deleted";
      gone.bytes_before = side_of(repo_, git_diff_get_delta(diff.get(), i)->old_file).size;
      out.push_back(std::move(gone));
    }
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(), [](const Mutation& a, const Mutation& b) { return a.path < b.path; });
  return out;
}

namespace {

// The patch of delta `i` of `diff`, as patch_text() says it, whole.
Result<std::string> patch_of_delta(git_repository* repo, git_diff* diff, std::size_t i) {
  const git_diff_delta* d = git_diff_get_delta(diff, i);
  // A change too large to diff is said as such; nothing of it is shown.
  const Side before = side_of(repo, d->old_file), after = side_of(repo, d->new_file);
  if (!before.binary && !after.binary && std::max(before.size, after.size) > kMaxDiffBytes) {
    return fmt::format(
        "diff --git a/{0} b/{0}\n(not shown: {1} bytes before, {2} after; candor diffs text of up to {3} bytes)\n",
        d->new_file.path ? d->new_file.path : d->old_file.path, before.size, after.size, kMaxDiffBytes);
  }
  // A binary change is named as git names it, without its bytes (the diff was forced to text).
  if (before.binary || after.binary) {
    std::string from = d->status == GIT_DELTA_ADDED ? "/dev/null" : "a/" + std::string(d->old_file.path);
    std::string to = d->status == GIT_DELTA_DELETED ? "/dev/null" : "b/" + std::string(d->new_file.path);
    return fmt::format("diff --git a/{} b/{}\nBinary files {} and {} differ\n", d->old_file.path, d->new_file.path,
                       from, to);
  }
  git_patch* raw = nullptr;
  if (git_patch_from_diff(&raw, diff, i) != 0) return git_failure("diff");
  git_buf buf = GIT_BUF_INIT;
  int printed = raw == nullptr ? 0 : git_patch_to_buf(&buf, raw);
  git_patch_free(raw);
  if (printed != 0) return git_failure("format patch");
  std::string text(buf.ptr == nullptr ? "" : buf.ptr, buf.size);
  git_buf_dispose(&buf);
  return text;
}

}  // namespace

Result<std::string> GitTrees::patch_text(const std::string& from_tree, const std::string& to_tree,
                                         const std::string& path, std::size_t max_bytes) const {
  Diff diff;
  TRY_STATUS(diff_trees(repo_, from_tree, to_tree, path, diff.out()));
  std::string text;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    TRY(std::string one, patch_of_delta(repo_, diff.get(), i));
    text += one;
  }
  if (text.size() > max_bytes) {
    text = text.substr(0, max_bytes) + fmt::format("\n[diff truncated: {} bytes in total]\n", text.size());
  }
  return text;
}

Result<std::map<std::string, std::string>> GitTrees::patch_texts(const std::string& from_tree,
                                                                 const std::string& to_tree,
                                                                 const std::vector<std::string>& paths,
                                                                 std::size_t max_bytes) const {
  std::map<std::string, std::string> out;
  if (paths.empty()) return out;
  Diff diff;
  GitTree from, to;
  TRY_STATUS(lookup_tree(repo_, from_tree, from));
  TRY_STATUS(lookup_tree(repo_, to_tree, to));
  TRY_STATUS(diff_trees(repo_, from.get(), to.get(), paths, diff.out()));
  for (std::size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    std::string path = d->new_file.path != nullptr ? d->new_file.path : d->old_file.path;
    TRY(std::string one, patch_of_delta(repo_, diff.get(), i));
    out[path] += one;  // a path whose type changed (a file made a symlink) is two deltas under one name
  }
  for (auto& [path, text] : out) {
    if (text.size() > max_bytes) {
      text = text.substr(0, max_bytes) + fmt::format("\n[diff truncated: {} bytes in total]\n", text.size());
    }
  }
  return out;
}

Result<std::optional<TreeFile>> GitTrees::read_file(const std::string& tree_id, const std::string& path) const {
  GitTree tree;
  TRY_STATUS(lookup_tree(repo_, tree_id, tree));
  GitTreeEntry entry;
  if (tree.get() == nullptr || git_tree_entry_bypath(entry.out(), tree.get(), path.c_str()) != 0)
    return std::optional<TreeFile>();
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return std::optional<TreeFile>();
  GitBlob blob;
  if (git_blob_lookup(blob.out(), repo_, git_tree_entry_id(entry.get())) != 0) return git_failure("read " + path);
  const char* data = static_cast<const char*>(git_blob_rawcontent(blob.get()));
  TreeFile f{std::string(data, static_cast<std::size_t>(git_blob_rawsize(blob.get()))),
             static_cast<unsigned>(git_tree_entry_filemode(entry.get()))};
  return std::optional<TreeFile>(std::move(f));
}

Result<std::optional<TreeEntryInfo>> GitTrees::stat(const std::string& tree_id, const std::string& path) const {
  GitTree tree;
  TRY_STATUS(lookup_tree(repo_, tree_id, tree));
  if (path.empty() || path == ".") return std::optional<TreeEntryInfo>(TreeEntryInfo{});
  GitTreeEntry entry;
  if (tree.get() == nullptr || git_tree_entry_bypath(entry.out(), tree.get(), path.c_str()) != 0)
    return std::optional<TreeEntryInfo>();
  TreeEntryInfo info;
  info.mode = static_cast<unsigned>(git_tree_entry_filemode(entry.get()));
  info.directory = git_tree_entry_type(entry.get()) == GIT_OBJECT_TREE;
  if (git_tree_entry_type(entry.get()) == GIT_OBJECT_BLOB) {
    git_object_size_t size = 0;
    git_object_t type{};
    GitOdb odb;
    if (git_repository_odb(odb.out(), repo_) != 0 ||
        git_odb_read_header(&size, &type, odb.get(), git_tree_entry_id(entry.get())) != 0) {
      return git_failure("read " + path);
    }
    info.size = static_cast<std::int64_t>(size);
  }
  return std::optional<TreeEntryInfo>(info);
}

Result<std::vector<std::string>> GitTrees::file_paths(const std::string& tree_id,
                                                      const std::function<bool(std::string_view)>& keep) const {
  GitTree tree;
  TRY_STATUS(lookup_tree(repo_, tree_id, tree));
  struct Walk {
    const std::function<bool(std::string_view)>& keep;
    std::vector<std::string> paths;
  } walk{keep, {}};
  auto visit = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return 0;
    auto* w = static_cast<Walk*>(payload);
    std::string path = std::string(root) + git_tree_entry_name(entry);
    if (w->keep(path)) w->paths.push_back(std::move(path));
    return 0;
  };
  if (tree.get() != nullptr && git_tree_walk(tree.get(), GIT_TREEWALK_PRE, visit, &walk) != 0)
    return git_failure("read the files of tree " + tree_id);
  std::sort(walk.paths.begin(), walk.paths.end());
  return std::move(walk.paths);
}

Status GitTrees::checkout(const std::string& tree_id, const std::string& folder) const {
  GitTree tree;
  TRY_STATUS(lookup_tree(repo_, tree_id, tree));
  if (tree.get() == nullptr) return ok_status();
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return make_error(ErrorCode::kIo, fmt::format("checkout: cannot open {}: {}", folder, std::strerror(errno)));
  Status st = write_tree_beneath(repo_, tree.get(), fd, "");
  if (st.ok()) {
    char resolved[PATH_MAX];
    std::string root = ::realpath(folder.c_str(), resolved) != nullptr ? std::string(resolved) : folder;
    st = unlink_escaping_links(fd, root, fd, "");
  }
  ::close(fd);
  return st;
}

namespace {

// changed_paths()'s walk: each folder whose tree differs on the two sides is entered, no other.
class ChangedPaths {
 public:
  explicit ChangedPaths(git_repository* repo) : repo_(repo) {}

  Status compare(git_tree* a, git_tree* b, const std::string& prefix) {
    for (std::size_t i = 0, n = a != nullptr ? git_tree_entrycount(a) : 0; i < n; ++i) {
      const git_tree_entry* ea = git_tree_entry_byindex(a, i);
      const git_tree_entry* eb = b != nullptr ? git_tree_entry_byname(b, git_tree_entry_name(ea)) : nullptr;
      if (eb != nullptr && git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)) &&
          git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb)) {
        continue;
      }
      std::string path = prefix + git_tree_entry_name(ea);
      bool a_tree = git_tree_entry_type(ea) == GIT_OBJECT_TREE;
      bool b_tree = eb != nullptr && git_tree_entry_type(eb) == GIT_OBJECT_TREE;
      if (a_tree || b_tree) {
        GitTree sub_a, sub_b;
        if (a_tree) TRY_STATUS(lookup(ea, sub_a));
        if (b_tree) TRY_STATUS(lookup(eb, sub_b));
        TRY_STATUS(compare(sub_a.get(), sub_b.get(), path + "/"));
        if (a_tree && b_tree) continue;
      }
      if (!a_tree || (eb != nullptr && !b_tree)) paths.push_back(path);  // a file on one side at least
    }
    // What only b holds.
    for (std::size_t i = 0, n = b != nullptr ? git_tree_entrycount(b) : 0; i < n; ++i) {
      const git_tree_entry* eb = git_tree_entry_byindex(b, i);
      if (a != nullptr && git_tree_entry_byname(a, git_tree_entry_name(eb)) != nullptr) continue;
      std::string path = prefix + git_tree_entry_name(eb);
      if (git_tree_entry_type(eb) != GIT_OBJECT_TREE) {
        paths.push_back(path);
        continue;
      }
      GitTree sub;
      TRY_STATUS(lookup(eb, sub));
      TRY_STATUS(compare(nullptr, sub.get(), path + "/"));
    }
    return ok_status();
  }

  std::vector<std::string> paths;

 private:
  Status lookup(const git_tree_entry* e, GitTree& out) {
    if (git_tree_lookup(out.out(), repo_, git_tree_entry_id(e)) != 0) return git_failure("look up a tree");
    return ok_status();
  }
  git_repository* repo_;
};

}  // namespace

Result<std::vector<std::string>> changed_paths(git_repository* repo, git_tree* from, git_tree* to) {
  ChangedPaths changed(repo);
  TRY_STATUS(changed.compare(from, to, ""));
  return std::move(changed.paths);
}

}  // namespace candor::snapshot
