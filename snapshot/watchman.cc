#include "snapshot/watchman.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sandbox/process.h"

namespace candor::snapshot {
namespace {

Error unavailable(const std::string& why) { return make_error(ErrorCode::kUnavailable, "watchman: " + why); }

// The `watchman` PATH names: the program the daemon must be running.
std::optional<std::string> watchman_on_path() {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    std::size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    if (dir.empty()) continue;  // the current folder: the workspace, which the agent writes
    std::string candidate = dir + "/watchman";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

// Field 22 of /proc/PID/stat (after the name in parentheses, which may hold anything).
std::optional<std::uint64_t> start_time(int pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(fields >> field)) return std::nullopt;
  }
  char* end = nullptr;
  std::uint64_t ticks = std::strtoull(field.c_str(), &end, 10);
  if (end == field.c_str() || *end != '\0') return std::nullopt;
  return ticks;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// The socket's path: WATCHMAN_SOCK, else the one a daemon of this user listens on by default
// (Debian's: $TMPDIR/USER-state/sock), else what `watchman get-sockname` says (it starts one).
Result<std::string> socket_path(const std::string& program, std::chrono::milliseconds timeout, bool ask_program) {
  if (const char* env = std::getenv("WATCHMAN_SOCK"); env != nullptr && *env != '\0') return std::string(env);
  if (!ask_program) {
    const char* tmp = std::getenv("TMPDIR");
    const char* user = std::getenv("USER");
    if (user == nullptr || *user == '\0') user = std::getenv("LOGNAME");
    if (user == nullptr || *user == '\0') return unavailable("no user name to find the socket by");
    return fmt::format("{}/{}-state/sock", tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", user);
  }
  sandbox::ProcessSpec spec;
  spec.argv = {program, "--no-pretty", "get-sockname"};
  spec.cwd = "/";
  spec.timeout = timeout;
  spec.merge_stderr = false;
  auto ran = sandbox::run_process(spec);
  if (!ran.ok()) return unavailable("cannot start " + program + ": " + ran.error().message);
  if (ran->timed_out || ran->exit_code != 0)
    return unavailable(fmt::format("`{} get-sockname` failed ({})", program,
                                   ran->timed_out ? "timed out" : "exit " + std::to_string(ran->exit_code)));
  auto answer = nlohmann::json::parse(ran->output.text(), nullptr, false);
  if (!answer.is_object() || !answer.value("sockname", nlohmann::json()).is_string())
    return unavailable("`get-sockname` named no socket");
  return answer["sockname"].get<std::string>();
}

Result<sandbox::UniqueFd> connect_to(const std::string& path, std::chrono::milliseconds timeout) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) return unavailable("socket path too long: " + path);
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  sandbox::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return unavailable(std::string("socket: ") + std::strerror(errno));
  timeval tv{.tv_sec = static_cast<time_t>(timeout.count() / 1000),
             .tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    return unavailable(fmt::format("cannot connect to {}: {}", path, std::strerror(errno)));
  return fd;
}

// Who listens: a process of this user running `program`, identified by its pid and start time.
Result<WatchmanDaemon> identify(int fd, const std::string& program) {
  ucred peer{};
  socklen_t size = sizeof(peer);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0)
    return unavailable(std::string("cannot tell who listens on the socket: ") + std::strerror(errno));
  if (peer.uid != ::geteuid()) return unavailable(fmt::format("the socket's daemon runs as uid {}", peer.uid));
  struct stat exe {
  }, expected{};
  if (::stat(fmt::format("/proc/{}/exe", peer.pid).c_str(), &exe) != 0 || ::stat(program.c_str(), &expected) != 0 ||
      exe.st_dev != expected.st_dev || exe.st_ino != expected.st_ino) {
    return unavailable(fmt::format("the process on the socket (pid {}) is not {}", peer.pid, program));
  }
  // The right program started the wrong way: a config of the starter's choosing (what it ignores),
  // or code loaded into it.
  std::ifstream environ(fmt::format("/proc/{}/environ", peer.pid), std::ios::binary);
  if (!environ) return unavailable(fmt::format("cannot read how pid {} was started", peer.pid));
  for (std::string var; std::getline(environ, var, '\0');) {
    for (const char* refused : {"WATCHMAN_CONFIG_FILE=", "LD_PRELOAD=", "LD_LIBRARY_PATH=", "LD_AUDIT="}) {
      if (var.starts_with(refused))
        return unavailable(
            fmt::format("its daemon (pid {}) was started with {}", peer.pid, var.substr(0, var.find('='))));
    }
  }
  auto started = start_time(peer.pid);
  if (!started) return unavailable(fmt::format("cannot read when pid {} started", peer.pid));
  return WatchmanDaemon{.pid = peer.pid, .started = *started};
}

}  // namespace

