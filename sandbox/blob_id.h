// git's id of a blob (what `git hash-object` prints): the SHA-1 of "blob SIZE\0" and the bytes, in
// hex. The content identity of a credential file (sandbox/credential_registry.h): the same id the
// snapshots and the workspace's own repository give those bytes, so a copy under any name, or a
// tree entry, is recognised by it. Through OpenSSL, which only this file includes in sandbox/.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace candor::sandbox {

std::string git_blob_id(std::string_view content);

// The id of the first `size` bytes of `fd`, read with pread (the descriptor's offset is left where
// it was, so the caller reads from the same descriptor afterwards). kIo when fewer bytes are there.
Result<std::string> git_blob_id_of(int fd, std::size_t size);

}  // namespace candor::sandbox
