// The pre-run snapshot as a file source for assertions: the second evaluation of the
// discriminating check reads here (DESIGN.md, Trust boundary: a pass covers a path only if the
// same assertion fails on the path's content before the run).
#pragma once

#include <memory>
#include <string>

#include "assertions/file_source.h"
#include "verify/snapshot.h"

namespace candor::executor {

// Borrows `snapshots`; reads `tree` (a snapshot tree id) only. Thread-compatible.
class SnapshotFiles final : public assertions::FileSource {
 public:
  SnapshotFiles(const verify::SnapshotStore& snapshots, std::string tree) : snapshots_(snapshots), tree_(std::move(tree)) {}

  Result<sandbox::EntryInfo> stat(const std::string& path) const override;
  Result<std::string> read_file(const std::string& path, std::size_t max_bytes) const override;
  // A temporary folder (mode 0555, files 0444) holding only `path` as the snapshot has it.
  Result<std::unique_ptr<assertions::MaterializedFiles>> materialize(const std::string& path) const override;

 private:
  Result<std::string> tree_path(const std::string& path) const;  // normalised, refused when escaping
  const verify::SnapshotStore& snapshots_;
  std::string tree_;
};

}  // namespace candor::executor
