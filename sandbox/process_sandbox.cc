#include "sandbox/process_sandbox.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "sandbox/landlock.h"
#include "sandbox/pids_cgroup.h"
#include "sandbox/seccomp_filter.h"

extern char** environ;  // unistd.h declares it only with _GNU_SOURCE

namespace candor::sandbox {
namespace {

namespace fs = std::filesystem;

// What a process needs to read and execute to run programs. The user's home is not among them:
// a step has no business reading ~/.ssh. Nor is /dev: the few devices a program needs are granted
// one by one (build_landlock_ruleset); the rest would hand a step the user's terminals (/dev/tty,
// /dev/pts/*: keystrokes to read, input to inject) and, to root, the raw disks beneath every
// Landlock rule (/dev/sda: any file of the machine through debugfs).
const std::vector<std::string> kSystemReadPaths = {"/usr",    "/bin", "/sbin", "/lib",  "/lib32", "/lib64",
                                                   "/libx32", "/etc", "/opt",  "/proc", "/sys",   "/run",
                                                   "/var",    "/nix", "/snap", "/gnu"};

// Credentials beneath the read paths, never readable by a step whatever those are: the system's
// (a root step keeps CAP_DAC_OVERRIDE, and /etc/shadow is root's own anyway; container and
// orchestrator secrets are mounted under /run), and, relative to the home folder, those kept inside
// the installations a PATH entry there grants whole (~/.cargo for ~/.cargo/bin).
const std::vector<std::string> kSystemSecrets = {"/etc/shadow",
                                                 "/etc/shadow-",
                                                 "/etc/gshadow",
                                                 "/etc/gshadow-",
                                                 "/etc/sudoers",
                                                 "/etc/sudoers.d",
                                                 "/etc/ssh/ssh_host_rsa_key",
                                                 "/etc/ssh/ssh_host_dsa_key",
                                                 "/etc/ssh/ssh_host_ecdsa_key",
                                                 "/etc/ssh/ssh_host_ed25519_key",
                                                 "/etc/ssl/private",
                                                 "/etc/krb5.keytab",
                                                 "/etc/NetworkManager/system-connections",
                                                 "/etc/wireguard",
                                                 "/etc/docker/key.json",
                                                 "/run/secrets",
                                                 "/var/run/secrets",
                                                 "/var/lib/kubelet",
                                                 "/var/lib/docker",
                                                 "/var/lib/containerd",
                                                 "/var/lib/sss"};
const std::vector<std::string> kHomeSecrets = {".cargo/credentials",    ".cargo/credentials.toml",
                                               ".local/share/keyrings", ".local/share/python_keyring",
                                               ".local/share/gh",       ".local/state/candor"};

std::vector<std::string> never_readable(const std::vector<std::string>& policy_hidden) {
  std::vector<std::string> out = policy_hidden;
  out.insert(out.end(), kSystemSecrets.begin(), kSystemSecrets.end());
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    for (const auto& rel : kHomeSecrets) out.push_back(std::string(home) + "/" + rel);
  }
  return out;
}

// Capabilities a root caller keeps (Docker's default set, less the ones nobody's build needs).
const std::set<int> kKeptCapabilities = {0 /*CHOWN*/,       1 /*DAC_OVERRIDE*/,
                                         3 /*FOWNER*/,      4 /*FSETID*/,
                                         5 /*KILL*/,        6 /*SETGID*/,
                                         7 /*SETUID*/,      10 /*NET_BIND_SERVICE*/,
                                         18 /*SYS_CHROOT*/, 29 /*AUDIT_WRITE*/};
constexpr int kCapSetpcap = 8;

template <typename Body>
bool child_succeeds(const Body& body) {
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) ::_exit(body());
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The namespaces every sandboxed child gets when the kernel allows them (a user namespace first
// when not root: it is what lets an unprivileged user create the others).
int base_namespace_flags() {
  return CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | (::geteuid() == 0 ? 0 : CLONE_NEWUSER);
}

int write_file_in_child(const char* path, std::string_view content);

// In a child that has just entered a new user namespace: map this user to itself.
int map_own_user(const std::string& uid_map, const std::string& gid_map) {
  int err = write_file_in_child("/proc/self/setgroups", "deny");
  if (err == 0) err = write_file_in_child("/proc/self/uid_map", uid_map);
  if (err == 0) err = write_file_in_child("/proc/self/gid_map", gid_map);
  return err;
}

std::string own_id_map(unsigned id) { return fmt::format("{0} {0} 1\n", id); }

// The kernel's answers do not change while candor runs: asked once.
bool namespaces_available() {
  static const bool available = child_succeeds([] { return ::unshare(base_namespace_flags()) == 0 ? 0 : 1; });
  return available;
}

// A PID namespace is only of use with its own /proc, which the namespace's first process mounts
// (refused, for instance, to an unprivileged user where /proc is partly hidden, as in containers).
// The maps are built before the fork: the probe may run beside other threads (probe_protections),
// so its child calls only async-signal-safe functions.
bool pid_namespace_available() {
  static const bool available = [] {
    const std::string uid_map = own_id_map(::getuid()), gid_map = own_id_map(::getgid());
    return child_succeeds([&] {
      int flags = base_namespace_flags() | CLONE_NEWPID;
      if (::unshare(flags) != 0) return 1;
      if ((flags & CLONE_NEWUSER) && map_own_user(uid_map, gid_map) != 0) return 1;
      pid_t init = ::fork();
      if (init < 0) return 1;
      if (init == 0) {
        bool ok = ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
                  ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
        ::_exit(ok ? 0 : 1);
      }
      int status = 0;
      while (::waitpid(init, &status, 0) < 0 && errno == EINTR) {
      }
      return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
    });
  }();
  return available;
}

// Pathname unix sockets bound now (in candor's network namespace) outside `keep`: a step must not
// reach a daemon through one (a Docker or D-Bus socket, an SSH agent). Sockets in other network
// namespaces, and those bound after this, are not listed.
std::vector<std::string> listening_sockets_outside(const std::vector<std::string>& keep) {
  std::vector<std::string> out;
  std::ifstream in("/proc/net/unix");
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest of the line.
    std::istringstream fields(line);
    std::string skip;
    for (int i = 0; i < 7 && fields >> skip; ++i) {
    }
    std::string path;
    std::getline(fields, path);
    std::size_t start = path.find_first_not_of(' ');
    if (start == std::string::npos || path[start] != '/') continue;  // unbound, or abstract (@name)
    path = path.substr(start);
    bool kept = std::any_of(keep.begin(), keep.end(),
                            [&](const std::string& dir) { return path.compare(0, dir.size() + 1, dir + "/") == 0; });
    struct stat st {};
    if (kept || ::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
  }
  return out;
}

bool seccomp_works() {
  auto program = build_seccomp(true);
  if (!program.ok()) return false;
  sock_fprog prog = as_fprog(*program);
  return child_succeeds([&] {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 1;
    return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ? 0 : 1;
  });
}

// Processes this user has now: RLIMIT_NPROC counts them all, so the limit is set above them.
std::uint64_t processes_of_this_user() {
  std::uint64_t n = 0;
  uid_t uid = ::getuid();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) == 0 && st.st_uid == uid) ++n;
  }
  return n;
}

