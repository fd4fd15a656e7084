#include "store/run_store.h"

#include <sys/stat.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "store/postgres_store.h"
#include "store/sqlite_store.h"

namespace candor::store {
namespace {

std::string from_environment(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

std::string default_store_dir() { return default_store_dir(from_environment); }

std::string default_store_dir(const std::function<std::string(const char*)>& env) {
  if (std::string h = env("CANDOR_HOME"); !h.empty()) return h;
  return state_store_dir(env);
}

std::string state_store_dir(const std::function<std::string(const char*)>& env) {
  if (std::string x = env("XDG_STATE_HOME"); !x.empty()) return x + "/candor";
  std::string home = env("HOME");
  return (home.empty() ? std::string(".") : home) + "/.local/state/candor";
}

bool is_store_url(const std::string& given) {
  return given.rfind("postgres://", 0) == 0 || given.rfind("postgresql://", 0) == 0;
}

std::string masked_store_url(const std::string& url) {
  std::string out = url;
  // userinfo: scheme://user:password@host -> scheme://user:***@host
  if (std::size_t scheme = out.find("://"); scheme != std::string::npos) {
    std::size_t from = scheme + 3;
    std::size_t end = out.find_first_of("/?", from);
    std::size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
    if (at != std::string::npos && at >= from) {
      std::size_t colon = out.find(':', from);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // query parameters: password=..., sslpassword=...
  for (const char* key : {"password=", "sslpassword="}) {
    for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + 1)) {
      if (at > 0 && out[at - 1] != '?' && out[at - 1] != '&') continue;  // part of a longer name
      std::size_t value = at + std::strlen(key);
      std::size_t end = out.find('&', value);
      out.replace(value, (end == std::string::npos ? out.size() : end) - value, "***");
    }
  }
  return out;
}

StoreLocation store_location(const std::string& given) { return store_location(given, from_environment); }

StoreLocation store_location(const std::string& given, const std::function<std::string(const char*)>& env) {
  if (is_store_url(given)) return {given, default_store_dir(env)};
  if (!given.empty()) return {"", given};
  if (std::string url = env("CANDOR_STORE_URL"); !url.empty()) return {url, default_store_dir(env)};
  return {"", default_store_dir(env)};
}

bool run_belongs_to(const std::string& run_workspace, const std::string& source, const std::string& folder) {
  if (run_workspace == folder) return true;
  if (source != "git" || run_workspace.empty()) return false;
  if (run_workspace == "/") return folder.rfind('/', 0) == 0;
  return folder.size() > run_workspace.size() && folder.compare(0, run_workspace.size(), run_workspace) == 0 &&
         folder[run_workspace.size()] == '/';
}

std::string new_run_id(std::chrono::system_clock::time_point now) {
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  static thread_local std::mt19937 rng{std::random_device{}()};
  return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}-{:06x}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, rng() & 0xffffff);
}

Result<std::string> prepare_store_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorCode::kIo, fmt::format("run store: cannot create {}: {}", dir, ec.message()));
  ::chmod(dir.c_str(), 0700);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return make_error(ErrorCode::kIo, fmt::format("run store: cannot write in {}: {}", dir, std::strerror(errno)));
  }
  return std::filesystem::absolute(dir).lexically_normal().string();
}

Result<std::unique_ptr<RunStore>> RunStore::open(const std::string& given) {
  StoreLocation where = store_location(given);
  TRY(std::string dir, prepare_store_dir(where.dir));
  if (!where.url.empty()) return open_postgres_store(where.url, dir);
  return open_sqlite_store(dir);
}

std::string RunStore::text_of(const nlohmann::json& j) const {
  constexpr auto kReplace = nlohmann::json::error_handler_t::replace;
  if (masker_ == nullptr || masker_->empty()) return j.dump(-1, ' ', false, kReplace);
  nlohmann::json copy = j;  // masked before serialising: in the JSON text, escaping could hide a value
  masker_->mask_json(copy);
  return copy.dump(-1, ' ', false, kReplace);
}

std::string RunStore::masked(const std::string& text) const { return masker_ == nullptr ? text : masker_->mask(text); }

Result<std::string> RunStore::resolve(const std::string& ref) const {
  if (ref == "last" || ref.empty()) {
    TRY(auto runs, list(1));
    if (runs.empty()) return make_error(ErrorCode::kNotFound, fmt::format("no runs recorded in {}", describe()));
    return runs.front().id;
  }
  // Cut short, the ids seen so far could make "no run matches" or a wrong unique match: an error
  // from ids_matching is returned as it is.
  TRY(std::vector<std::string> ids, ids_matching(ref, 6));
  if (ids.empty()) return make_error(ErrorCode::kNotFound, fmt::format("no run matches \"{}\" in {}", ref, describe()));
  for (const auto& id : ids) {
    if (id == ref) return id;
  }
  if (ids.size() > 1) {
    std::string names;
    for (std::size_t i = 0; i < ids.size() && i < 5; ++i) names += (i ? ", " : "") + ids[i];
    return make_error(ErrorCode::kInvalidInput, fmt::format("\"{}\" matches several runs ({}{}); give more of the id",
                                                            ref, names, ids.size() > 5 ? ", ..." : ""));
  }
  return ids.front();
}

Result<std::string> RunStore::resolve(const std::string& ref, const std::string& workspace) const {
  if (ref != "last" && !ref.empty()) return resolve(ref);
  TRY(std::vector<Candidate> candidates, runs_at_or_above(workspace));
  for (const Candidate& c : candidates) {
    if (run_belongs_to(c.workspace, c.source, workspace)) return c.id;
  }
  TRY(std::int64_t runs, count_runs());
  if (runs == 0) return make_error(ErrorCode::kNotFound, fmt::format("no runs recorded in {}", describe()));
  return make_error(ErrorCode::kNotFound,
                    fmt::format("no run recorded for this workspace ({}) in {}: --any takes the store's latest run "
                                "(`candor runs` lists them all)",
                                workspace, describe()));
}

std::string run_source(const nlohmann::json& facts) {
  if (!facts.is_object()) return "";
  auto it = facts.find("source");
  return it != facts.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string this_machine() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace candor::store
