#include "sandbox/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sandbox/unique_fd.h"

namespace candor::sandbox {
namespace {

using Clock = std::chrono::steady_clock;

// After the child exits, how long to wait for its output pipe to close (a grandchild that left
// the group may still hold it) before giving up on the rest.
constexpr std::chrono::milliseconds kDrainGrace{500};

[[noreturn]] void exec_child(const ProcessSpec& spec, const PreparedSandbox* sandbox, char* const* argv,
                             char* const* envp, int in_read, int out_write, int err_write) {
  ::setpgid(0, 0);
  // If candor itself is killed, the step dies with it rather than running on unobserved.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::dup2(in_read, STDIN_FILENO);
  ::dup2(out_write, STDOUT_FILENO);
  ::dup2(err_write >= 0 ? err_write : out_write, STDERR_FILENO);
  if (sandbox != nullptr) {
    const char* what = "";
    if (int err = sandbox->apply_in_child(&what); err != 0) {
      // Fail closed: a step never runs with less protection than the run recorded.
      dprintf(STDERR_FILENO, "candor: sandbox: %s: %s\n", what, std::strerror(err));
      ::_exit(126);
    }
  }
  ::syscall(SYS_close_range, 3U, ~0U, 0U);
  struct sigaction sa{};
  sa.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD}) ::sigaction(sig, &sa, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::chdir(spec.cwd.c_str()) != 0) {
    dprintf(STDERR_FILENO, "candor: cannot enter %s: %s\n", spec.cwd.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  if (envp != nullptr) {
    ::execvpe(argv[0], argv, envp);
  } else {
    ::execvp(argv[0], argv);
  }
  dprintf(STDERR_FILENO, "candor: cannot run %s: %s\n", argv[0], std::strerror(errno));
  ::_exit(127);
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  // Feeding stdin to a child that closed it must be an EPIPE here, not a SIGPIPE that ends candor.
  static const bool sigpipe_ignored = [] { return ::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
  (void)sigpipe_ignored;
  if (spec.argv.empty()) return make_error(ErrorCode::kInternal, "run_process: empty argv");
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return make_error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    return make_error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  UniqueFd in_read(in_pipe[0]), in_write(in_pipe[1]), out_read(out_pipe[0]), out_write(out_pipe[1]);
  UniqueFd err_read, err_write;
  if (!spec.merge_stderr) {
    int err_pipe[2];
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) return make_error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
    err_read.reset(err_pipe[0]);
    err_write.reset(err_pipe[1]);
  }

  std::optional<PreparedSandbox> sandbox;
  if (spec.sandbox != nullptr) {
    auto timeout_s = static_cast<std::uint64_t>((spec.timeout.count() + 999) / 1000);
    TRY(auto prepared, PreparedSandbox::prepare(*spec.sandbox, timeout_s));
    sandbox.emplace(std::move(prepared));
  }
  const std::vector<std::string>* env = spec.env ? &*spec.env : sandbox ? &sandbox->environment() : nullptr;
  // Built before fork: the child of a multithreaded process must not allocate.
  std::vector<char*> argv_ptrs, envp_ptrs;
  for (const auto& a : spec.argv) argv_ptrs.push_back(const_cast<char*>(a.c_str()));
  argv_ptrs.push_back(nullptr);
  if (env != nullptr) {
    for (const auto& e : *env) envp_ptrs.push_back(const_cast<char*>(e.c_str()));
    envp_ptrs.push_back(nullptr);
  }

  auto started = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return make_error(ErrorCode::kIo, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) exec_child(spec, sandbox ? &*sandbox : nullptr, argv_ptrs.data(), env ? envp_ptrs.data() : nullptr, in_read.get(), out_write.get(), err_write.get());
  ::setpgid(pid, pid);  // also in the child: whichever runs first wins the race
  in_read.reset();
  out_write.reset();
  err_write.reset();
  set_nonblocking(out_read.get());
  if (err_read.valid()) set_nonblocking(err_read.get());
  set_nonblocking(in_write.get());
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));

