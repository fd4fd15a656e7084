// The seccomp filter every sandboxed step runs under (process_sandbox.cc installs it in the child).
#include "sandbox/seccomp_filter.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <seccomp.h>

#include <fmt/format.h>

#include "sandbox/unique_fd.h"

namespace candor::sandbox {

Result<std::vector<unsigned char>> build_seccomp(bool deny_sockets) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return make_error(ErrorCode::kUnavailable, "seccomp: cannot initialise a filter");
  struct Release {
    scmp_filter_ctx c;
    ~Release() { seccomp_release(c); }
  } release{ctx};
  static const char* kRefused[] = {
      "kexec_load",     "kexec_file_load", "init_module",       "finit_module", "delete_module",
      "reboot",         "swapon",          "swapoff",           "bpf",          "perf_event_open",
      "userfaultfd",    "keyctl",          "add_key",           "request_key",  "acct",
      "settimeofday",   "clock_settime",   "clock_adjtime",     "adjtimex",     "pivot_root",
      "mount",          "umount2",         "open_by_handle_at", "iopl",         "ioperm",
      "io_uring_setup", "io_uring_enter",  "io_uring_register", "fsopen",       "fsmount",
      "move_mount",     "open_tree"};
  for (const char* name : kRefused) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0)
      return make_error(ErrorCode::kUnavailable, fmt::format("seccomp: cannot add a rule for {}", name));
  }
  // Extended attributes: a POSIX ACL (system.posix_acl_default on a folder: every file made in it
  // later writable by others) changes who may write without changing any mode a snapshot records.
  // Refused as a file system without them would: ENOTSUP, which cp -a and tar take in their stride.
  for (const char* name : {"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"}) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOTSUP), nr, 0) != 0)
      return make_error(ErrorCode::kUnavailable, fmt::format("seccomp: cannot add a rule for {}", name));
  }
#if defined(__x86_64__) || defined(__aarch64__)
  // setxattrat and removexattrat (Linux 6.13), by number: an older libseccomp does not know their
  // names, and an allow-by-default filter lets through what it does not name.
  for (int nr : {463, 466}) {
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOTSUP), nr, 0) != 0)
      return make_error(ErrorCode::kUnavailable, fmt::format("seccomp: cannot add a rule for syscall {}", nr));
  }
#endif
  // Terminal injection: TIOCSTI pushes bytes into a terminal's input queue (the user's shell runs
  // them after candor exits), TIOCLINUX can do the same on a virtual console. A step has no
  // controlling terminal (its own session), but it could still open one by path. The request is
  // compared on its low 32 bits, as the kernel reads it.
  for (unsigned long request : {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)}) {
    scmp_arg_cmp is_request{1, SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, request};
    if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1, &is_request) != 0)
      return make_error(ErrorCode::kUnavailable, "seccomp: cannot add the terminal ioctl rule");
  }
  if (deny_sockets) {
    scmp_arg_cmp not_unix{0, SCMP_CMP_NE, AF_UNIX, 0};
    if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1, &not_unix) != 0)
      return make_error(ErrorCode::kUnavailable, "seccomp: cannot add the socket rule");
  }
  UniqueFd mem(::memfd_create("candor-seccomp", MFD_CLOEXEC));
  if (!mem.valid()) return make_error(ErrorCode::kIo, fmt::format("seccomp: memfd: {}", std::strerror(errno)));
  if (seccomp_export_bpf(ctx, mem.get()) != 0)
    return make_error(ErrorCode::kUnavailable, "seccomp: cannot export the filter");
  off_t size = ::lseek(mem.get(), 0, SEEK_END);
  std::vector<unsigned char> program(static_cast<std::size_t>(size));
  if (size <= 0 || ::pread(mem.get(), program.data(), program.size(), 0) != size)
    return make_error(ErrorCode::kIo, "seccomp: cannot read the exported filter back");
  return program;
}

sock_fprog as_fprog(const std::vector<unsigned char>& program) {
  return {static_cast<unsigned short>(program.size() / sizeof(sock_filter)),
          const_cast<sock_filter*>(reinterpret_cast<const sock_filter*>(program.data()))};
}

}  // namespace candor::sandbox
