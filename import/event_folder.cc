// The event files of a folder (formats.h: event_files, for_each_file), read one file at a time:
// OpenHands V1 persists a conversation as ~/.openhands/conversations/<id>/events/event-NNNNN-<id>.json.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "core/json_text.h"
#include "import/formats.h"

namespace candor::import {
namespace {

namespace fs = std::filesystem;

// The index of "event-00012-<id>.json" (five digits or more, then '-', a name, ".json"); nullopt
// for any other name.
std::optional<unsigned long long> event_index(const std::string& name) {
  const std::string prefix = "event-", suffix = ".json";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  std::size_t end = prefix.size();
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  std::size_t digits = end - prefix.size();
  if (digits < 5 || digits > 18 || name[end] != '-' || end + 1 >= name.size() - suffix.size()) return std::nullopt;
  return std::stoull(name.substr(prefix.size(), digits));
}

}  // namespace

Result<std::vector<std::string>> event_files(const std::string& dir) {
  std::error_code ec;
  fs::path from = fs::path(dir) / "events";
  // An events/ that is a link is not followed: what the folder holds is read, nothing it points at.
  if (fs::is_symlink(fs::symlink_status(from, ec))) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: refused: a link, not the conversation's own events folder", from.string()));
  }
  if (!fs::is_directory(fs::symlink_status(from, ec))) from = dir;
  std::vector<std::pair<unsigned long long, std::string>> found;
  fs::directory_iterator it(from, ec);
  for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    auto index = event_index(name);
    if (!index) continue;
    // Only regular files: a link may lead out of the folder (a credential file, whose text a parse
    // error would quote), and a FIFO or a device would block the read or never end.
    std::error_code kind_ec;
    if (!fs::is_regular_file(it->symlink_status(kind_ec))) {
      return make_error(
          ErrorCode::kInvalidInput,
          fmt::format("{}: refused: not a regular file (a link, a FIFO or a device)", it->path().string()));
    }
    found.emplace_back(*index, name);
  }
  if (ec) return make_error(ErrorCode::kInvalidInput, fmt::format("cannot read {}: {}", from.string(), ec.message()));
  if (found.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: no event-NNNNN-<id>.json files in it or in its events/ folder: not an "
                                  "OpenHands V1 conversation folder",
                                  dir));
  }
  // By number, which is the order of the names while the numbers have five digits (the SDK writes
  // {idx:05d}); a longer number comes after them, as it was written.
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  out.reserve(found.size());
  for (auto& [index, name] : found) out.push_back((from / name).string());
  return out;
}

Status for_each_file(const std::vector<std::string>& files, Builder& b,
                     const std::function<void(const nlohmann::json&)>& visit) {
  for (const auto& path : files) {
    TRY(std::string text, read_input_file(path, kMaxTranscriptLineBytes));
    TRY(nlohmann::json j, parse_json_text(text, path, kTranscriptLineLimits));
    if (!j.is_object()) {
      return make_error(ErrorCode::kInvalidInput,
                        fmt::format("{}: not an event: JSON, but not an object (a {})", path, j.type_name()));
    }
    b.count_record();
    b.at(path);
    visit(j);
    if (b.refused()) return *b.refused();
  }
  return ok_status();
}

}  // namespace candor::import
