// How much disk a folder takes: for `candor gc` and `candor doctor`.
#pragma once

#include <cstdint>
#include <string>

namespace candor {

struct DiskUsage {
  std::uint64_t bytes = 0;  // allocated on disk (st_blocks), as du counts: small files cost a block
  std::uint64_t files = 0;  // regular files
};

// Everything beneath `path` (not following symlinks). A file that vanishes while it is counted
// (a run removes its temporary folder) is not counted; a missing `path` is zero.
DiskUsage disk_usage(const std::string& path);

// "0 B", "812 B", "12.3 KiB", "4.0 MiB", "1.20 GiB".
std::string human_bytes(std::uint64_t bytes);

}  // namespace candor
