// Reading what a scan found into the object database and the index: on worker threads, through
// descriptors beneath the workspace (file_reads.h), small contents buffered for the next pack,
// large ones streamed.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "snapshot/file_reads.h"
#include "snapshot/git_names.h"
#include "snapshot/store_impl.h"

namespace candor::snapshot {
namespace {

// A file's bytes as a blob in the object database. No id: they could not all be read, because
// of a read error (`read_error`), the deadline (`out_of_time`) or because the file shrank while
// streamed.
struct BlobWrite {
  std::optional<git_oid> id;
  bool read_error = false;
  bool out_of_time = false;
};

// Where staged contents go: small ones to the repository (whose writes collect in memory until the
// next pack; `in_memory` counts their bytes), large ones streamed to a loose object on disk.
struct BlobSink {
  PackedWrites* packs;
  git_odb* disk;
  std::uint64_t* in_memory;

  git_oid add(std::string content) const {
    git_oid id;
    git_odb_hash(&id, content.data(), content.size(), GIT_OBJECT_BLOB);
    add_hashed(id, std::move(content));
    return id;
  }
  // `id` is the blob id of `content`.
  void add_hashed(const git_oid& id, std::string content) const {
    *in_memory += content.size();
    packs->add_blob(id, std::move(content));
  }
};

// Large files are streamed a megabyte at a time (hashed and compressed as they go: memory does not
// grow with the file, sparse or not), and given up at the deadline.
Result<BlobWrite> write_blob(const BlobSink& sink, int fd, std::int64_t size, const Deadline& deadline) {
  git_oid id;
  if (size <= kBufferedMax) {
    std::string content;
    if (!read_to_end(fd, content)) return BlobWrite{std::nullopt, true};
    return BlobWrite{sink.add(std::move(content))};
  }
  OdbStream stream;
  if (git_odb_open_wstream(stream.out(), sink.disk, static_cast<git_object_size_t>(size), GIT_OBJECT_BLOB) != 0) {
    return git_failure("open blob stream");
  }
  std::vector<char> buf(1 << 20);
  for (std::int64_t left = size; left > 0;) {
    ssize_t n = ::read(fd, buf.data(),
                       static_cast<std::size_t>(std::min<std::int64_t>(left, static_cast<std::int64_t>(buf.size()))));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return BlobWrite{std::nullopt, n < 0};
    if (git_odb_stream_write(stream.get(), buf.data(), static_cast<std::size_t>(n)) != 0)
      return git_failure("write blob");
    left -= n;
    if (left > 0 && deadline.passed()) return BlobWrite{std::nullopt, true, true};
  }
  if (git_odb_stream_finalize_write(&id, stream.get()) != 0) return git_failure("finish blob");
  return BlobWrite{id};
}

// Reads `path` through a descriptor beneath the workspace into the object database and the
// index. kFile or kSymlink when staged, kGone when nothing git can hold is there any more (the
// entry is left for the caller), kUnreadable when it is there and could not be read.
Result<Entry::Kind> stage(const BeneathRoot& root, const BlobSink& sink, StatIndex& index, GitNameCheck& names,
                          const std::string& path, const Deadline& deadline, bool& out_of_time) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    Entry e = root.look(path);
    if (e.kind == Entry::Kind::kGone || e.kind == Entry::Kind::kUnreadable) return e.kind;
    git_oid id;
    if (e.kind == Entry::Kind::kSymlink) {
      id = sink.add(e.target);
    } else {
      TRY(BlobWrite blob, write_blob(sink, e.fd.get(), static_cast<std::int64_t>(e.st.st_size), deadline));
      out_of_time = out_of_time || blob.out_of_time;
      if (blob.read_error) return Entry::Kind::kUnreadable;
      if (!blob.id) continue;  // it shrank while streamed: look again
      id = *blob.id;
    }
    if (!names.holds(path)) return Entry::Kind::kUnreadable;  // see stage_walked
    index.put(stat_entry(e.st, id, path));
    return e.kind;
  }
  return Entry::Kind::kUnreadable;  // it kept changing while read
}