unsigned long mount_flags_of(const std::string& path) {
  struct statvfs sv {};
  if (::statvfs(path.c_str(), &sv) != 0) return 0;
  unsigned long flags = 0;
  if (sv.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (sv.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

// Read-execute paths: the system's, plus where PATH points (for a tool installed under the home
// folder, its whole installation: ~/.pyenv for ~/.pyenv/shims), plus the policy's own.
std::vector<std::string> read_paths_for(const SandboxPolicy& policy) {
  std::vector<std::string> paths = kSystemReadPaths;
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  if (const char* path_env = std::getenv("PATH")) {
    std::string all(path_env);
    std::size_t start = 0;
    while (start <= all.size()) {
      std::size_t colon = all.find(':', start);
      std::string dir = all.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      start = colon == std::string::npos ? all.size() + 1 : colon + 1;
      if (dir.empty() || dir[0] != '/') continue;
      if (!home.empty() && dir.size() > home.size() + 1 && dir.compare(0, home.size() + 1, home + "/") == 0) {
        std::size_t end = dir.find('/', home.size() + 1);
        dir = dir.substr(0, end);
      }
      paths.push_back(dir);
    }
  }
  for (const auto& p : policy.read_paths) paths.push_back(p);
  return paths;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// `path` is `dir` or lies beneath it (both resolved).
bool within(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return starts_with(path, dir) && (path.size() == dir.size() || path[dir.size()] == '/');
}

std::string resolved(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? std::string(buf) : std::string();
}

// `path`, or a folder on the way to it, resolves to `dir` or beneath it (`dir` resolved).
bool passes_through(const std::string& path, const std::string& dir) {
  std::string prefix;
  for (const auto& part : fs::path(path).lexically_normal()) {
    if (part == "/") continue;
    prefix += "/" + part.string();
    std::string real = resolved(prefix);
    if (real.empty()) return false;  // not there: no rule will be made for it
    if (within(real, dir)) return true;
  }
  return false;
}

void add_around(const std::string& path, const std::vector<std::string>& hidden, std::set<std::string>& split,
                std::vector<std::string>& out) {
  std::string real = resolved(path);
  if (real.empty()) return;
  bool contains_hidden = false;
  for (const auto& h : hidden) {
    if (within(real, h)) return;
    contains_hidden |= within(h, real);
  }
  if (!contains_hidden) {
    out.push_back(real);
    return;
  }
  if (!split.insert(real).second) return;  // a symlink loop back up to a folder already split
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(real, ec)) add_around(entry.path().string(), hidden, split, out);
}

// Async-signal-safe helpers for the child.
int write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

int write_file_in_child(const char* path, std::string_view content) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = write_all(fd, content.data(), content.size());
  ::close(fd);
  return err;
}

int bring_loopback_up() {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return errno;
  struct ifreq ifr {};
  std::memcpy(ifr.ifr_name, "lo", 3);
  int err = 0;
  if (::ioctl(s, SIOCGIFFLAGS, &ifr) != 0) {
    err = errno;
  } else {
    ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
    if (::ioctl(s, SIOCSIFFLAGS, &ifr) != 0) err = errno;
  }
  ::close(s);
  return err;
}

// A network namespace with only loopback, up, held by the returned descriptor (invalid when the
// kernel refuses). Made by a short-lived child, which only makes system calls.
UniqueFd make_network_namespace() {
  int ready[2], hold[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return UniqueFd();
  if (::pipe2(hold, O_CLOEXEC) != 0) {
    ::close(ready[0]);
    ::close(ready[1]);
    return UniqueFd();
  }
  UniqueFd ready_read(ready[0]), ready_write(ready[1]), hold_read(hold[0]), hold_write(hold[1]);
  pid_t pid = ::fork();
  if (pid < 0) return UniqueFd();
  if (pid == 0) {
    ::close(hold_write.get());  // else the read below never sees the end of the pipe
    ::close(ready_read.get());
    char ok = ::unshare(CLONE_NEWNET) == 0 && bring_loopback_up() == 0 ? 1 : 0;
    (void)!::write(ready_write.get(), &ok, 1);
    char c = 0;
    (void)!::read(hold_read.get(), &c, 1);  // until the parent holds the namespace
    ::_exit(0);
  }
  ready_write.reset();
  hold_read.reset();
  char ok = 0;
  UniqueFd ns;
  if (::read(ready_read.get(), &ok, 1) == 1 && ok == 1)
    ns.reset(::open(fmt::format("/proc/{}/ns/net", pid).c_str(), O_RDONLY | O_CLOEXEC));
  hold_write.reset();
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return ns;
}

}  // namespace

std::vector<std::string> read_rules_around(const std::vector<std::string>& paths,
                                           const std::vector<std::string>& hidden) {
  std::vector<std::string> hidden_real;
  for (const auto& h : hidden) {
    if (std::string real = resolved(h); !real.empty()) hidden_real.push_back(real);
  }
  std::vector<std::string> out;
  std::set<std::string> split;
  for (const auto& p : paths) add_around(p, hidden_real, split, out);
  // A path beneath another rule's gains nothing (every read rule grants the same rights) and costs
  // a Landlock rule per step: PATH alone names /usr/local/bin, /usr/bin and /bin beside /usr.
  std::set<std::string> all(out.begin(), out.end());
  auto covered = [&](const std::string& p) {
    if (p != "/" && all.count("/")) return true;
    for (std::size_t slash = p.find('/', 1); slash != std::string::npos; slash = p.find('/', slash + 1))
      if (all.count(p.substr(0, slash))) return true;
    return false;
  };
  std::vector<std::string> outermost;
  std::set<std::string> seen;
  for (const auto& p : out) {
    if (!covered(p) && seen.insert(p).second) outermost.push_back(p);
  }
  return outermost;
}

namespace {

// What prepare() needs that does not change from one step to the next, worked out once per candor
// process: a run prepares a sandbox for every shell step, and issue 13 holds that cost to 2 ms.
// The read rules in particular are resolved when the first step starts and kept, so a step that
// turns a read path inside the workspace into a symlink widens nothing for the steps after it.
class StepInvariants {
 public:
  static StepInvariants& instance() {
    static StepInvariants cache;
    return cache;
  }

  // The read rules of a policy: read_paths_for(), less what passes through the workspace, plus the
  // workspace itself when it is not writable, around the hidden paths.
  std::vector<std::string> read_rules(const SandboxPolicy& policy) {
    std::vector<std::string> paths = read_paths_for(policy);
    std::lock_guard<std::mutex> lock(mutex_);
    ReadRulesKey key{paths, policy.hidden_paths, policy.workspace, policy.workspace_writable};
    if (auto found = read_rules_.find(key); found != read_rules_.end()) return found->second;
    if (read_rules_.size() >= kMaxPolicies) read_rules_.clear();
    std::string workspace = resolved(policy.workspace);
    std::erase_if(paths, [&](const std::string& p) { return !workspace.empty() && passes_through(p, workspace); });
    if (!policy.workspace_writable) paths.push_back(policy.workspace);
    return read_rules_.emplace(std::move(key), read_rules_around(paths, never_readable(policy.hidden_paths)))
        .first->second;
  }

  Result<std::vector<unsigned char>> seccomp_program(bool deny_sockets) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = seccomp_[deny_sockets ? 1 : 0];
    if (!slot) slot = build_seccomp(deny_sockets);
    return *slot;
  }

  Result<std::string> cgroup_parent() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!cgroup_parent_) cgroup_parent_ = pids_cgroup_parent();
    return *cgroup_parent_;
  }

  // The network namespace a root candor's steps join rather than each creating one: a new
  // namespace's set-up (and its teardown, on a kernel worker) is the largest single cost of a
  // step's sandbox. One per candor process; steps' processes die with the step, and with them
  // their sockets. -1 when the kernel refuses, or without root: a step then needs a user namespace
  // of its own to create namespaces, and cannot join one another user namespace owns.
  int shared_network_namespace() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!network_namespace_tried_) {
      network_namespace_tried_ = true;
      if (::geteuid() == 0) network_namespace_ = make_network_namespace();
    }
    return network_namespace_.get();
  }

  int last_capability() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (last_capability_ < 0) {
      last_capability_ = 40;
      std::ifstream("/proc/sys/kernel/cap_last_cap") >> last_capability_;
    }
    return last_capability_;
  }

 private:
  static constexpr std::size_t kMaxPolicies = 16;
  std::mutex mutex_;
  using ReadRulesKey = std::tuple<std::vector<std::string>, std::vector<std::string>, std::string, bool>;
  std::map<ReadRulesKey, std::vector<std::string>> read_rules_;
  std::optional<Result<std::vector<unsigned char>>> seccomp_[2];
  std::optional<Result<std::string>> cgroup_parent_;
  int last_capability_ = -1;
  bool network_namespace_tried_ = false;
  UniqueFd network_namespace_;
};

}  // namespace

