#include "executor/snapshot_files.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/run_record.h"

namespace candor::executor {
namespace {

namespace fs = std::filesystem;

// Removes its folder when it dies; read-only inside, so permissions are restored first.
class TempTree final : public assertions::MaterializedFiles {
 public:
  explicit TempTree(std::string root) : root_(std::move(root)) {}
  ~TempTree() override {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_directory(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root_, ec);
  }
  const std::string& root() const override { return root_; }

 private:
  std::string root_;
};

Error not_found(const std::string& path, const std::string& when) {
  return make_error(ErrorCode::kNotFound, fmt::format("{} did not exist {}", path, when));
}

}  // namespace

Result<std::string> SnapshotFiles::tree_path(const std::string& path) const {
  TRY(std::string checked, sandbox::Workspace::check_relative(path));
  return normalize_relative_path(checked);
}

bool SnapshotFiles::credential(const std::string& rel, std::string_view content) const {
  return secrets_.refused(rel) || (credentials_ != nullptr && credentials_->has_content(content));
}

Result<sandbox::EntryInfo> SnapshotFiles::stat(const std::string& path) const {
  TRY(std::string rel, tree_path(path));
  TRY(auto info, trees_.stat(tree_, rel));
  if (!info) return not_found(path, absent_phrase_);
  sandbox::EntryInfo out;
  out.kind = info->directory ? sandbox::EntryKind::kDirectory
             : info->mode == 0120000 ? sandbox::EntryKind::kSymlink
                                     : sandbox::EntryKind::kFile;
  out.size = info->size;
  out.mode = info->mode & 0777;
  out.credential = secrets_.refused(rel);
  if (!out.credential && credentials_ != nullptr && out.kind == sandbox::EntryKind::kFile &&
      credentials_->has_size(static_cast<std::uint64_t>(info->size))) {
    TRY(auto file, trees_.read_file(tree_, rel));  // a credential's size: its bytes decide
    out.credential = file && credential(rel, file->content);
  }
  return out;
}

Result<sandbox::FileContent> SnapshotFiles::read_file(const std::string& path, std::size_t max_bytes) const {
  TRY(std::string rel, tree_path(path));
  TRY(auto file, trees_.read_file(tree_, rel));
  if (!file) return not_found(path, absent_phrase_);
  if (file->mode == 0120000) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("{} was a symbolic link {}", path, absent_phrase_));
  }
  bool is_credential = credential(rel, file->content);  // on the whole content, before the cut
  if (file->content.size() > max_bytes) file->content.resize(max_bytes);
  return sandbox::FileContent{std::move(file->content), is_credential};
}

Result<std::unique_ptr<assertions::MaterializedFiles>> SnapshotFiles::materialize(const std::string& path) const {
  TRY(std::string rel, tree_path(path));
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = fmt::format("{}/candor-before-XXXXXX", tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  if (::mkdtemp(pattern.data()) == nullptr) {
    return make_error(ErrorCode::kIo, fmt::format("cannot create {}: {}", pattern, std::strerror(errno)));
  }
  auto tree = std::make_unique<TempTree>(pattern);
  TRY(auto file, trees_.read_file(tree_, rel));
  if (file && file->mode != 0120000 && rel != ".") {
    fs::path target = fs::path(pattern) / rel;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    if (!credential(rel, file->content)) out << file->content;
    out.close();
    if (ec || !out) return make_error(ErrorCode::kIo, fmt::format("cannot write {}", target.string()));
    fs::permissions(target, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read, ec);
  }
  // Read-only all the way down (the process sandbox makes it read-only for the checker, too).
  std::error_code ec;
  std::vector<fs::path> dirs{pattern};
  for (auto it = fs::recursive_directory_iterator(pattern, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory(ec)) dirs.push_back(it->path());
  }
  for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) fs::permissions(*d, fs::perms(0555), ec);
  return std::unique_ptr<assertions::MaterializedFiles>(std::move(tree));
}

}  // namespace candor::executor
