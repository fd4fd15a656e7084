// Assertions about files in the workspace. All reads go through the sandbox.
#include <fmt/format.h>

#include "assertions/builtins.h"
#include "core/run_record.h"

namespace candor::assertions {
namespace {

ArgSpec path_arg() { return {"path", ArgType::kString, true, "workspace-relative path"}; }

std::string arg(const nlohmann::json& a, const char* key) { return a.at(key).get<std::string>(); }

// Line number (1-based) of the first occurrence of `text` at or after `pos`.
int line_of(const std::string& content, std::size_t pos) {
  return 1 + static_cast<int>(std::count(content.begin(), content.begin() + static_cast<long>(pos), '\n'));
}

class FileExists final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{
        .name = "file_exists",
        .description = "the path exists inside the workspace (the entry itself: a symlink exists wherever it points)",
        .args = {path_arg()},
        .reads_files = true,
        .proves_content = false};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string path = arg(a, "path");
    Outcome out{false, "", normalize_relative_path(path)};
    auto info = entry_checked_path(ctx, path);
    if (info.ok()) {
      out.passed = true;
      out.message = info->kind == sandbox::EntryKind::kDirectory ? fmt::format("{} exists (a directory)", path)
                    : info->kind == sandbox::EntryKind::kSymlink ? fmt::format("{} exists (a symbolic link)", path)
                    : info->kind == sandbox::EntryKind::kOther   ? fmt::format("{} exists (not a regular file)", path)
                                                               : fmt::format("{} exists ({} bytes)", path, info->size);
    } else if (info.error().code == ErrorCode::kNotFound) {
      out.message = fmt::format("{} does not exist", path);
    } else {
      out.message = "could not be checked: " + info.error().message;
      out.error = true;
    }
    return out;
  }
};

class FileContains final : public Evaluator {
 public:
  explicit FileContains(bool negate) : negate_(negate) {}
  const Signature& signature() const override {
    static const Signature pos{.name = "file_contains",
                               .description = "the file contains `text`",
                               .args = {path_arg(), {"text", ArgType::kString, true, "exact text to look for"}},
                               .reads_files = true};
    static const Signature neg{.name = "file_not_contains",
                               .description = "the file exists and does not contain `text`",
                               .args = {path_arg(), {"text", ArgType::kString, true, "exact text that must be absent"}},
                               .reads_files = true};
    return negate_ ? neg : pos;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string path = arg(a, "path");
    std::string text = arg(a, "text");
    Outcome out{false, "", normalize_relative_path(path)};
    auto content = read_for_check(ctx, path, out);
    if (!content) return out;
    std::size_t pos = content->find(text);
    bool found = pos != std::string::npos;
    out.passed = found != negate_;
    if (found) {
      std::size_t count = 0;
      for (std::size_t p = pos; p != std::string::npos; p = content->find(text, p + text.size())) ++count;
      out.message = fmt::format("{} contains {} ({} time{}, first at line {})", path, quote_excerpt(text), count,
                                count == 1 ? "" : "s", line_of(*content, pos));
    } else {
      out.message = fmt::format("{} does not contain {} ({} bytes read)", path, quote_excerpt(text), content->size());
    }
    return out;
  }

 private:
  bool negate_;
};

class FileSizeGt final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{.name = "file_size_gt",
                             .description = "the file is larger than `bytes`",
                             .args = {path_arg(), {"bytes", ArgType::kInteger, true, "size to exceed", 0}},
                             .reads_files = true,
                             .proves_content = false};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string path = arg(a, "path");
    auto bytes = a.at("bytes").get<std::int64_t>();
    Outcome out{false, "", normalize_relative_path(path)};
    auto info = stat_checked_path(ctx, path);
    if (!info.ok()) {
      bool missing = info.error().code == ErrorCode::kNotFound;
      out.message = missing ? fmt::format("{} does not exist", path) : "could not be checked: " + info.error().message;
      out.error = !missing;
      return out;
    }
    if (info->kind != sandbox::EntryKind::kFile) {
      out.message = fmt::format("could not be checked: {} is not a regular file", path);
      out.error = true;
      return out;
    }
    out.passed = info->size > bytes;
    out.message =
        fmt::format("{} is {} bytes ({} {})", path, info->size, out.passed ? "more than" : "not more than", bytes);
    return out;
  }
};

// file_unchanged and content_changed: one comparison with the pre-run snapshot, read two ways.
// When the comparison cannot be made, neither passes. Not `reads_files`: a comparison with the
// snapshot is trivially false when evaluated on the snapshot, so content_changed would "prove"
// every change it is put on; it says that something changed, never that the right thing did.
class BaselineComparison final : public Evaluator {
 public:
  explicit BaselineComparison(bool want_changed) : want_changed_(want_changed) {}
  const Signature& signature() const override {
    static const Signature unchanged{
        "file_unchanged", "the file is byte-for-byte as it was before the run", {path_arg()}};
    static const Signature changed{
        "content_changed", "the file differs from before the run (created, modified or deleted)", {path_arg()}};
    return want_changed_ ? changed : unchanged;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string path = arg(a, "path");
    std::string norm = normalize_relative_path(path);
    Outcome out{false, "", norm, true};
    if (!ctx.baseline) {
      out.message = "no snapshot from before the run is available to compare with";
      return out;
    }
    auto before = ctx.baseline(norm);
    if (!before.ok()) {
      out.message = before.error().message;
      return out;
    }
    auto now = read_workspace_file(ctx, path, kMaxCheckedFile + 1);
    bool exists_now = now.ok();
    if (!now.ok() && now.error().code != ErrorCode::kNotFound) {
      out.message = now.error().message;
      return out;
    }
    out.error = false;
    bool same;
    if (!before.value()) {
      same = !exists_now;
      out.message = exists_now
                        ? fmt::format("{} did not exist before the run and exists now ({} bytes)", path, now->size())
                        : fmt::format("{} did not exist before the run and still does not", path);
    } else if (!exists_now) {
      same = false;
      out.message = fmt::format("{} existed before the run ({} bytes) and is gone", path, before.value()->size());
    } else {
      same = *before.value() == *now;
      out.message =
          same ? fmt::format("{} is unchanged ({} bytes)", path, now->size())
               : fmt::format("{} changed: {} bytes before the run, {} now", path, before.value()->size(), now->size());
    }
    out.passed = same != want_changed_;
    return out;
  }

 private:
  bool want_changed_;
};

}  // namespace

std::unique_ptr<Evaluator> make_file_exists() { return std::make_unique<FileExists>(); }
std::unique_ptr<Evaluator> make_file_contains() { return std::make_unique<FileContains>(false); }
std::unique_ptr<Evaluator> make_file_not_contains() { return std::make_unique<FileContains>(true); }
std::unique_ptr<Evaluator> make_file_size_gt() { return std::make_unique<FileSizeGt>(); }
std::unique_ptr<Evaluator> make_file_unchanged() { return std::make_unique<BaselineComparison>(false); }
std::unique_ptr<Evaluator> make_content_changed() { return std::make_unique<BaselineComparison>(true); }

}  // namespace candor::assertions
