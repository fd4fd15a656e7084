// Where file assertions read. Normally the workspace as it is now; for the discriminating check
// (docs/design.md, Trust boundary) the same assertion is evaluated again on the pre-run snapshot, and
// a pass counts as evidence about the change only if it fails there. Evaluators whose signature
// declares `reads_files` must read through here (read_checked_file / stat_checked_path in
// builtins.h), never through the workspace directly, or the second evaluation would see the
// workspace twice.
#pragma once

#include <memory>
#include <string>

#include "core/result.h"
#include "sandbox/workspace.h"

namespace candor::assertions {

// A folder a program can be pointed at (external evaluators read files themselves).
class MaterializedFiles {
 public:
  virtual ~MaterializedFiles() = default;
  virtual const std::string& root() const = 0;  // absolute
};

class FileSource {
 public:
  virtual ~FileSource() = default;
  // kNotFound when nothing is at `path` (workspace-relative). Both say whether `path` is a
  // credential file, by the workspace's own filter (sandbox::Workspace::secrets()).
  virtual Result<sandbox::EntryInfo> stat(const std::string& path) const = 0;
  virtual Result<sandbox::FileContent> read_file(const std::string& path, std::size_t max_bytes) const = 0;
  // A read-only folder holding `path` as this source has it, at the same relative path; removed
  // when the returned object dies. A credential file is there empty, as shell steps see it.
  virtual Result<std::unique_ptr<MaterializedFiles>> materialize(const std::string& path) const = 0;
};

}  // namespace candor::assertions
