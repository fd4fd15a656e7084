#include "sandbox/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <optional>

#include <fmt/format.h>

#include "core/deadline.h"
#include "sandbox/unique_fd.h"

namespace candor::sandbox {
namespace {

// After the child exits, how long to wait for its output pipe to close (a grandchild that left
// the group may still hold it) before giving up on the rest.
constexpr std::chrono::milliseconds kDrainGrace{500};

// ---- Before the fork: everything allocated. ----

struct Pipes {
  UniqueFd in_read, in_write, out_read, out_write, err_read, err_write;  // err_*: when stderr is separate
};

Status make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return make_error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return ok_status();
}

// stdin is a pipe only when there is something to feed; else /dev/null. Never candor's own
// stdin, which may be the user's terminal.
Result<Pipes> make_pipes(bool separate_stderr, bool feed_stdin) {
  Pipes p;
  if (feed_stdin) {
    TRY_STATUS(make_pipe(p.in_read, p.in_write));
  } else {
    p.in_read.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!p.in_read.valid()) return make_error(ErrorCode::kIo, std::string("/dev/null: ") + std::strerror(errno));
  }
  TRY_STATUS(make_pipe(p.out_read, p.out_write));
  if (separate_stderr) TRY_STATUS(make_pipe(p.err_read, p.err_write));
  return p;
}

// Written by a PID namespace's init for the parent: the command's own wait status (the init's
// tells only how the init ended) and how many processes were left in the namespace, which the
// kernel kills when the init exits.
struct InitReport {
  int done = 0;
  int wstatus = 0;
  int stragglers = 0;
};

// What a PID namespace's init needs mapped before it is created: a page shared with the parent
// for its InitReport, and the stack it starts the command on.
class InitMemory {
 public:
  InitMemory() {
    void* p = ::mmap(nullptr, sizeof(InitReport), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) report_ = new (p) InitReport();
    void* s = ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (s != MAP_FAILED) stack_ = static_cast<char*>(s);
  }
  InitMemory(const InitMemory&) = delete;
  InitMemory& operator=(const InitMemory&) = delete;
  ~InitMemory() {
    if (report_ != nullptr) ::munmap(report_, sizeof(InitReport));
    if (stack_ != nullptr) ::munmap(stack_, kStack);
  }
  bool ok() const { return report_ != nullptr && stack_ != nullptr; }
  InitReport* report() const { return report_; }
  char* stack_top() const { return stack_ + kStack; }

 private:
  static constexpr std::size_t kStack = 256 * 1024;
  InitReport* report_ = nullptr;
  char* stack_ = nullptr;
};

// What the child needs, built before the fork: the child of a multithreaded process must not
// allocate.
struct ChildPlan {
  const ProcessSpec* spec = nullptr;
  const PreparedSandbox* sandbox = nullptr;
  std::vector<char*> argv;
  std::vector<char*> envp;  // empty: inherit candor's
  int in = -1, out = -1, err = -1;
  int parent_pidfd = -1;  // candor, to notice that it died before PR_SET_PDEATHSIG took
  InitReport* report = nullptr;
  char* spawn_stack_top = nullptr;  // where the init starts the command (mapped here: the init runs under RLIMIT_AS)
};

ChildPlan plan_child(const ProcessSpec& spec, const PreparedSandbox* sandbox, const Pipes& pipes, InitReport* report,
                     int parent_pidfd) {
  ChildPlan plan;
  plan.spec = &spec;
  plan.sandbox = sandbox;
  for (const auto& a : spec.argv) plan.argv.push_back(const_cast<char*>(a.c_str()));
  plan.argv.push_back(nullptr);
  const std::vector<std::string>* env = spec.env ? &*spec.env : sandbox ? &sandbox->environment() : nullptr;
  if (env != nullptr) {
    for (const auto& e : *env) plan.envp.push_back(const_cast<char*>(e.c_str()));
    plan.envp.push_back(nullptr);
  }
  plan.in = pipes.in_read.get();
  plan.out = pipes.out_write.get();
  plan.err = pipes.err_write.valid() ? pipes.err_write.get() : pipes.out_write.get();
  plan.parent_pidfd = parent_pidfd;
  plan.report = report;
  return plan;
}