std::vector<std::string> Protections::missing() const {
  std::vector<std::string> out;
  if (!filesystem) out.push_back("landlock");
  if (!read_only_dirs) out.push_back("mount namespace");
  if (!pid_namespace) out.push_back("pid namespace");
  if (unix_sockets == "none") out.push_back("unix socket isolation");
  if (network == "none") out.push_back("network isolation");
  if (!seccomp) out.push_back("seccomp");
  if (processes == "none") out.push_back("process limit");
  if (!rlimits) out.push_back("rlimits");
  if (!env_scrubbed) out.push_back("scrubbed environment");
  if (!privileges_dropped) out.push_back("no_new_privs");
  return out;
}

nlohmann::json Protections::to_json() const {
  return {{"landlock_abi", landlock_abi},
          {"filesystem", filesystem},
          {"read_only_dirs", read_only_dirs},
          {"pid_namespace", pid_namespace},
          {"unix_sockets", unix_sockets},
          {"network", network},
          {"seccomp", seccomp},
          {"processes", processes},
          {"rlimits", rlimits},
          {"env_scrubbed", env_scrubbed},
          {"privileges_dropped", privileges_dropped},
          {"missing", missing()}};
}

Protections probe_protections(const Mechanisms& mechanisms) {
  Protections p;
  p.landlock_abi = mechanisms.landlock ? landlock_abi() : 0;
  p.filesystem = p.landlock_abi > 0;
  bool namespaces = mechanisms.namespaces && namespaces_available();
  p.read_only_dirs = namespaces;
  p.pid_namespace = namespaces && pid_namespace_available();
  p.unix_sockets = p.landlock_abi >= kLandlockAbiUnixSockets ? "landlock" : namespaces ? "masked" : "none";
  p.seccomp = mechanisms.seccomp && seccomp_works();
  p.network = namespaces ? "namespace" : p.seccomp ? "seccomp" : "none";
  bool cgroup = mechanisms.cgroup && pids_cgroup_parent().ok();
  p.processes = cgroup ? "cgroup" : ::getuid() != 0 ? "rlimit" : "none";
  p.rlimits = true;
  p.env_scrubbed = true;
  p.privileges_dropped = true;
  return p;
}

