// Effect tools: file_write, file_patch, file_delete. Writes are atomic (temp file + rename).
#include <fmt/format.h>

#include "executor/tool.h"

namespace candor::executor {
namespace {

constexpr std::size_t kMaxPatchFile = 16 << 20;

ToolResult done(const std::string& message) {
  ToolResult r;
  r.ok = true;
  r.output = message;
  r.output_bytes = message.size();
  return r;
}

// The effect tools act on one path argument, and change nothing else: the result names it
// (normalised as the workspace resolves it), whether the step succeeded or not.
class PathEffectTool : public Tool {
 public:
  bool read_only() const override { return false; }
  bool effect() const override { return true; }
  std::string target(const nlohmann::json& args) const override { return args.value("path", ""); }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const final {
    ToolResult result = act(args, ctx);
    auto normalized = sandbox::Workspace::check_relative(args.at("path").get<std::string>());
    result.wrote = normalized.ok() ? std::vector<std::string>{*normalized} : std::vector<std::string>{};
    return result;
  }

 protected:
  virtual ToolResult act(const nlohmann::json& args, const ToolContext& ctx) const = 0;
};

// Allowed on a credential file: replacing it whole reveals nothing of it, and its diff is withheld
// wherever one is shown (sandbox::kContentWithheld).
class FileWrite final : public PathEffectTool {
 public:
  const Signature& signature() const override {
    static const Signature s{"file_write",
                             "create or replace a file with the given content",
                             {{"path", ArgType::kString, true, "file to write"},
                              {"content", ArgType::kString, true, "the whole new content"}}};
    return s;
  }
  ToolResult act(const nlohmann::json& args, const ToolContext& ctx) const override {
    std::string path = args.at("path").get<std::string>();
    const std::string& content = args.at("content").get_ref<const std::string&>();
    Status s = ctx.workspace.write_file(path, content);
    if (!s.ok()) return ToolResult::failure(s.error().message);
    return done(fmt::format("wrote {} bytes to {}", content.size(), path));
  }
};

// Counts non-overlapping occurrences.
std::size_t count_occurrences(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + needle.size())) ++n;
  return n;
}

std::string replace_all(const std::string& s, const std::string& find, const std::string& replace) {
  std::string out;
  std::size_t pos = 0;
  for (std::size_t p = s.find(find); p != std::string::npos; p = s.find(find, pos)) {
    out.append(s, pos, p - pos);
    out += replace;
    pos = p + find.size();
  }
  out.append(s, pos, std::string::npos);
  return out;
}

class FilePatch final : public PathEffectTool {
 public:
  const Signature& signature() const override {
    static const Signature s{"file_patch",
                             "replace exact text in a file; each find must occur exactly count times (default 1), "
                             "else nothing is written",
                             {{"path", ArgType::kString, true, "file to patch"},
                              {"edits", ArgType::kEdits, true, "[{find, replace, count?}], applied in order"}}};
    return s;
  }
  ToolResult act(const nlohmann::json& args, const ToolContext& ctx) const override {
    std::string path = args.at("path").get<std::string>();
    // A credential file is refused here, before any edit is tried: "find occurs 0 times" would
    // tell the agent whether its guess of the content was right.
    auto original = ctx.workspace.read_file(path, kMaxPatchFile + 1);
    if (!original.ok()) return ToolResult::failure(original.error().message);
    if (original->size() > kMaxPatchFile)
      return ToolResult::failure(fmt::format("{} is over 16 MiB; not patched", path));
    std::string content = *original;
    const auto& edits = args.at("edits");
    for (std::size_t i = 0; i < edits.size(); ++i) {
      const std::string& find = edits[i].at("find").get_ref<const std::string&>();
      std::size_t want = edits[i].value("count", std::size_t{1});
      std::size_t got = count_occurrences(content, find);
      if (got != want) {
        return ToolResult::failure(
            fmt::format("edits[{}].find occurs {} time{} in {} (expected {}); nothing was written", i, got,
                        got == 1 ? "" : "s", path, want));
      }
      content = replace_all(content, find, edits[i].at("replace").get<std::string>());
    }
    if (content == *original) {
      // Not an error: the step did what it said. Tier 1 flags it as suspicious.
      return done(
          fmt::format("{}: the edits leave the file as it was ({} bytes); nothing changed", path, content.size()));
    }
    Status s = ctx.workspace.write_file(path, content);
    if (!s.ok()) return ToolResult::failure(s.error().message);
    return done(fmt::format("patched {}: {} edit{}, {} -> {} bytes", path, edits.size(), edits.size() == 1 ? "" : "s",
                            original->size(), content.size()));
  }
};

class FileDelete final : public PathEffectTool {
 public:
  const Signature& signature() const override {
    static const Signature s{"file_delete", "delete a file", {{"path", ArgType::kString, true, "file to delete"}}};
    return s;
  }
  ToolResult act(const nlohmann::json& args, const ToolContext& ctx) const override {
    std::string path = args.at("path").get<std::string>();
    Status s = ctx.workspace.delete_file(path);
    if (!s.ok()) return ToolResult::failure(s.error().message);
    return done("deleted " + path);
  }
};

}  // namespace

std::unique_ptr<Tool> make_file_write() { return std::make_unique<FileWrite>(); }
std::unique_ptr<Tool> make_file_patch() { return std::make_unique<FilePatch>(); }
std::unique_ptr<Tool> make_file_delete() { return std::make_unique<FileDelete>(); }

}  // namespace candor::executor
