#include "assertions/materialized.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

namespace candor::assertions {
namespace {

namespace fs = std::filesystem;

// Removes its folder when it dies; read-only inside, so permissions are restored first.
class TempTree final : public MaterializedFiles {
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

}  // namespace

Result<std::unique_ptr<MaterializedFiles>> materialize_one(const std::string& rel,
                                                           const std::optional<std::string>& content) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = fmt::format("{}/candor-before-XXXXXX", tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  if (::mkdtemp(pattern.data()) == nullptr) {
    return make_error(ErrorCode::kIo, fmt::format("cannot create {}: {}", pattern, std::strerror(errno)));
  }
  auto tree = std::make_unique<TempTree>(pattern);
  if (content && rel != ".") {
    fs::path target = fs::path(pattern) / rel;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << *content;
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
  return std::unique_ptr<MaterializedFiles>(std::move(tree));
}

}  // namespace candor::assertions