// ---- In the child: system calls only. ----

// fork() without glibc's atfork work (which takes locks another thread of candor may have held):
// a copy of this thread, in new namespaces when `flags` names them.
pid_t raw_fork(int flags) {
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

// The command's side of the init's vfork-like start runs on a stack of its own, in memory it
// shares with the init: no sanitizer bookkeeping there (it would allocate, and warn of the stack).
#define CANDOR_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))

[[noreturn]] CANDOR_NO_SANITIZE void exec_command(const ChildPlan& plan) {
  if (plan.sandbox != nullptr && plan.sandbox->pid_namespace()) {
    const char* what = "";
    if (int err = plan.sandbox->apply_limits_in_child(&what); err != 0) {
      dprintf(STDERR_FILENO, "candor: sandbox: %s: %s\n", what, std::strerror(err));
      ::_exit(126);
    }
  }
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD}) ::sigaction(sig, &sa, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  char* const* argv = plan.argv.data();
  if (::chdir(plan.spec->cwd.c_str()) != 0) {
    dprintf(STDERR_FILENO, "candor: cannot enter %s: %s\n", plan.spec->cwd.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  if (!plan.envp.empty()) {
    ::execvpe(argv[0], argv, plan.envp.data());
  } else {
    ::execvp(argv[0], argv);
  }
  dprintf(STDERR_FILENO, "candor: cannot run %s: %s\n", argv[0], std::strerror(errno));
  ::_exit(127);
}

CANDOR_NO_SANITIZE int start_command(void* plan) { exec_command(*static_cast<const ChildPlan*>(plan)); }

// Processes in this PID namespace other than its init, counted in its own /proc.
int other_processes_in_namespace() {
  int fd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  int n = 0;
  alignas(8) char buf[4096];
  long got;
  while ((got = ::syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
    for (long off = 0; off < got;) {
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name
      unsigned short reclen;
      std::memcpy(&reclen, buf + off + 16, sizeof(reclen));
      const char* name = buf + off + 19;
      bool numeric = name[0] >= '1' && name[0] <= '9';
      for (const char* c = name; numeric && *c != '\0'; ++c) numeric = *c >= '0' && *c <= '9';
      if (numeric && std::strcmp(name, "1") != 0) ++n;
      off += reclen;
    }
  }
  ::close(fd);
  return n;
}

// The init is a copy of candor, and the namespace's /proc/1 would show its command line (which
// may carry a --criterion the worker must never see) and environment (API keys): both are blanked
// in its memory, and it is made undumpable (so no /proc/1/environ or /mem for the step either).
void hide_candor_in_init() {
  char stat[2048];
  int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? ::read(fd, stat, sizeof(stat) - 1) : -1;
  if (fd >= 0) ::close(fd);
  ::prctl(PR_SET_DUMPABLE, 0);
  if (n <= 0) return;
  stat[n] = '\0';
  const char* p = std::strrchr(stat, ')');
  if (p == nullptr) return;
  // Fields after the command name start at 3; 48-51 are arg_start, arg_end, env_start, env_end.
  unsigned long values[4] = {0, 0, 0, 0};
  int field = 2;
  for (; *p != '\0' && field < 51; ++p) {
    if (*p != ' ') continue;
    ++field;
    if (field >= 48) {
      unsigned long v = 0;
      for (const char* d = p + 1; *d >= '0' && *d <= '9'; ++d) v = v * 10 + static_cast<unsigned long>(*d - '0');
      values[field - 48] = v;
    }
  }
  for (int i = 0; i < 4; i += 2) {
    if (values[i] != 0 && values[i + 1] > values[i])
      std::memset(reinterpret_cast<void*>(values[i]), 0, values[i + 1] - values[i]);
  }
}

// Pid 1 of the step's namespace: starts the command, reaps whatever is reparented to it until the
// command ends, reports, and exits, upon which the kernel kills everything left in the namespace.
[[noreturn]] void run_as_init(const ChildPlan& plan) {
  hide_candor_in_init();
  // vfork-like (posix_spawn's way): the command shares the init's memory, on a stack of its own,
  // until it execs, so candor's page tables are not copied a second time.
  pid_t command =
      ::clone(start_command, plan.spawn_stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, const_cast<ChildPlan*>(&plan));
  if (command < 0) {
    dprintf(STDERR_FILENO, "candor: sandbox: starting the command: %s\n", std::strerror(errno));
    ::_exit(126);
  }
  int status = 0;
  for (;;) {
    pid_t r = ::waitpid(-1, &status, 0);
    if (r == command) break;
    if (r < 0 && errno != EINTR) ::_exit(126);
  }
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  if (plan.report != nullptr) {
    plan.report->wstatus = status;
    plan.report->stragglers = other_processes_in_namespace();
    plan.report->done = 1;
  }
  ::_exit(0);
}

[[noreturn]] void child_main(const ChildPlan& plan) {
  // A session of its own: no controlling terminal, so /dev/tty cannot be opened and TIOCSTI on
  // the user's terminal needs CAP_SYS_ADMIN (which no step keeps; seccomp refuses it as well).
  // Without this a step could push a command into the shell that started candor, to run there,
  // unsandboxed, after candor exits. It also makes the child its own process group's leader.
  ::setsid();
  // If candor itself is killed, the child dies with it (with a PID namespace, so does every
  // process in it) rather than running on unobserved.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (plan.parent_pidfd >= 0) {
    struct pollfd gone {
      plan.parent_pidfd, POLLIN, 0
    };
    if (::poll(&gone, 1, 0) > 0) ::_exit(125);  // candor died before the line above
  }
  ::dup2(plan.in, STDIN_FILENO);
  ::dup2(plan.out, STDOUT_FILENO);
  ::dup2(plan.err, STDERR_FILENO);
  if (plan.sandbox != nullptr) {
    const char* what = "";
    if (int err = plan.sandbox->apply_in_child(&what); err != 0) {
      // Fail closed: a step never runs with less protection than the run recorded.
      dprintf(STDERR_FILENO, "candor: sandbox: %s: %s\n", what, std::strerror(err));
      ::_exit(126);
    }
  }
  ::syscall(SYS_close_range, 3U, ~0U, 0U);
  if (plan.sandbox != nullptr && plan.sandbox->pid_namespace()) run_as_init(plan);
  exec_command(plan);
}

// ---- In the parent. ----

struct Child {
  pid_t pid = -1;
  UniqueFd pidfd;
};

Result<Child> start_child(const ChildPlan& plan) {
  int flags = plan.sandbox != nullptr ? plan.sandbox->clone_flags() : 0;
  Child child;
  child.pid = flags != 0 ? raw_fork(flags) : ::fork();
  if (child.pid < 0)
    return make_error(ErrorCode::kIo, fmt::format("{}: {}", flags != 0 ? "clone" : "fork", std::strerror(errno)));
  if (child.pid == 0) child_main(plan);
  // No setpgid here: the child's setsid() fails for a process that already leads a group. Until
  // it has run, a timeout reaches the child by its pid (Watch::enforce_limits).
  child.pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, child.pid, 0)));
  return child;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Feeds stdin, drains stdout/stderr into the result, and enforces the deadline and the cancel
