#include "snapshot/workdir_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace candor::snapshot {
namespace {

using sandbox::UniqueFd;

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};
using DirPtr = std::unique_ptr<DIR, DirCloser>;

bool dot_or_dotdot(const char* name) {
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

bool skip_name(const char* name, bool at_root, bool candor_files) {
  if (name[0] != '.') return false;
  if (dot_or_dotdot(name)) return true;
  return candor_files && at_root && std::strcmp(name, ".candor") == 0;
}

// Fills `f` (all but its path) from `st`; false for what git does not track (FIFOs, devices...).
bool fill_file_stat(const struct stat& st, FileStat& f) {
  f.stated = true;
  f.mode = git_file_mode(st);
  if (f.mode == 0) return false;
  f.full_mode = st.st_mode;
  f.size = static_cast<std::int64_t>(st.st_size);
  f.mtime_s = st.st_mtim.tv_sec;
  f.mtime_ns = st.st_mtim.tv_nsec;
  f.ctime_s = st.st_ctim.tv_sec;
  f.ctime_ns = st.st_ctim.tv_nsec;
  f.ino = static_cast<std::uint64_t>(st.st_ino);
  f.uid = st.st_uid;
  f.gid = st.st_gid;
  f.nlink = static_cast<std::uint32_t>(st.st_nlink);
  return true;
}

// How unread() names a folder: "dir/", and the root "./".
std::string folder_name(const std::string& rel) { return rel.empty() ? "./" : rel; }

struct Job {
  UniqueFd fd;      // the folder, open for reading
  std::string rel;  // "" or "dir/"
};

class Walker {
 public:
  Walker(const std::function<bool(std::string_view)>& tracked_dir, const FileVisitor& visit, unsigned threads,
         WalkOptions options)
      : tracked_dir_(tracked_dir),
        visit_(visit),
        threads_(threads == 0 ? 1 : threads),
        options_(options),
        results_(threads_) {}

  WalkResult run(UniqueFd start_fd, const std::string& start) {
    push({std::move(start_fd), start});
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < threads_; ++i) pool.emplace_back([this, i] { work(i); });
    work(0);
    for (auto& t : pool) t.join();
    WalkResult out;
    for (auto& r : results_) {
      out.untracked_dirs.insert(out.untracked_dirs.end(), r.untracked_dirs.begin(), r.untracked_dirs.end());
      out.folders.insert(out.folders.end(), std::make_move_iterator(r.folders.begin()),
                         std::make_move_iterator(r.folders.end()));
      out.git_entries.insert(out.git_entries.end(), r.git_entries.begin(), r.git_entries.end());
      out.specials.insert(out.specials.end(), std::make_move_iterator(r.specials.begin()),
                          std::make_move_iterator(r.specials.end()));
      out.unread.insert(out.unread.end(), r.unread.begin(), r.unread.end());
    }
    return out;
  }

 private:
  void push(Job job) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(job));
    cv_.notify_one();
  }

  void work(unsigned index) {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty() || busy_ == 0; });
        if (queue_.empty()) {
          cv_.notify_all();
          return;
        }
        job = std::move(queue_.front());
        queue_.pop_front();
        ++busy_;
      }
      list(job, index);
      {
        std::lock_guard<std::mutex> lock(mu_);
        --busy_;
        if (busy_ == 0 && queue_.empty()) cv_.notify_all();
      }
    }
  }

  void list(Job& job, unsigned thread) {
    WalkResult& out = results_[thread];
    FileStat file;  // reused: one allocation for the path per thread, not one per file
    DirPtr d(::fdopendir(job.fd.get()));
    if (d == nullptr) {
      out.unread.push_back(folder_name(job.rel));
      return;
    }
    job.fd.release();  // the DIR owns it now
    int dfd = ::dirfd(d.get());
    if (struct stat self{}; ::fstat(dfd, &self) == 0)
      out.folders.push_back({job.rel, self.st_mode, self.st_uid, self.st_gid});
    if (options_.on_folder) options_.on_folder(dfd, job.rel);
    bool at_root = job.rel.empty();
    bool stat_files = !options_.stat_files_in || options_.stat_files_in(job.rel);
    for (;;) {
      errno = 0;
      struct dirent* e = ::readdir(d.get());
      if (e == nullptr) {
        // A listing cut short would make the rest of the folder look deleted.
        if (errno != 0) out.unread.push_back(folder_name(job.rel));
        return;
      }
      if (skip_name(e->d_name, at_root, options_.skip_candor_files)) continue;
      if (std::strcmp(e->d_name, ".git") == 0) {
        out.git_entries.push_back(job.rel + ".git");
        continue;
      }
      // A folder is opened with O_DIRECTORY | O_NOFOLLOW (which proves it one), and a file of a
      // folder that needs no stats is read later by whoever wants it: the listing's type does.
      if (e->d_type == DT_DIR && enter(dfd, job.rel, e->d_name, out)) continue;
      if (!stat_files && (e->d_type == DT_REG || e->d_type == DT_LNK)) {
        file.stated = false;
        file.mode = e->d_type == DT_LNK ? 0120000 : 0100644;
        file.full_mode = 0;
        file.path.assign(job.rel).append(e->d_name);
        visit_(thread, file);
        continue;
      }
      struct stat st {};
      if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (!is_gone(errno)) out.unread.push_back(job.rel + e->d_name);
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        enter(dfd, job.rel, e->d_name, out);  // no folder any more either: gone, as it was not met
      } else if (fill_file_stat(st, file)) {
        file.path.assign(job.rel).append(e->d_name);
        visit_(thread, file);
      } else {
        out.specials.push_back({job.rel + e->d_name, st.st_mode, st.st_uid, st.st_gid});
      }
    }
  }

  // Queues the folder `name` of `rel` for listing, or notes it untracked or unread. False when
  // it is no folder any more (a symlink or a file now): the caller looks at what it is.
  bool enter(int dfd, const std::string& rel, const char* name, WalkResult& out) {
    std::string dir = rel + name + "/";
    if (!tracked_dir_(dir)) {
      out.untracked_dirs.push_back(dir);
      return true;
    }
    UniqueFd child(::openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (child.valid()) {
      push({std::move(child), dir});
    } else if (errno == ELOOP || errno == ENOTDIR) {
      return false;
    } else if (errno != ENOENT) {
      out.unread.push_back(dir);
    }
    return true;
  }

  const std::function<bool(std::string_view)>& tracked_dir_;
  const FileVisitor& visit_;
  unsigned threads_;
  WalkOptions options_;
  std::vector<WalkResult> results_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  unsigned busy_ = 0;
};

}  // namespace

