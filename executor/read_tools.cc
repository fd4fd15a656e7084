// Read-only file tools: file_read, file_list, file_search. Every path goes through the sandbox.

#include <optional>

#include <fmt/format.h>
#include <re2/re2.h>

#include "core/glob.h"
#include "executor/tool.h"

namespace candor::executor {
namespace {

constexpr std::size_t kMaxReadFile = 16 << 20;
constexpr std::size_t kMaxSearchFile = 4 << 20;
constexpr int kMaxListEntries = 2000;
constexpr int kMaxSearchMatches = 500;
constexpr std::size_t kMaxMatchLine = 300;

ArgSpec path_arg(bool required, const char* what) { return {"path", ArgType::kString, required, what}; }

class FileRead final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"file_read",
                             "read a text file, optionally a range of lines",
                             {path_arg(true, "file to read"),
                              {"offset", ArgType::kInteger, false, "first line to return, 1-based (default 1)", 1},
                              {"limit", ArgType::kInteger, false, "number of lines to return (default: all)", 1}}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json& args) const override { return args.value("path", ""); }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    const std::string path = args.at("path").get<std::string>();
    // One byte past the cap tells a file that fills it from one that goes on.
    auto content = ctx.workspace.read_file(path, kMaxReadFile + 1);
    if (!content.ok()) return ToolResult::failure(content.error().message);
    const bool cut = content->size() > kMaxReadFile;
    if (cut) {
      // Only whole lines count: the line the cap splits is not one the file has.
      std::size_t last_nl = content->rfind('\n', kMaxReadFile - 1);
      content->resize(last_nl == std::string::npos ? 0 : last_nl + 1);
    }
    const std::int64_t offset = args.value("offset", std::int64_t{1});
    const std::int64_t limit = args.value("limit", std::int64_t{0});
    const LineRange range = line_range(*content, offset, limit);
    if (cut && range.begin == content->size()) {
      return ToolResult::failure(
          fmt::format("{}: line {} lies beyond the first {} MiB, the most file_read reads "
                      "(the file is {}; those {} MiB hold {} whole lines)",
                      path, offset, kMaxReadFile >> 20, file_size(ctx, path), kMaxReadFile >> 20, range.lines_before));
    }
    CappedOutput out(ctx.output_cap);
    out.append(content->data() + range.begin, range.end - range.begin);
    ToolResult r;
    r.ok = true;
    r.set_output(out);
    if (cut && range.end == content->size() && (limit == 0 || range.lines < limit)) {
      // The range runs past what was read: say where it stops rather than pass it off as the end.
      r.output +=
          fmt::format("\n[file_read stopped after line {}: the file is {} and file_read reads only the first {} MiB]",
                      offset + range.lines - 1, file_size(ctx, path), kMaxReadFile >> 20);
      r.output_truncated = true;
    }
    return r;
  }

 private:
  struct LineRange {
    std::size_t begin = 0, end = 0;  // byte offsets into the content
    std::int64_t lines = 0;          // lines in [begin, end)
    std::int64_t lines_before = 0;   // lines before begin
  };
  // Lines [offset, offset + limit) of `c`; limit 0 means to the end.
  static LineRange line_range(const std::string& c, std::int64_t offset, std::int64_t limit) {
    LineRange r;
    while (r.begin < c.size() && r.lines_before + 1 < offset) {
      std::size_t nl = c.find('\n', r.begin);
      r.begin = nl == std::string::npos ? c.size() : nl + 1;
      ++r.lines_before;
    }
    r.end = r.begin;
    while (r.end < c.size() && (limit == 0 || r.lines < limit)) {
      std::size_t nl = c.find('\n', r.end);
      r.end = nl == std::string::npos ? c.size() : nl + 1;
      ++r.lines;
    }
    return r;
  }
  static std::string file_size(const ToolContext& ctx, const std::string& path) {
    auto info = ctx.workspace.stat(path);
    return info.ok() ? fmt::format("{} bytes", info->size) : fmt::format("over {} bytes", kMaxReadFile);
  }
};

class FileList final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"file_list",
                             "list files and directories (not following symlinks; .git and .candor are skipped)",
                             {path_arg(false, "directory to list (default .)"),
                              {"depth", ArgType::kInteger, false, "how deep to descend (default 2)", 1, 64}}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json& args) const override { return args.value("path", "."); }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    std::string path = args.value("path", ".");
    int depth = args.value("depth", 2);
    CappedOutput out(ctx.output_cap);
    int entries = 0;
    bool cut = false;
    Status s = ctx.workspace.walk(path, depth, [&](const sandbox::WalkEntry& e) {
      if (entries >= kMaxListEntries) {
        cut = true;
        return false;
      }
      ++entries;
      switch (e.kind) {
        case sandbox::EntryKind::kDirectory:
          out.append(e.path + "/\n");
          break;
        case sandbox::EntryKind::kFile:
          out.append(fmt::format("{}  ({} bytes)\n", e.path, e.size));
          break;
        case sandbox::EntryKind::kSymlink:
          out.append(e.path + "  (symlink)\n");
          break;
        case sandbox::EntryKind::kOther:
          out.append(e.path + "  (special file)\n");
          break;
      }
      return true;
    });
    if (!s.ok()) return ToolResult::failure(s.error().message);
    if (cut) out.append(fmt::format("[listing stopped after {} entries]\n", kMaxListEntries));
    if (entries == 0) out.append("(empty)\n");
    ToolResult r;
    r.ok = true;
    r.set_output(out);
    return r;
  }
};