// flag, until the child has exited and its output is closed (or kDrainGrace after its exit).
class Watch {
 public:
  Watch(const ProcessSpec& spec, Child child, Pipes& pipes, const PreparedSandbox* sandbox, const InitReport* report,
        const Deadline& deadline)
      : spec_(spec), child_(std::move(child)), pipes_(pipes), sandbox_(sandbox), report_(report), deadline_(deadline) {
    result_.output = CappedOutput(spec.output_cap);
    result_.errors = CappedOutput(spec.output_cap);
    if (spec_.stdin_data.empty()) pipes_.in_write.reset();
    for (const UniqueFd* fd : {&pipes_.out_read, &pipes_.err_read, &pipes_.in_write})
      if (fd->valid()) set_nonblocking(fd->get());
  }

  void pump() {
    while (pipes_.out_read.valid() || pipes_.err_read.valid()) {
      enforce_limits();
      if (drain_deadline_ && drain_deadline_->passed()) break;
      if (!poll_once()) break;
    }
    // The pipes closed first: the child may still be running until its deadline.
    while (!exited_) {
      reap(false);
      if (exited_) break;
      enforce_limits();
      if (!exited_) ::usleep(5000);
    }
  }

  // Once the child is reaped: whatever is left of its tree is killed, and its status decoded.
  ProcessResult finish() {
    kill_tree();
    if (sandbox_ != nullptr) result_.protections = sandbox_->active();
    int status = wstatus_;
    if (report_ != nullptr && report_->done) {
      status = report_->wstatus;  // the command's, not its init's
      result_.stragglers_killed += report_->stragglers;
    }
    result_.elapsed_s = deadline_.elapsed_s();
    if (WIFEXITED(status)) {
      result_.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result_.signal = WTERMSIG(status);
      result_.exit_code = 128 + result_.signal;
    }
    return std::move(result_);
  }

