#include "assertions/empty_file_source.h"

#include "assertions/materialized.h"
#include "core/run_record.h"

namespace candor::assertions {

bool EmptyFileAt::is_it(const std::string& path) const {
  auto checked = sandbox::Workspace::check_relative(path);
  return checked.ok() && normalize_relative_path(*checked) == path_;
}

Result<sandbox::EntryInfo> EmptyFileAt::stat(const std::string& path) const {
  if (is_it(path)) return sandbox::EntryInfo{sandbox::EntryKind::kFile, 0, 0644, false};
  return base_ != nullptr ? base_->stat(path) : workspace_.stat(path);
}

Result<sandbox::FileContent> EmptyFileAt::read_file(const std::string& path, std::size_t max_bytes) const {
  if (is_it(path)) return sandbox::FileContent{"", false};
  return base_ != nullptr ? base_->read_file(path, max_bytes) : workspace_.read_file_flagged(path, max_bytes);
}

Result<std::unique_ptr<MaterializedFiles>> EmptyFileAt::materialize(const std::string& path) const {
  if (is_it(path)) return materialize_one(path_, std::string());
  if (base_ != nullptr) return base_->materialize(path);
  // The workspace has no copy to give; an evaluator shown nothing at the path fails, never passes.
  return materialize_one(path, std::nullopt);
}

}  // namespace candor::assertions
