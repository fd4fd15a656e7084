#include "tests/test_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <doctest/doctest.h>
#include <git2.h>

namespace fs = std::filesystem;

namespace candor::testing {

git_oid blob_id(const std::string& content) {
  git_oid id;
  git_odb_hash(&id, content.data(), content.size(), GIT_OBJECT_BLOB);
  return id;
}
namespace {

std::string g_scratch;
int g_counter = 0;

// In a forked child: applies `env` (NAME=VALUE sets, NAME= removes) and runs argv.
[[noreturn]] void exec_with_env(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  for (const auto& e : env) {
    auto eq = e.find('=');
    if (eq + 1 == e.size()) {
      ::unsetenv(e.substr(0, eq).c_str());
    } else {
      ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
    }
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

int wait_for_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace

ScopedEnv::ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str())) old_ = old;
  if (value) {
    ::setenv(name_.c_str(), value->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

ScopedEnv::~ScopedEnv() {
  if (old_) {
    ::setenv(name_.c_str(), old_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

void begin_scratch() {
  std::string base = env_or("TMPDIR", "/tmp") + "/candor-test-XXXXXX";
  std::vector<char> buf(base.begin(), base.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  g_scratch = buf.data();
  g_counter = 0;
}

void end_scratch(bool passed) {
  if (g_scratch.empty()) return;
  if (passed) {
    std::error_code ec;
    // Tests may leave read-only folders behind; make them removable first.
    for (auto it = fs::recursive_directory_iterator(g_scratch, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec))
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(g_scratch, ec);
  } else {
    std::fprintf(stderr, "kept the failed test's scratch folder: %s\n", g_scratch.c_str());
  }
  g_scratch.clear();
}

std::string make_temp_dir(const std::string& name) {
  if (g_scratch.empty()) begin_scratch();
  std::string dir = g_scratch + "/" + std::to_string(++g_counter) + "-" + name;
  fs::create_directories(dir);
  return fs::canonical(dir).string();
}

std::string make_workspace(const std::map<std::string, std::string>& files, const std::string& name) {
  std::string dir = make_temp_dir(name);
  for (const auto& [path, content] : files) write_file(dir + "/" + path, content);
  return dir;
}

const std::map<std::string, std::string>& tiny_site() {
  static const std::map<std::string, std::string> site = {{"css/style.css", "body {\n  background: #ffffff;\n}\n"},
                                                          {"index.html", "<p>hi</p>\n"}};
  return site;
}

void write_file(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

std::size_t longest_piece(const std::string& text, const std::string& secret) {
  for (std::size_t len = secret.size(); len > 0; --len) {
    for (std::size_t at = 0; at + len <= secret.size(); ++at) {
      if (text.find(std::string_view(secret).substr(at, len)) != std::string::npos) return len;
    }
  }
  return 0;
}

std::map<std::string, std::string> tree_contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink(ec)) {
      out[fs::relative(it->path(), dir).string()] = "symlink -> " + fs::read_symlink(it->path(), ec).string();
    } else if (it->is_regular_file(ec)) {
      out[fs::relative(it->path(), dir).string()] = read_file(it->path().string());
    } else if (it->is_directory(ec)) {
      out[fs::relative(it->path(), dir).string() + "/"] = "";
    }
  }
  return out;
}

CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& cwd, const std::string& stdin_file) {
  std::string dir = make_temp_dir("cmd");
  std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = ::open(stdin_file.empty() ? "/dev/null" : stdin_file.c_str(), O_RDONLY);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    exec_with_env(argv, env);
  }
  CommandResult r;
  r.exit_code = wait_for_exit(pid);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

const std::vector<std::string>& git_env() {
  static const std::vector<std::string> env = {"GIT_AUTHOR_NAME=candor-test",
                                               "GIT_AUTHOR_EMAIL=test@example.com",
                                               "GIT_COMMITTER_NAME=candor-test",
                                               "GIT_COMMITTER_EMAIL=test@example.com",
                                               "HOME=/nonexistent",
                                               "XDG_CONFIG_HOME=",
                                               "GIT_CONFIG_NOSYSTEM=1"};
  return env;
}

CommandResult run_git(const std::string& dir, std::vector<std::string> args,
                      const std::vector<std::string>& extra_env) {
  args.insert(args.begin(), "/usr/bin/git");
  std::vector<std::string> env = git_env();
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  return run_command(args, env, dir);
}

std::string git(const std::string& dir, std::vector<std::string> args) {
  std::string command = "git";
  for (const auto& a : args) command += " " + a;
  CAPTURE(command);
  auto r = run_git(dir, std::move(args));
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

CommandResult run_in_terminal(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                              unsigned short columns, const std::string& cwd) {
  struct termios raw {};
  raw.c_cflag = CS8 | CREAD;  // no output processing: "\n" arrives as "\n", not "\r\n"
  struct winsize size {};
  size.ws_row = 24;
  size.ws_col = columns;
  int terminal = -1;
  pid_t pid = ::forkpty(&terminal, nullptr, &raw, &size);
  if (pid < 0) throw std::runtime_error("forkpty failed");
  if (pid == 0) {
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    exec_with_env(argv, env);
  }
  CommandResult r;
  char buf[4096];
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::minutes(2);  // a hung program fails the test, not the suite
  for (;;) {
    pollfd readable{terminal, POLLIN, 0};
    if (::poll(&readable, 1, 1000) == 0) {
      if (std::chrono::steady_clock::now() < deadline) continue;
      ::kill(pid, SIGKILL);
      r.out += "\n[killed: still running after 2 minutes]\n";
      break;
    }
    ssize_t n = ::read(terminal, buf, sizeof buf);
    if (n > 0) {
      r.out.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: every process holding the terminal has closed it
    }
  }
  ::close(terminal);
  r.exit_code = wait_for_exit(pid);
  return r;
}

// Absolute: the end-to-end tests run candor in its workspace, not in this process's folder.
std::string candor_bin() {
  return std::filesystem::absolute(env_or("CANDOR_BIN", "build/cli/candor")).lexically_normal().string();
}
std::string source_root() {
  std::string root = std::filesystem::absolute(env_or("CANDOR_SOURCE_ROOT", ".")).lexically_normal().string();
  if (root.size() > 1 && root.back() == '/') root.pop_back();  // "/src/." is "/src/"
  return root;
}
std::string data_dir() { return source_root() + "/tests/data"; }

LoopbackListener::LoopbackListener() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd_, 16) != 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  socklen_t len = sizeof(addr);
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

LoopbackListener::~LoopbackListener() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace candor::testing
