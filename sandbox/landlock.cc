#include "sandbox/landlock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace candor::sandbox {
namespace {

// From linux/landlock.h; spelled out because Debian 12's headers stop at ABI 1-2.
constexpr std::uint64_t kExecute = 1ULL << 0;
constexpr std::uint64_t kWriteFile = 1ULL << 1;
constexpr std::uint64_t kReadFile = 1ULL << 2;
constexpr std::uint64_t kReadDir = 1ULL << 3;
constexpr std::uint64_t kRefer = 1ULL << 13;                   // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14;                // ABI 3
constexpr std::uint64_t kIoctlDev = 1ULL << 15;                // ABI 5
constexpr std::uint64_t kResolveUnix = 1ULL << 16;             // ABI 9: connect()/sendmsg() to a pathname socket
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;              // ABI 6
constexpr int kRuleTypePathBeneath = 1;
constexpr unsigned kCreateRulesetVersion = 1U << 0;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::uint64_t handled_fs(int abi) {
  std::uint64_t all = (1ULL << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) all |= kRefer;
  if (abi >= 3) all |= kTruncate;
  if (abi >= 5) all |= kIoctlDev;
  if (abi >= kLandlockAbiUnixSockets) all |= kResolveUnix;
  return all;
}

std::uint64_t file_rights(std::uint64_t rights) {
  return rights & (kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev | kResolveUnix);
}

Status add_rule(int ruleset, const std::string& path, std::uint64_t rights) {
  UniqueFd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT || errno == ENOTDIR || errno == EACCES) return ok_status();
    return make_error(ErrorCode::kIo, fmt::format("landlock: cannot open {}: {}", path, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return make_error(ErrorCode::kIo, fmt::format("landlock: stat {}: {}", path, std::strerror(errno)));
  PathBeneathAttr attr{S_ISDIR(st.st_mode) ? rights : file_rights(rights), fd.get()};
  if (::syscall(SYS_landlock_add_rule, ruleset, kRuleTypePathBeneath, &attr, 0U) != 0)
    return make_error(ErrorCode::kIo, fmt::format("landlock: rule for {}: {}", path, std::strerror(errno)));
  return ok_status();
}

}  // namespace

int landlock_abi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

Result<UniqueFd> build_landlock_ruleset(int abi, const std::vector<std::string>& read_paths,
                                        const std::vector<std::string>& write_dirs) {
  if (abi <= 0) return make_error(ErrorCode::kUnavailable, "landlock: not available on this kernel");
  RulesetAttr attr{handled_fs(abi), 0, abi >= 6 ? (kScopeAbstractUnixSocket | kScopeSignal) : 0};
  std::size_t size = abi >= 6 ? sizeof(RulesetAttr) : abi >= 4 ? 2 * sizeof(std::uint64_t) : sizeof(std::uint64_t);
  UniqueFd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0U)));
  if (!ruleset.valid())
    return make_error(ErrorCode::kIo, fmt::format("landlock: create ruleset: {}", std::strerror(errno)));
  std::uint64_t all = handled_fs(abi);
  std::uint64_t read_exec = kReadFile | kReadDir | kExecute;
  for (const auto& p : read_paths) TRY_STATUS(add_rule(ruleset.get(), p, read_exec));
  for (const auto& d : write_dirs) TRY_STATUS(add_rule(ruleset.get(), d, all));
  std::uint64_t device = (kReadFile | kWriteFile | kTruncate | kIoctlDev) & all;
  // Not /dev/tty: a step has no terminal (its own session), and its output reaches a person only
  // through candor's escaping.
  for (const char* dev : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"})
    TRY_STATUS(add_rule(ruleset.get(), dev, device));
  return ruleset;
}

int landlock_allow_read_in_child(int ruleset_fd, const char* path) {
  int fd = ::open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  PathBeneathAttr attr{kReadFile | kReadDir | kExecute, fd};
  int err = ::syscall(SYS_landlock_add_rule, ruleset_fd, kRuleTypePathBeneath, &attr, 0U) == 0 ? 0 : errno;
  ::close(fd);
  return err;
}

int landlock_enforce(int ruleset_fd) { return ::syscall(SYS_landlock_restrict_self, ruleset_fd, 0U) == 0 ? 0 : errno; }

}  // namespace candor::sandbox