// What the prefilter needs of the rules a handle from open_rules_handle follows: the .gitignore
// copies in `rules_dir` (the shadow; none in config_rules' empty folder), the store's info/exclude
// and core.excludesFile, `patterns`, libgit2's own. A file it cannot read makes every path one to
// ask libgit2 about.
IgnorePrefilter load_prefilter(const std::string& repo_path, const std::string& rules_dir,
                               const std::set<std::string>& patterns) {
  IgnorePrefilter prefilter;
  auto add_file = [&prefilter](const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::error_code ec;
    if (!in && !std::filesystem::exists(file, ec) && !ec) return;  // no such file: no rules
    std::stringstream text;
    if (!in || !(text << in.rdbuf())) {
      prefilter.add("*");
      return;
    }
    prefilter.add(text.str());
  };
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(rules_dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == ".gitignore") add_file(it->path());
  }
  if (ec) prefilter.add("*");
  add_file(repo_path + "/info/exclude");
  add_file(repo_path + "/info/no-excludes");
  for (const auto& p : patterns) prefilter.add(p);
  prefilter.add(".\n..\n.git\n");  // libgit2's default rules
  return prefilter;
}

}  // namespace

// One stage_walked pass: what its reads go into, and how each read is taken.
struct SnapshotStore::Impl::StagingPass {
  SnapshotStore::Impl& store;
  Walked& w;
  const std::vector<FileReadRequest>& requests;
  const std::size_t tracked;  // requests[0, tracked) are paths the index holds
  BlobSink sink;
  GitNameCheck names;
  // Entries go into the index after the reads, in path order, in one merge: reads finish in no
  // order, and the index is kept sorted.
  std::vector<StatEntry> staged;
  std::vector<std::string>& changed;
  std::vector<std::string>& unread;

  // One file read: staged (or streamed, when too large), compared with what the index held, and
  // its path put where it belongs (changed, unread, gone).
  Status take(FileRead& read) {
    if (read.ignored) return ok_status();
    SnapshotStore::Impl& s = store;
    s.out_of_time = s.out_of_time || read.out_of_time;
    const std::string& path = requests[read.request].path;
    const bool is_tracked = read.request < tracked;
    StatEntry old_entry;
    if (is_tracked) {
      old_entry = s.index.at(s.index.find(path));
      old_entry.path = {};  // the entry may move: only its numbers are kept
      // Its stat data at least is new (or it was racy: saved again, it is not any more).
      s.index_dirty = true;
    }
    Entry::Kind kind = read.kind;
    // The walk did not stat the files of folders with nothing tracked: their racy check is here.
    if (!is_tracked && (kind == Entry::Kind::kFile || kind == Entry::Kind::kSymlink) &&
        (read.st.st_mtim.tv_sec >= w.racy_from || read.st.st_ctim.tv_sec >= w.racy_from)) {
      w.racy.insert(path);
    }
    if ((kind == Entry::Kind::kFile || kind == Entry::Kind::kSymlink) && read.st.st_nlink > 1) w.linked.insert(path);
    // Tracked, and its content and mode are what the index holds; the whole mode too, once a scan
    // of this process has seen it (not the first time).
    auto same_as_old = [&](const StatEntry& now) {
      return git_oid_equal(&now.id, &old_entry.id) && now.mode == old_entry.mode &&
             (old_entry.full_mode == 0 ||
              SnapshotStore::Impl::access_of(now) == SnapshotStore::Impl::access_of(old_entry));
    };
    bool same = false;
    if (read.too_large) {
      TRY(kind, stage(*s.root, sink, s.index, names, path, s.deadline, s.out_of_time));
      std::size_t now = s.index.find(path);
      same = is_tracked && now != StatIndex::npos && same_as_old(s.index.at(now));
    } else if (kind == Entry::Kind::kFile || kind == Entry::Kind::kSymlink) {
      staged.push_back(stat_entry(read.st, read.id, path));
      same = is_tracked && same_as_old(staged.back());
      sink.add_hashed(read.id, std::move(read.content));
    }
    if (is_tracked && !same && kind != Entry::Kind::kUnreadable) s.access_seen_changing(path, old_entry);
    if (s.unpacked_bytes > kPackEvery) TRY_STATUS(s.pack());
    if (kind == Entry::Kind::kUnreadable) {
      unread.push_back(path);  // a tracked entry stays as it was
    } else if (!is_tracked) {
      if (kind != Entry::Kind::kGone) changed.push_back(path);
    } else if (kind == Entry::Kind::kGone) {
      s.note_gone(path);
      s.index.remove(path);
      changed.push_back(path);
    } else if (!same) {
      changed.push_back(path);
    }
    return ok_status();
  }

  // The staged entries into the index, in one sorted merge. A name git refuses to hold (`.GIT`,
  // `git~1`, `.git.`: what checking it out could turn into a repository) cannot be in a snapshot:
  // it is named as unread, and the scan goes on.
  void put_staged() {
    std::sort(staged.begin(), staged.end(), [](const StatEntry& a, const StatEntry& b) { return a.path < b.path; });
    std::vector<std::string> refused;
    std::erase_if(staged, [&](const StatEntry& e) {
      if (names.holds(e.path)) return false;
      refused.emplace_back(e.path);
      return true;
    });
    store.index.put_sorted(staged);
    if (refused.empty()) return;
    std::sort(refused.begin(), refused.end());
    std::erase_if(changed, [&](const std::string& p) { return std::binary_search(refused.begin(), refused.end(), p); });
    unread.insert(unread.end(), refused.begin(), refused.end());
  }
};