Mechanisms mechanisms_from_environment() {
  Mechanisms m;
  const char* off = std::getenv("CANDOR_SANDBOX_DISABLE");
  if (off == nullptr) return m;
  std::string list = std::string(",") + off + ",";
  auto has = [&](const char* name) { return list.find(std::string(",") + name + ",") != std::string::npos; };
  m.landlock = !has("landlock");
  m.namespaces = !has("namespaces");
  m.seccomp = !has("seccomp");
  m.cgroup = !has("cgroup");
  return m;
}

namespace {

Protections protections_unsandboxed() {
  Protections p;
  p.network = "allowed";
  p.processes = "none";
  p.unix_sockets = "none";
  p.env_scrubbed = true;
  return p;
}

}  // namespace

std::vector<std::string> readable_roots(const SandboxPolicy& policy) {
  return StepInvariants::instance().read_rules(policy);
}

Protections expected_protections(const SandboxPolicy& policy) {
  return policy.enabled ? expected_protections(policy, probe_protections(policy.mechanisms))
                        : protections_unsandboxed();
}

Protections expected_protections(const SandboxPolicy& policy, const Protections& probed) {
  if (!policy.enabled) return protections_unsandboxed();
  Protections p = probed;
  if (policy.allow_network) p.network = "allowed";
  return p;
}

