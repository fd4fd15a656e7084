// The seccomp filter of a sandboxed step, built once in the parent as a BPF program (libseccomp),
// installed in each child after fork. Private to sandbox/.
#pragma once

#include <linux/filter.h>

#include <vector>

#include "core/result.h"

namespace candor::sandbox {

// Kernel administration, io_uring (which opens sockets around the socket() rule), extended
// attributes (a POSIX ACL changes who may write without a mode a snapshot records) and terminal
// input injection are refused always; socket families other than AF_UNIX when `deny_sockets`.
Result<std::vector<unsigned char>> build_seccomp(bool deny_sockets);

// The program as prctl(PR_SET_SECCOMP) takes it; `program` must outlive the result.
sock_fprog as_fprog(const std::vector<unsigned char>& program);

}  // namespace candor::sandbox