 private:
  // The process group, and through the cgroup whatever left it. With a PID namespace the kernel
  // has killed the rest already: the init's exit waits for every process in it.
  void kill_tree() {
    ::kill(-child_.pid, SIGKILL);
    if (sandbox_ != nullptr) result_.stragglers_killed += sandbox_->kill_all();
  }

  void reap(bool block) {
    if (exited_) return;
    if (::waitpid(child_.pid, &wstatus_, block ? 0 : WNOHANG) != child_.pid) return;
    exited_ = true;
    kill_tree();
    drain_deadline_ = Deadline(system_clock(), kDrainGrace);
  }

  void enforce_limits() {
    if (exited_) return;
    bool cancel = spec_.cancel != nullptr && spec_.cancel->load();
    if (!cancel && !deadline_.passed()) return;
    (cancel ? result_.cancelled : result_.timed_out) = true;
    ::kill(-child_.pid, SIGKILL);
    // Not yet reaped, so the pid is still the child's: reaches it even before its setsid()
    // made the group.
    ::kill(child_.pid, SIGKILL);
    reap(true);
  }

  // One poll over the pipes and the pidfd. False on a poll error.
  bool poll_once() {
    const Deadline& until = drain_deadline_ ? *drain_deadline_ : deadline_;
    int wait_ms = static_cast<int>(until.left_or(std::chrono::hours(24)).count()) + 1;
    if ((!child_.pidfd.valid() || spec_.cancel != nullptr) && !exited_) wait_ms = std::min(wait_ms, 20);
    struct pollfd fds[4];
    int n = 0, out_idx = -1, err_idx = -1, in_idx = -1, pid_idx = -1;
    if (pipes_.out_read.valid()) {
      out_idx = n;
      fds[n++] = {pipes_.out_read.get(), POLLIN, 0};
    }
    if (pipes_.err_read.valid()) {
      err_idx = n;
      fds[n++] = {pipes_.err_read.get(), POLLIN, 0};
    }
    if (pipes_.in_write.valid()) {
      in_idx = n;
      fds[n++] = {pipes_.in_write.get(), POLLOUT, 0};
    }
    if (child_.pidfd.valid() && !exited_) {
      pid_idx = n;
      fds[n++] = {child_.pidfd.get(), POLLIN, 0};
    }
    int pr = ::poll(fds, static_cast<nfds_t>(n), std::max(wait_ms, 0));
    if (pr < 0 && errno != EINTR) return false;
    if (out_idx >= 0) drain(fds[out_idx].revents, pipes_.out_read, result_.output);
    if (err_idx >= 0) drain(fds[err_idx].revents, pipes_.err_read, result_.errors);
    if (in_idx >= 0 && (fds[in_idx].revents & (POLLOUT | POLLERR | POLLHUP))) feed_stdin();
    if (pid_idx >= 0 && (fds[pid_idx].revents & POLLIN)) reap(false);
    if (!child_.pidfd.valid()) reap(false);
    return true;
  }