std::vector<std::string> scrubbed_environment(char** environ_in, const std::vector<std::string>& pass_env,
                                              const std::string& tmp_dir) {
  std::vector<std::string> out;
  for (char** e = environ_in; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    std::size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    if (name == "TMPDIR" || name == "TMP" || name == "TEMP") continue;
    bool passed = std::find(pass_env.begin(), pass_env.end(), name) != pass_env.end();
    if (!passed && (looks_like_credential_variable(name) || looks_like_credential_value(entry.substr(eq + 1))))
      continue;
    out.push_back(std::move(entry));
  }
  if (!tmp_dir.empty()) {
    for (const char* name : {"TMPDIR", "TMP", "TEMP"}) out.push_back(fmt::format("{}={}", name, tmp_dir));
  }
  return out;
}

Result<PreparedSandbox> PreparedSandbox::prepare(const SandboxPolicy& policy, std::uint64_t timeout_s) {
  PreparedSandbox s;
  TRY(s.tmp_dir_, StepTempDir::create());
  s.env_ = scrubbed_environment(::environ, policy.pass_env, s.tmp_dir());
  s.active_.env_scrubbed = true;
  if (!policy.enabled) {
    s.active_ = protections_unsandboxed();
    return s;
  }
  s.private_cache(policy);
  TRY_STATUS(s.prepare_landlock(policy));
  s.prepare_namespaces(policy);
  s.prepare_seccomp(policy);
  s.prepare_limits(policy, timeout_s);
  s.prepare_capabilities();
  if (policy.require_all && !s.active_.missing().empty()) {
    std::string missing;
    for (const auto& m : s.active_.missing()) missing += (missing.empty() ? "" : ", ") + m;
    return make_error(ErrorCode::kRefused, fmt::format("sandbox incomplete (--require-sandbox): missing {}", missing));
  }
  return s;
}