Result<Watchman> Watchman::connect(const std::string& root, std::chrono::milliseconds timeout) {
  auto program = watchman_on_path();
  if (!program) return unavailable("no `watchman` on PATH");
  // A program the agent could have replaced (its user's own, or one others may write) vouches for
  // nothing: the daemon it runs would answer whatever it was made to.
  if (struct stat st{}; ::stat(program->c_str(), &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0)
    return unavailable(*program + " is not root's alone (owned by root, written by no one else)");
  Watchman w;
  w.timeout_ = timeout;
  // The default socket first (no process to start); `get-sockname` when nothing listens there.
  auto path = socket_path(*program, timeout, false);
  auto fd = path.ok() ? connect_to(*path, timeout) : Result<sandbox::UniqueFd>(path.error());
  if (!fd.ok()) {
    TRY(std::string asked, socket_path(*program, timeout, true));
    TRY(sandbox::UniqueFd again, connect_to(asked, timeout));
    fd = std::move(again);
  }
  w.socket_ = std::move(*fd);
  TRY(w.daemon_, identify(w.socket_.get(), *program));
  TRY(std::string watched, w.ask(nlohmann::json::array({"watch-project", root}).dump()));
  auto answer = nlohmann::json::parse(watched);
  if (!answer.value("watch", nlohmann::json()).is_string()) return unavailable("watch-project named no root");
  w.root_ = answer["watch"].get<std::string>();
  if (answer.value("relative_path", nlohmann::json()).is_string())
    w.relative_root_ = answer["relative_path"].get<std::string>();
  TRY_STATUS(w.check_config());
  return w;
}

Status Watchman::check_config() {
  // What the watch ignores is never reported: a `.watchmanconfig` the agent wrote takes effect
  // when the daemon watches the root again (a restart), and the config it then holds is the one
  // that counts, whatever the file says now. The global config gives defaults to every root.
  TRY(std::string answer, ask(nlohmann::json::array({"get-config", root_}).dump()));
  auto parsed = nlohmann::json::parse(answer);
  std::vector<nlohmann::json> configs = {parsed.value("config", nlohmann::json::object())};
  for (const char* global : {"/etc/watchman.json", "/usr/local/etc/watchman.json"}) {
    std::ifstream in(global);
    if (in) configs.push_back(nlohmann::json::parse(in, nullptr, false));
  }
  for (const auto& config : configs) {
    if (!config.is_object()) return unavailable("a config it reads is not a JSON object");
    const auto& dirs = config.value("ignore_dirs", nlohmann::json());
    if (!dirs.is_null() && !(dirs.is_array() && dirs.empty()))
      return unavailable("it ignores folders (ignore_dirs " + dirs.dump() + "): what changes there is not reported");
    if (config.value("suppress_recrawl_warnings", false))
      return unavailable("it is told not to warn of a recrawl (suppress_recrawl_warnings)");
    const auto& vcs = config.value("ignore_vcs", nlohmann::json());
    if (!vcs.is_null()) {
      if (!vcs.is_array()) return unavailable("its ignore_vcs is not a list");
      for (const auto& name : vcs) {
        if (name != ".git" && name != ".hg" && name != ".svn")
          return unavailable("it ignores " + name.dump() + " as a version control folder (ignore_vcs)");
      }
    }
  }
  return ok_status();
}

Result<std::string> Watchman::ask(const std::string& request) {
  std::string line = request + "\n";
  for (std::size_t sent = 0; sent < line.size();) {
    ssize_t n = ::send(socket_.get(), line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return unavailable(std::string("cannot write to the daemon: ") + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
  // Answers are one line each; unilateral ones (subscriptions, logs) are not asked for, but skipped.
  std::string buffer;
  char chunk[65536];
  for (;;) {
    std::size_t newline = buffer.find('\n');
    if (newline != std::string::npos) {
      std::string answer = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      auto parsed = nlohmann::json::parse(answer, nullptr, false);
      if (!parsed.is_object()) return unavailable("an answer that is not a JSON object");
      if (parsed.value("unilateral", false)) continue;
      if (parsed.value("error", nlohmann::json()).is_string())
        return unavailable("the daemon refused: " + parsed["error"].get<std::string>());
      return answer;
    }
    ssize_t n = ::recv(socket_.get(), chunk, sizeof(chunk), 0);
    if (n == 0) return unavailable("the daemon closed the connection");
    if (n < 0) {
      if (errno == EINTR) continue;
      return unavailable(errno == EAGAIN || errno == EWOULDBLOCK ? "no answer in time"
                                                                 : std::string("cannot read: ") + std::strerror(errno));
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

Result<std::string> Watchman::clock() {
  nlohmann::json request = {"clock", root_, {{"sync_timeout", timeout_.count()}}};
  TRY(std::string answer, ask(request.dump()));
  auto parsed = nlohmann::json::parse(answer);
  if (!parsed.value("clock", nlohmann::json()).is_string()) return unavailable("the clock answer has no clock");
  return parsed["clock"].get<std::string>();
}

Result<WatchmanChanges> Watchman::changes_since(const std::string& clock, const WatchmanDaemon& expected) {
  if (daemon_ != expected) {
    return unavailable(
        fmt::format("another daemon answers now (pid {}, not pid {} as at the clock)", daemon_.pid, expected.pid));
  }
  nlohmann::json query = {{"since", clock},
                          {"fields", {"name", "type"}},
                          {"empty_on_fresh_instance", true},
                          {"sync_timeout", timeout_.count()}};
  if (!relative_root_.empty()) query["relative_root"] = relative_root_;
  TRY(std::string answer, ask(nlohmann::json::array({"query", root_, query}).dump()));
  auto parsed = nlohmann::json::parse(answer);
  if (parsed.value("is_fresh_instance", false))
    return unavailable("the clock is of another instance (the daemon restarted, or the watch was made again)");
  if (parsed.value("warning", nlohmann::json()).is_string())
    return unavailable("it warns: " + parsed["warning"].get<std::string>());
  const auto& files = parsed.value("files", nlohmann::json());
  if (!files.is_array() || !parsed.value("clock", nlohmann::json()).is_string())
    return unavailable("the query's answer has no files or no clock");
  WatchmanChanges out;
  out.clock = parsed["clock"].get<std::string>();
  for (const auto& file : files) {
    if (!file.is_object() || !file.value("name", nlohmann::json()).is_string())
      return unavailable("a changed file without a name");
    std::string name = file["name"].get<std::string>();
    // Its JSON holds UTF-8 only: another name comes out changed (U+FFFD), so no path can be trusted.
    if (!valid_utf8(name) || name.find("\xef\xbf\xbd") != std::string::npos || name.empty() || name.front() == '/')
      return unavailable("a changed path it cannot name exactly");
    // The root's .git is the caller's (a protected path); a nested one is looked at as a whole.
    if (name == ".git" || name.starts_with(".git/")) continue;
    if (std::size_t git = name.find("/.git/"); git != std::string::npos) {
      out.paths.insert(name.substr(0, git + 5));
      continue;
    }
    // A folder now: its files are named one by one; the folder itself matters where it took the
    // place of a file or a link (the scan decides, from what its index holds there).
    if (file.value("type", "") == "d" && !name.ends_with("/.git")) name += '/';
    out.paths.insert(std::move(name));
  }
  return out;
}

}  // namespace candor::snapshot