class FileSearch final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{
        "file_search",
        "search file contents with an RE2 regular expression",
        {{"pattern", ArgType::kString, true, "RE2 pattern, matched per line"},
         path_arg(false, "directory or file to search (default .)"),
         {"glob", ArgType::kString, false,
          "only files the glob matches (git's wildmatch, gitignore anchoring): *.css at any depth, "
          "src/**/*.ts from the root"}}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json& args) const override {
    return fmt::format("/{}/ in {}", args.value("pattern", ""), args.value("path", "."));
  }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    RE2::Options options;
    options.set_log_errors(false);
    RE2 re(args.at("pattern").get<std::string>(), options);
    if (!re.ok()) return ToolResult::failure("invalid RE2 pattern: " + re.error());
    std::string path = args.value("path", ".");
    // One glob dialect (core/glob.h); an invalid glob fails the step, never searches everything.
    std::optional<PathGlob> glob;
    if (std::string text = args.value("glob", ""); !text.empty()) {
      auto compiled = PathGlob::compile(text);
      if (!compiled.ok())
        return ToolResult::failure(fmt::format("invalid glob \"{}\": {}", text, compiled.error().message));
      glob = std::move(compiled.value());
    }
    CappedOutput out(ctx.output_cap);
    int matches = 0, files = 0, skipped = 0, secrets = 0;
    bool cut = false;

    // False for a credential file, never searched: a match would print the secret, and even a
    // count says whether a guess was right. The check is on the descriptor the bytes come from.
    auto search_file = [&](const std::string& file) {
      auto content = ctx.workspace.read_file_flagged(file, kMaxSearchFile + 1);
      if (content.ok() && content->credential) {
        ++secrets;
        return false;
      }
      if (!content.ok() || content->bytes.size() > kMaxSearchFile ||
          content->bytes.find('\0', 0) < std::min<std::size_t>(content->bytes.size(), 8192)) {
        ++skipped;  // unreadable, too large or binary
        return true;
      }
      ++files;
      const std::string& c = content->bytes;
      int line_no = 0;
      for (std::size_t pos = 0; pos < c.size();) {
        std::size_t nl = c.find('\n', pos);
        std::size_t end = nl == std::string::npos ? c.size() : nl;
        ++line_no;
        re2::StringPiece line(c.data() + pos, end - pos);
        if (RE2::PartialMatch(line, re)) {
          if (matches >= kMaxSearchMatches) {
            cut = true;
            return true;
          }
          ++matches;
          std::string text(line.substr(0, kMaxMatchLine));
          out.append(fmt::format("{}:{}: {}{}\n", file, line_no, text, line.size() > kMaxMatchLine ? "..." : ""));
        }
        pos = end + 1;
      }
      return true;
    };

    auto info = ctx.workspace.stat(path);
    if (!info.ok()) return ToolResult::failure(info.error().message);
    if (info->kind == sandbox::EntryKind::kFile) {
      if (!search_file(path)) return ToolResult::failure(sandbox::secret_refusal(path));
    } else {
      Status s = ctx.workspace.walk(path, 64, [&](const sandbox::WalkEntry& e) {
        if (e.kind != sandbox::EntryKind::kFile) return true;
        if (glob && !glob->matches(e.path)) return true;
        search_file(e.path);
        return !cut;
      });
      if (!s.ok()) return ToolResult::failure(s.error().message);
    }
    if (cut) out.append(fmt::format("[search stopped after {} matches]\n", kMaxSearchMatches));
    out.append(fmt::format("{} match{} in {} file{} searched{}\n", matches, matches == 1 ? "" : "es", files,
                           files == 1 ? "" : "s",
                           skipped ? fmt::format(" ({} skipped: binary, unreadable or over 4 MiB)", skipped) : ""));
    if (secrets) out.append(fmt::format("{} credential file{} not searched\n", secrets, secrets == 1 ? "" : "s"));
    ToolResult r;
    r.ok = true;
    r.set_output(out);
    return r;
  }
};

}  // namespace

std::unique_ptr<Tool> make_file_read() { return std::make_unique<FileRead>(); }
std::unique_ptr<Tool> make_file_list() { return std::make_unique<FileList>(); }
std::unique_ptr<Tool> make_file_search() { return std::make_unique<FileSearch>(); }

}  // namespace candor::executor