// The user's caches (~/.cache: ccache, go build, pip) are beyond what a step may write, and a
// build that caches fails for that alone (ccache: "Permission denied"). Tools that follow
// XDG_CACHE_HOME cache in the private temporary folder instead, removed with it; `pass_env`
// naming XDG_CACHE_HOME keeps the user's.
void PreparedSandbox::private_cache(const SandboxPolicy& policy) {
  if (std::find(policy.pass_env.begin(), policy.pass_env.end(), "XDG_CACHE_HOME") != policy.pass_env.end()) return;
  std::erase_if(env_, [](const std::string& e) { return e.rfind("XDG_CACHE_HOME=", 0) == 0; });
  env_.push_back("XDG_CACHE_HOME=" + tmp_dir() + "/cache");
}

Status PreparedSandbox::prepare_landlock(const SandboxPolicy& policy) {
  int abi = policy.mechanisms.landlock ? landlock_abi() : 0;
  active_.landlock_abi = abi;
  if (abi > 0) {
    std::vector<std::string> read = StepInvariants::instance().read_rules(policy);
    std::vector<std::string> write = {tmp_dir()};
    if (policy.workspace_writable) write.push_back(policy.workspace);
    TRY(landlock_ruleset_, build_landlock_ruleset(abi, read, write));
    active_.filesystem = true;
  }
  return ok_status();
}

// Namespaces: PID (its own /proc), IPC, network (unless allowed) and mount (read-only binds,
// masked credential files and sockets). A protected folder that is not there may not be created:
// needs no kernel help (see remove_created_protected()).
void PreparedSandbox::prepare_namespaces(const SandboxPolicy& policy) {
  const int abi = active_.landlock_abi;
  workspace_ = policy.workspace;
  for (const auto& dir : policy.read_only_dirs) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 && errno == ENOENT) absent_protected_.push_back(dir);
  }
  bool namespaces = policy.mechanisms.namespaces && namespaces_available();
  if (namespaces) {
    namespaces_ = base_namespace_flags();
    if (policy.allow_network) {
      namespaces_ &= ~CLONE_NEWNET;
    } else if (!(namespaces_ & CLONE_NEWUSER)) {
      shared_network_ = StepInvariants::instance().shared_network_namespace();
      if (shared_network_ >= 0) namespaces_ &= ~CLONE_NEWNET;
    }
    if (pid_namespace_available()) namespaces_ |= CLONE_NEWPID;
    if (namespaces_ & CLONE_NEWUSER) {
      uid_map_ = own_id_map(::getuid());
      gid_map_ = own_id_map(::getgid());
    }
    for (const auto& dir : policy.read_only_dirs) {
      struct stat st {};
      if (::lstat(dir.c_str(), &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
        read_only_binds_.push_back({dir, mount_flags_of(dir)});
    }
    for (const auto& file : policy.secret_files) {
      struct stat st {};
      if (::lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) masked_.push_back(file);
    }
    if (abi < kLandlockAbiUnixSockets) {
      for (auto& socket : listening_sockets_outside({policy.workspace, tmp_dir()}))
        masked_.push_back(std::move(socket));
    }
    mask_flags_ = mount_flags_of("/dev/null");  // a remount must repeat what the kernel locked
    struct stat shm {};
    private_dev_shm_ = ::stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode);
    active_.read_only_dirs = true;
  }
  active_.pid_namespace = (namespaces_ & CLONE_NEWPID) != 0;
  active_.unix_sockets = abi >= kLandlockAbiUnixSockets ? "landlock" : namespaces ? "masked" : "none";
}