  void drain(short revents, UniqueFd& fd, CappedOutput& into) {
    if (!(revents & (POLLIN | POLLHUP | POLLERR))) return;
    ssize_t got = ::read(fd.get(), buf_, sizeof(buf_));
    if (got > 0) {
      into.append(buf_, static_cast<std::size_t>(got));
    } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
      fd.reset();  // EOF: every writer is gone
    }
  }

  void feed_stdin() {
    const std::string& data = spec_.stdin_data;
    ssize_t put = ::write(pipes_.in_write.get(), data.data() + stdin_off_, data.size() - stdin_off_);
    if (put > 0) stdin_off_ += static_cast<std::size_t>(put);
    if (put < 0 && errno != EAGAIN && errno != EINTR) pipes_.in_write.reset();  // the child closed stdin
    if (stdin_off_ >= data.size()) pipes_.in_write.reset();
  }

  const ProcessSpec& spec_;
  Child child_;
  Pipes& pipes_;
  const PreparedSandbox* sandbox_;
  const InitReport* report_;
  Deadline deadline_;  // the spec's timeout, from the start
  std::optional<Deadline> drain_deadline_;
  bool exited_ = false;
  int wstatus_ = 0;
  std::size_t stdin_off_ = 0;
  ProcessResult result_;
  char buf_[65536];
};

std::atomic<std::uint64_t> g_processes_started{0};

}  // namespace

std::uint64_t processes_started() { return g_processes_started.load(); }

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  g_processes_started.fetch_add(1);
  // Feeding stdin to a child that closed it must be an EPIPE here, not a SIGPIPE that ends candor.
  static const bool sigpipe_ignored = [] { return ::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
  (void)sigpipe_ignored;
  if (spec.argv.empty()) return make_error(ErrorCode::kInternal, "run_process: empty argv");
  TRY(Pipes pipes, make_pipes(!spec.merge_stderr, !spec.stdin_data.empty()));
  std::optional<PreparedSandbox> sandbox;
  if (spec.sandbox != nullptr) {
    auto timeout_s = static_cast<std::uint64_t>((spec.timeout.count() + 999) / 1000);
    TRY(auto prepared, PreparedSandbox::prepare(*spec.sandbox, timeout_s));
    sandbox.emplace(std::move(prepared));
  }
  const PreparedSandbox* box = sandbox ? &*sandbox : nullptr;
  std::optional<InitMemory> init;
  UniqueFd self;
  if (box != nullptr && box->pid_namespace()) {
    init.emplace();
    if (!init->ok()) return make_error(ErrorCode::kIo, std::string("mmap: ") + std::strerror(errno));
    self.reset(static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0)));
  }
  InitReport* report = init ? init->report() : nullptr;
  ChildPlan plan = plan_child(spec, box, pipes, report, self.get());
  if (init) plan.spawn_stack_top = init->stack_top();

  // The process's own timeout, on the real clock: the caller cut it to its share of whatever
  // budget it belongs to (ProcessSpec::timeout).
  const Deadline deadline(system_clock(), spec.timeout);
  TRY(Child child, start_child(plan));
  pipes.in_read.reset();
  pipes.out_write.reset();
  pipes.err_write.reset();
  Watch watch(spec, std::move(child), pipes, box, report, deadline);
  watch.pump();
  ProcessResult result = watch.finish();
  // Nothing of the process is left: what it did to the protected folders can be looked at.
  if (box != nullptr) result.protected_created = box->remove_created_protected();
  return result;
}

}  // namespace candor::sandbox