std::uint32_t git_file_mode(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return 0120000;
  if (S_ISREG(st.st_mode)) return (st.st_mode & S_IXUSR) ? 0100755 : 0100644;
  return 0;
}

WalkResult walk_workdir(const BeneathRoot& root, const std::string& start,
                        const std::function<bool(std::string_view)>& tracked_dir, const FileVisitor& visit,
                        unsigned threads, const WalkOptions& options) {
  std::string rel = start.empty() ? "" : start.substr(0, start.size() - 1);
  Opened dir = root.open(rel, O_RDONLY | O_DIRECTORY);
  if (!dir.fd.valid()) {
    WalkResult out;
    if (!is_gone(dir.error)) out.unread.push_back(folder_name(start));
    return out;
  }
  Walker walker(tracked_dir, visit, threads, options);
  return walker.run(std::move(dir.fd), start);
}

PathsLooked look_at_paths(const BeneathRoot& root, const std::vector<std::string>& paths, const FileVisitor& visit,
                          const WalkOptions& options) {
  PathsLooked out;
  FileStat file;
  std::string open_rel = std::string(1, '\0');  // the folder `dir` holds open: none yet
  UniqueFd dir;
  int dir_error = 0;
  for (const auto& path : paths) {
    std::size_t slash = path.rfind('/');
    std::string rel = slash == std::string::npos ? "" : path.substr(0, slash);
    const char* name = path.c_str() + (slash == std::string::npos ? 0 : slash + 1);
    if (skip_name(name, rel.empty(), options.skip_candor_files)) continue;
    if (std::strcmp(name, ".git") == 0) {
      out.result.git_entries.push_back(path);
      continue;
    }
    if (rel != open_rel) {
      open_rel = rel;
      Opened opened = root.open(rel, O_RDONLY | O_DIRECTORY);
      dir = std::move(opened.fd);
      dir_error = opened.error;
    }
    if (!dir.valid()) {
      // A folder above it gone, or now a symlink or a file: no walk would meet the path there.
      if (is_gone(dir_error))
        out.missing.push_back(path);
      else
        out.result.unread.push_back(folder_name(rel.empty() ? rel : rel + "/"));
      continue;
    }
    struct stat st {};
    if (::fstatat(dir.get(), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      (is_gone(errno) ? out.missing : out.result.unread).push_back(path);
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      out.folders_now.push_back(path + "/");
    } else if (fill_file_stat(st, file)) {
      file.path = path;
      visit(0, file);
    } else {
      out.result.specials.push_back({path, st.st_mode, st.st_uid, st.st_gid});
    }
  }
  return out;
}

}  // namespace candor::snapshot