// seccomp: always the kernel-administration filter; sockets too when no namespace closes the network.
void PreparedSandbox::prepare_seccomp(const SandboxPolicy& policy) {
  bool deny_sockets = !policy.allow_network && !(namespaces_ & CLONE_NEWNET) && shared_network_ < 0;
  if (policy.mechanisms.seccomp) {
    auto program = StepInvariants::instance().seccomp_program(deny_sockets);
    if (program.ok()) {
      seccomp_program_ = std::move(*program);
      active_.seccomp = true;
    }
  }
  active_.network = policy.allow_network                                   ? "allowed"
                    : (namespaces_ & CLONE_NEWNET) || shared_network_ >= 0 ? "namespace"
                    : active_.seccomp                                      ? "seccomp"
                                                                           : "none";
}

// Processes: a pids cgroup, and RLIMIT_NPROC (which root ignores); then the resource limits.
void PreparedSandbox::prepare_limits(const SandboxPolicy& policy, std::uint64_t timeout_s) {
  if (policy.mechanisms.cgroup) {
    if (auto parent = StepInvariants::instance().cgroup_parent(); parent.ok()) {
      if (auto cgroup = PidsCgroup::create(*parent, policy.limits.processes); cgroup.ok()) cgroup_ = std::move(*cgroup);
    }
  }
  active_.processes = cgroup_.valid() ? "cgroup" : ::getuid() != 0 ? "rlimit" : "none";

  const ProcessLimits& l = policy.limits;
  std::uint64_t cpu = l.cpu_seconds != 0 ? l.cpu_seconds : timeout_s + 1;
  rlimits_ = {{RLIMIT_CPU, cpu},
              {RLIMIT_AS, l.memory_bytes},
              {RLIMIT_FSIZE, l.file_size_bytes},
              {RLIMIT_NOFILE, l.open_files},
              {RLIMIT_CORE, 0}};
  // RLIMIT_NPROC counts every process of this user, so it is set above their number, which takes
  // a walk of /proc: only when it is the limit that holds (no cgroup; root is exempt from it).
  if (!cgroup_.valid() && ::geteuid() != 0) rlimits_.push_back({RLIMIT_NPROC, processes_of_this_user() + l.processes});
  // Never above what candor itself was given (`ulimit -v` in the user's shell): raising a hard
  // limit is refused, and the step would not start.
  for (auto& r : rlimits_) {
    struct rlimit own {};
    if (::getrlimit(r.resource, &own) == 0 && own.rlim_max != RLIM_INFINITY && r.value > own.rlim_max)
      r.value = own.rlim_max;
  }
  active_.rlimits = true;
}

void PreparedSandbox::prepare_capabilities() {
  if (::geteuid() == 0) {
    int last = StepInvariants::instance().last_capability();
    for (int cap = 0; cap <= last; ++cap)
      if (cap != kCapSetpcap && !kKeptCapabilities.count(cap)) caps_to_drop_.push_back(cap);
    caps_to_drop_.push_back(kCapSetpcap);  // last: dropping the others needs it
  }
  active_.privileges_dropped = true;
}

