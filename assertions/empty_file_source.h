// The second half of positive evidence (docs/design.md, Trust boundary: a covering pass also fails on
// an empty file at its path): the files as another source has them, except one path, which holds
// an empty regular file. `file_exists` passes there, `not file_contains OLD` passes there, so
// neither is evidence of what the file holds.
#pragma once

#include <string>

#include "assertions/file_source.h"
#include "sandbox/workspace.h"

namespace candor::assertions {

class EmptyFileAt final : public FileSource {
 public:
  // `path`: normalised, workspace-relative. `base` (borrowed; null: `workspace` as it is now) answers
  // for every other path. Both must outlive this.
  EmptyFileAt(std::string path, const FileSource* base, const sandbox::Workspace& workspace)
      : path_(std::move(path)), base_(base), workspace_(workspace) {}

  Result<sandbox::EntryInfo> stat(const std::string& path) const override;
  Result<sandbox::FileContent> read_file(const std::string& path, std::size_t max_bytes) const override;
  Result<std::unique_ptr<MaterializedFiles>> materialize(const std::string& path) const override;

 private:
  bool is_it(const std::string& path) const;
  std::string path_;
  const FileSource* base_;
  const sandbox::Workspace& workspace_;
};

}  // namespace candor::assertions