  ProcessResult result;
  result.output = CappedOutput(spec.output_cap);
  result.errors = CappedOutput(spec.output_cap);
  std::size_t stdin_off = 0;
  if (spec.stdin_data.empty()) in_write.reset();
  auto deadline = started + spec.timeout;
  bool exited = false;
  int wstatus = 0;
  std::optional<Clock::time_point> drain_deadline;

  auto reap = [&](bool block) {
    if (exited) return;
    pid_t r = ::waitpid(pid, &wstatus, block ? 0 : WNOHANG);
    if (r == pid) {
      exited = true;
      // Nothing of the step may outlive it: background children in its group go too, and with a
      // cgroup, those that left the group.
      ::kill(-pid, SIGKILL);
      if (sandbox) result.stragglers_killed += sandbox->kill_all();
      drain_deadline = Clock::now() + kDrainGrace;
    }
  };

  char buf[65536];
  while (out_read.valid() || err_read.valid()) {
    auto now = Clock::now();
    if (!exited && spec.cancel != nullptr && spec.cancel->load()) {
      result.cancelled = true;
      ::kill(-pid, SIGKILL);
      reap(true);
    }
    if (!exited && now >= deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      reap(true);
    }
    if (drain_deadline && now >= *drain_deadline) break;
    auto until = drain_deadline ? *drain_deadline : deadline;
    int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    if ((!pidfd.valid() || spec.cancel != nullptr) && !exited) wait_ms = std::min(wait_ms, 20);

    struct pollfd fds[4];
    int n = 0;
    int out_idx = -1, err_idx = -1, in_idx = -1, pid_idx = -1;
    if (out_read.valid()) { out_idx = n; fds[n++] = {out_read.get(), POLLIN, 0}; }
    if (err_read.valid()) { err_idx = n; fds[n++] = {err_read.get(), POLLIN, 0}; }
    if (in_write.valid()) { in_idx = n; fds[n++] = {in_write.get(), POLLOUT, 0}; }
    if (pidfd.valid() && !exited) { pid_idx = n; fds[n++] = {pidfd.get(), POLLIN, 0}; }
    int pr = ::poll(fds, static_cast<nfds_t>(n), std::max(wait_ms, 0));
    if (pr < 0 && errno != EINTR) break;
    auto drain = [&](int idx, UniqueFd& fd, CappedOutput& into) {
      if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      ssize_t got = ::read(fd.get(), buf, sizeof(buf));
      if (got > 0) {
        into.append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        fd.reset();  // EOF: every writer is gone
      }
    };
    drain(out_idx, out_read, result.output);
    drain(err_idx, err_read, result.errors);
    if (in_idx >= 0 && (fds[in_idx].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t put = ::write(in_write.get(), spec.stdin_data.data() + stdin_off, spec.stdin_data.size() - stdin_off);
      if (put > 0) stdin_off += static_cast<std::size_t>(put);
      if (put < 0 && errno != EAGAIN && errno != EINTR) in_write.reset();  // the child closed stdin
      if (stdin_off >= spec.stdin_data.size()) in_write.reset();
    }
    if (pid_idx >= 0 && (fds[pid_idx].revents & POLLIN)) reap(false);
    if (!pidfd.valid()) reap(false);
  }
  if (!exited) {
    // The pipe closed first; the child may still be running until its deadline.
    while (!exited) {
      reap(false);
      if (exited) break;
      if (spec.cancel != nullptr && spec.cancel->load()) {
        result.cancelled = true;
        ::kill(-pid, SIGKILL);
        reap(true);
        break;
      }
      if (Clock::now() >= deadline) {
        result.timed_out = true;
        ::kill(-pid, SIGKILL);
        reap(true);
        break;
      }
      ::usleep(5000);
    }
  }
  ::kill(-pid, SIGKILL);
  if (sandbox) {
    result.stragglers_killed += sandbox->kill_all();
    result.protections = sandbox->active();
  }
  result.elapsed_s = std::chrono::duration<double>(Clock::now() - started).count();
  if (WIFEXITED(wstatus)) {
    result.exit_code = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    result.signal = WTERMSIG(wstatus);
    result.exit_code = 128 + result.signal;
  }
  return result;
}

}  // namespace candor::sandbox