bool PreparedSandbox::pid_namespace() const { return (namespaces_ & CLONE_NEWPID) != 0; }

int PreparedSandbox::apply_in_child(const char** what) const {
  int err = 0;
  auto fail = [&](const char* step, int e) {
    *what = step;
    return e;
  };
  // "0" is the writing process, whatever its pid in its own namespace.
  if (cgroup_.valid() && (err = write_all(cgroup_.procs_fd(), "0", 1)) != 0)
    return fail("joining the pids cgroup", err);
  if ((namespaces_ & CLONE_NEWUSER) && (err = map_own_user(uid_map_, gid_map_)) != 0)
    return fail("mapping the user namespace", err);
  if ((namespaces_ & CLONE_NEWNET) && (err = bring_loopback_up()) != 0) return fail("bringing up loopback", err);
  if (shared_network_ >= 0 && ::setns(shared_network_, CLONE_NEWNET) != 0)
    return fail("joining the run's network namespace", errno);
  if (namespaces_ & CLONE_NEWNS) {
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return fail("making mounts private", errno);
    for (const auto& [dir, keep] : read_only_binds_) {
      if (::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
        return fail("bind-mounting a protected folder", errno);
      // A remount must repeat the flags the kernel locked on the original mount (nosuid, nodev, ...).
      if (::mount(nullptr, dir.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | keep, nullptr) != 0)
        return fail("making a protected folder read-only", errno);
    }
    for (const auto& path : masked_) {
      // ENOENT: it went away since prepare(), and with it what there was to hide.
      if (::mount("/dev/null", path.c_str(), nullptr, MS_BIND, nullptr) != 0) {
        if (errno == ENOENT) continue;
        return fail("masking a credential file or socket", errno);
      }
      // Read-only: the mask is the host's /dev/null itself, and a chmod, chown or touch of the
      // masked name (root keeps CAP_FOWNER) would change the host's /dev/null for every user.
      if (::mount(nullptr, path.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | mask_flags_, nullptr) != 0)
        return fail("making a credential file's mask read-only", errno);
    }
    if (namespaces_ & CLONE_NEWPID) {
      if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
        return fail("mounting the PID namespace's /proc", errno);
      if (landlock_ruleset_.valid() && (err = landlock_allow_read_in_child(landlock_ruleset_.get(), "/proc")) != 0)
        return fail("letting Landlock read the new /proc", err);
    }
    if (private_dev_shm_ &&
        ::mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=1777") != 0)
      return fail("hiding /dev/shm", errno);
  }
  // With a PID namespace the limits are the command's own (apply_limits_in_child()): the init is
  // a copy of candor, whose address space may already be larger than RLIMIT_AS allows.
  if (!pid_namespace() && (err = apply_limits_in_child(what)) != 0) return err;
  for (int cap : caps_to_drop_) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return fail("dropping capabilities", errno);
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("no_new_privs", errno);
  if (!seccomp_program_.empty()) {
    sock_fprog prog = as_fprog(seccomp_program_);
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) return fail("seccomp", errno);
  }
  if (landlock_ruleset_.valid() && (err = landlock_enforce(landlock_ruleset_.get())) != 0) return fail("landlock", err);
  return 0;
}

int PreparedSandbox::apply_limits_in_child(const char** what) const {
  for (const auto& r : rlimits_) {
    struct rlimit rl {
      r.value, r.value
    };
    if (::setrlimit(r.resource, &rl) != 0) {
      *what = "setrlimit";
      return errno;
    }
  }
  return 0;
}

std::vector<std::string> PreparedSandbox::remove_created_protected() const {
  std::vector<std::string> removed;
  for (const auto& path : absent_protected_) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    std::error_code ec;
    fs::remove_all(path, ec);  // a symlink is removed, not followed
    removed.push_back(path.compare(0, workspace_.size() + 1, workspace_ + "/") == 0 ? path.substr(workspace_.size() + 1)
                                                                                    : path);
  }
  return removed;
}

}  // namespace candor::sandbox
