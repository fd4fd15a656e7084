#include "snapshot/file_reads.h"

#include <condition_variable>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>

namespace candor::snapshot {
namespace {

// Fewer requests than this are read on the calling thread: starting workers (and their ignore
// handles) would cost more than it saves.
constexpr std::size_t kParallelFrom = 64;

class Reader {
 public:
  Reader(const BeneathRoot& root, const FileReadOptions& options, bool calling_thread)
      : looker_(root), options_(options), calling_thread_(calling_thread) {}

  // Reads one request. `reserve(bytes)` is called before a file's bytes are read.
  Result<FileRead> read(std::size_t i, const FileReadRequest& request,
                        const std::function<void(std::uint64_t)>& reserve) {
    FileRead r;
    r.request = i;
    if (request.check_ignore && options_.make_ignore_check) {
      if (!ignore_) {
        auto made = options_.make_ignore_check(calling_thread_);
        if (!made.ok()) return made.error();
        ignore_ = std::move(made.value());
      }
      if (ignore_(request.path)) {
        r.ignored = true;
        return r;
      }
    }
    if (options_.deadline.passed()) {
      r.kind = Entry::Kind::kUnreadable;
      r.out_of_time = true;
      return r;
    }
    Entry e = looker_.look(request.path);
    r.kind = e.kind;
    r.st = e.st;
    if (e.kind == Entry::Kind::kSymlink) {
      r.content = std::move(e.target);
    } else if (e.kind == Entry::Kind::kFile) {
      if (e.st.st_size > options_.buffered_max) {
        r.too_large = true;
        return r;
      }
      reserve(static_cast<std::uint64_t>(e.st.st_size));
      if (!read_size(e.fd.get(), static_cast<std::size_t>(e.st.st_size), r.content)) {
        r.kind = Entry::Kind::kUnreadable;
        r.content.clear();
        return r;
      }
    } else {
      return r;
    }
    git_odb_hash(&r.id, r.content.data(), r.content.size(), GIT_OBJECT_BLOB);
    return r;
  }

 private:
  BeneathLooker looker_;  // requests come folder by folder: each folder is opened once
  const FileReadOptions& options_;
  bool calling_thread_;
  IgnoreCheck ignore_;
};

// Workers take requests a run at a time (consecutive requests share a folder, which the worker's
// looker then keeps open) and hand what they read over a run at a time: one lock per run, not
// per file. The calling thread takes the runs from the queue.
class Pool {
 public:
  Pool(const BeneathRoot& root, const std::vector<FileReadRequest>& requests, const FileReadOptions& options)
      : root_(root), requests_(requests), options_(options) {}

  Status run(const std::function<Status(FileRead&)>& take) {
    unsigned threads = std::min<std::size_t>(options_.threads, requests_.size());
    running_ = threads;
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) workers.emplace_back([this] { work(); });
    std::vector<Done> batch;
    for (;;) {
      std::unique_lock<std::mutex> lock(mu_);
      done_cv_.wait(lock, [&] { return !done_.empty() || running_ == 0; });
      if (done_.empty()) break;
      batch.clear();
      for (auto& run : done_) std::move(run.begin(), run.end(), std::back_inserter(batch));
      done_.clear();
      bool stopped = stop_;
      lock.unlock();
      std::uint64_t released = 0;
      Status taken = ok_status();
      for (Done& d : batch) {
        released += d.reserved;
        if (taken.ok() && !stopped) taken = take(d.read);
      }
      lock.lock();
      held_ -= released;
      if (!taken.ok()) fail(taken);
      budget_cv_.notify_all();
    }
    for (auto& w : workers) w.join();
    return error_ ? *error_ : ok_status();
  }

 private:
  // Requests a worker takes at once.
  static constexpr std::size_t kRun = 32;

  struct Done {
    FileRead read;
    std::uint64_t reserved = 0;
  };

  // Under mu_: hands `run` to the calling thread.
  void hand_over(std::vector<Done>& run) {
    if (run.empty()) return;
    done_.push_back(std::move(run));
    run.clear();
    done_cv_.notify_one();
  }

  void work() {
    Reader reader(root_, options_, false);
    std::vector<Done> run;
    for (;;) {
      std::size_t first, last;
      {
        std::lock_guard<std::mutex> lock(mu_);
        hand_over(run);
        if (stop_ || next_ >= requests_.size()) break;
        first = next_;
        last = std::min(requests_.size(), first + kRun);
        next_ = last;
      }
      for (std::size_t i = first; i < last; ++i) {
        std::uint64_t reserved = 0;
        auto reserve = [&](std::uint64_t bytes) {
          std::unique_lock<std::mutex> lock(mu_);
          // What this worker holds unhanded counts against the budget too: handed over first,
          // so waiting never waits on itself.
          if (!(held_ == 0 || held_ + bytes <= options_.budget)) hand_over(run);
          budget_cv_.wait(lock, [&] { return stop_ || held_ == 0 || held_ + bytes <= options_.budget; });
          held_ += bytes;
          reserved = bytes;
        };
        auto read = reader.read(i, requests_[i], reserve);
        if (!read.ok()) {
          std::lock_guard<std::mutex> lock(mu_);
          held_ -= reserved;
          fail(read.error());
          break;
        }
        run.push_back({std::move(read.value()), reserved});
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    hand_over(run);
    --running_;
    done_cv_.notify_one();
  }

  // Under mu_.
  void fail(const Status& status) {
    if (!error_) error_ = status;
    stop_ = true;
    budget_cv_.notify_all();
  }

  const BeneathRoot& root_;
  const std::vector<FileReadRequest>& requests_;
  const FileReadOptions& options_;
  std::mutex mu_;
  std::condition_variable done_cv_, budget_cv_;
  std::size_t next_ = 0;
  unsigned running_ = 0;
  std::vector<std::vector<Done>> done_;
  std::uint64_t held_ = 0;
  bool stop_ = false;
  std::optional<Status> error_;
};

}  // namespace

Status read_files(const BeneathRoot& root, const std::vector<FileReadRequest>& requests, const FileReadOptions& options,
                  const std::function<Status(FileRead&)>& take) {
  if (options.threads > 1 && requests.size() >= kParallelFrom) return Pool(root, requests, options).run(take);
  Reader reader(root, options, true);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    TRY(FileRead read, reader.read(i, requests[i], [](std::uint64_t) {}));
    TRY_STATUS(take(read));
  }
  return ok_status();
}

}  // namespace candor::snapshot