std::shared_ptr<const IgnorePrefilter> SnapshotStore::Impl::loaded_prefilter(const std::string& repo_path,
                                                                             bool config) {
  std::shared_ptr<const IgnorePrefilter>& filter = config ? config_prefilter : prefilter;
  bool& filter_frozen = config ? config_prefilter_frozen : prefilter_frozen;
  if (!filter || filter_frozen != extras_fixed) {
    filter = std::make_shared<const IgnorePrefilter>(load_prefilter(
        repo_path, config ? no_gitignores.path() : shadow.path(), extras_fixed ? frozen_ignore : open_ignore));
    filter_frozen = extras_fixed;
  }
  return filter;
}

std::vector<FileReadRequest> SnapshotStore::Impl::read_requests(const std::string& repo_path, Walked& w) {
  if (!w.forced.empty()) {
    auto filter = loaded_prefilter(repo_path, true);
    std::erase_if(w.forced,
                  [&](const std::string& path) { return filter->may_be_ignored(path) && excluded_by_config(path); });
  }
  std::vector<FileReadRequest> requests;
  requests.reserve(w.candidates.size() + w.unknown.size() + w.forced.size());
  for (auto& path : w.candidates) requests.push_back({std::move(path), false});
  for (auto& path : w.unknown) requests.push_back({std::move(path), true});
  for (auto& path : w.forced) requests.push_back({std::move(path), false});
  return requests;
}

FileReadOptions SnapshotStore::Impl::read_options(const std::string& repo_path, bool ask_ignore) {
  // Which rules decide for a path the index does not hold: before the snapshot before the run,
  // config snapshot.ignore alone (what exists under a path .gitignore ignores is recorded); after
  // it, the frozen rules, and snapshot.ignore alone for `forced`. A worker decides with a handle
  // of its own on those rules as they are now; the scan's thread with `config_rules` or `frozen`.
  const bool config_only = !started;
  FileReadOptions options;
  options.threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  options.buffered_max = kBufferedMax;
  options.budget = kPackEvery;
  options.deadline = deadline;
  std::shared_ptr<const IgnorePrefilter> filter = ask_ignore ? loaded_prefilter(repo_path, config_only) : nullptr;
  options.make_ignore_check = [this, repo_path, config_only,
                               prefilter = filter](bool calling_thread) -> Result<IgnoreCheck> {
    const std::set<std::string>& patterns = extras_fixed ? frozen_ignore : open_ignore;
    const std::string& rules_dir = config_only ? no_gitignores.path() : shadow.path();
    std::shared_ptr<Repo> own_rules;
    git_repository* rules = config_only ? config_rules.get() : frozen.get();
    if (!calling_thread) {
      own_rules = std::make_shared<Repo>();
      TRY_STATUS(open_rules_handle(repo_path, rules_dir, patterns, *own_rules));
      rules = own_rules->get();
    }
    return IgnoreCheck([own_rules, rules, prefilter](const std::string& path) {
      if (!prefilter->may_be_ignored(path)) return false;
      int ignored = 0;
      return git_ignore_path_is_ignored(&ignored, rules, path.c_str()) == 0 && ignored == 1;
    });
  };
  return options;
}

Status SnapshotStore::Impl::stage_walked(Walked& w, const std::string& repo_path, std::vector<std::string>& changed,
                                         std::vector<std::string>& unread) {
  const bool ask_ignore = !w.unknown.empty();
  const std::size_t tracked = w.candidates.size();
  std::vector<FileReadRequest> requests = read_requests(repo_path, w);
  FileReadOptions options = read_options(repo_path, ask_ignore);
  StagingPass pass{.store = *this,
                   .w = w,
                   .requests = requests,
                   .tracked = tracked,
                   .sink = BlobSink{&packs, own.get(), &unpacked_bytes},
                   .names = {},
                   .staged = {},
                   .changed = changed,
                   .unread = unread};
  pass.staged.reserve(requests.size());
  changed.reserve(changed.size() + requests.size());
  TRY_STATUS(read_files(*root, requests, options, [&pass](FileRead& read) { return pass.take(read); }));
  pass.put_staged();
  return ok_status();
}

}  // namespace candor::snapshot
