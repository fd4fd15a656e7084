#include "verify/workdir_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

namespace candor::verify {
namespace {

bool skip_name(const char* name, bool at_root) {
  if (name[0] != '.') return false;
  if (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')) return true;
  if (std::strcmp(name, ".git") == 0) return true;
  if (at_root && std::strcmp(name, ".candor") == 0) return true;
  return std::strncmp(name, ".candor-tmp-", 12) == 0;
}

// Fills `f` (all but its path) from `st`; false for what git does not track (FIFOs, devices...).
bool fill_file_stat(const struct stat& st, FileStat& f) {
  if (S_ISLNK(st.st_mode)) {
    f.mode = 0120000;
  } else if (S_ISREG(st.st_mode)) {
    f.mode = (st.st_mode & S_IXUSR) ? 0100755 : 0100644;
  } else {
    return false;
  }
  f.size = static_cast<std::int64_t>(st.st_size);
  f.mtime_s = st.st_mtim.tv_sec;
  f.mtime_ns = st.st_mtim.tv_nsec;
  f.ctime_s = st.st_ctim.tv_sec;
  f.ctime_ns = st.st_ctim.tv_nsec;
  f.ino = static_cast<std::uint64_t>(st.st_ino);
  f.uid = st.st_uid;
  f.gid = st.st_gid;
  return true;
}

struct Job {
  int fd;  // owned
  std::string rel;  // "" or "dir/"
};

class Walker {
 public:
  Walker(const std::function<bool(std::string_view)>& tracked_dir, const FileVisitor& visit, unsigned threads)
      : tracked_dir_(tracked_dir), visit_(visit), threads_(threads == 0 ? 1 : threads), results_(threads_) {}

  Result<WalkResult> run(int root_fd, const std::string& start) {
    push({root_fd, start});
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < threads_; ++i) pool.emplace_back([this, i] { work(i); });
    work(0);
    for (auto& t : pool) t.join();
    if (!error_.empty()) return make_error(ErrorCode::kIo, error_);
    WalkResult out;
    for (auto& r : results_) out.untracked_dirs.insert(out.untracked_dirs.end(), r.untracked_dirs.begin(), r.untracked_dirs.end());
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

  void list(const Job& job, unsigned thread) {
    WalkResult& out = results_[thread];
    FileStat file;  // reused: one allocation for the path per thread, not one per file
    DIR* d = ::fdopendir(job.fd);
    if (d == nullptr) {
      ::close(job.fd);
      fail(fmt::format("cannot list {}: {}", job.rel.empty() ? "." : job.rel, std::strerror(errno)));
      return;
    }
    int dfd = ::dirfd(d);
    bool at_root = job.rel.empty();
    while (struct dirent* e = ::readdir(d)) {
      if (skip_name(e->d_name, at_root)) continue;
      struct stat st{};
      if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished meanwhile
      if (S_ISDIR(st.st_mode)) {
        std::string dir = job.rel + e->d_name + "/";
        struct stat git{};
        if (::fstatat(dfd, (std::string(e->d_name) + "/.git").c_str(), &git, AT_SYMLINK_NOFOLLOW) == 0) continue;
        if (!tracked_dir_(dir)) {
          out.untracked_dirs.push_back(dir);
          continue;
        }
        int child = ::openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child >= 0) push({child, dir});
      } else if (fill_file_stat(st, file)) {
        file.path.assign(job.rel).append(e->d_name);
        visit_(thread, file);
      }
    }
    ::closedir(d);
  }

  void fail(std::string message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.empty()) error_ = std::move(message);
  }

  const std::function<bool(std::string_view)>& tracked_dir_;
  const FileVisitor& visit_;
  unsigned threads_;
  std::vector<WalkResult> results_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  unsigned busy_ = 0;
  std::string error_;
};

}  // namespace

Result<WalkResult> walk_workdir(const std::string& root, const std::string& start,
                                const std::function<bool(std::string_view)>& tracked_dir, const FileVisitor& visit,
                                unsigned threads) {
  std::string dir = start.empty() ? root : root + "/" + start;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::kIo, fmt::format("cannot open {}: {}", dir, std::strerror(errno)));
  Walker walker(tracked_dir, visit, threads);
  return walker.run(fd, start);
}


}  // namespace candor::verify
