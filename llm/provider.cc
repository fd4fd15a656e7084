#include "llm/provider.h"

#include <cctype>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "llm/http_provider.h"
#include "llm/local_providers.h"

namespace candor::llm {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

constexpr const char* kDefaultAnthropicModel = "claude-sonnet-4-5";
constexpr const char* kDefaultOpenAiModel = "gpt-4o-mini";

}  // namespace

ProviderChoice choose_provider(const std::string& flag, const EnvLookup& lookup) {
  if (!flag.empty()) return {flag, "--llm"};
  if (std::string spec = lookup("CANDOR_LLM"); !spec.empty()) return {spec, "CANDOR_LLM"};
  if (!lookup("ANTHROPIC_API_KEY").empty()) return {"anthropic", "ANTHROPIC_API_KEY"};
  for (const char* key : {"OPENAI_API_KEY", "OPENAI_BASE_URL"}) {
    if (!lookup(key).empty()) return {"openai", key};
  }
  return {};
}

ProviderChoice choose_provider(const std::string& flag) {
  return choose_provider(flag, [](const char* name) { return env(name); });
}

std::int64_t estimate_tokens(const std::string& text) { return static_cast<std::int64_t>(text.size() / 4 + 1); }

std::int64_t estimate_tokens(const Request& request) {
  std::int64_t n = estimate_tokens(request.system);
  for (const auto& m : request.messages) n += estimate_tokens(m.content);
  return n;
}

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '*'; }

// A word a server may have made of a key: a masked echo, or the key's first or last characters.
bool echoes_a_secret(std::string_view word, const std::vector<std::string>& secrets) {
  if (word.find("***") != std::string_view::npos) return true;
  for (const auto& secret : secrets) {
    if (secret.size() < 8 || word.size() < 4 || word.size() > secret.size()) continue;
    if (word.size() >= 6 && secret.compare(0, word.size(), word) == 0) return true;
    if (secret.compare(secret.size() - word.size(), word.size(), word) == 0) return true;
  }
  return false;
}

}  // namespace

std::string redact(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.size() < 8) continue;  // too short to be a key; replacing it would garble text
    for (std::size_t at; (at = text.find(secret)) != std::string::npos;) text.replace(at, secret.size(), "[redacted]");
  }
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (!word_char(text[i])) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && word_char(text[end])) ++end;
    std::string_view word(text.data() + i, end - i);
    out += echoes_a_secret(word, secrets) ? std::string_view("[redacted]") : word;
    i = end;
  }
  return out;
}

namespace {

Result<std::unique_ptr<Provider>> make_unmasked(const std::string& spec, const ProviderOptions& options) {
  std::string kind = spec.substr(0, spec.find(':'));
  std::string arg = spec.find(':') == std::string::npos ? "" : spec.substr(spec.find(':') + 1);
  if (kind == "anthropic") {
    HttpProviderConfig c;
    c.api_key = env("ANTHROPIC_API_KEY");
    if (c.api_key.empty()) return make_error(ErrorCode::kUnavailable, "anthropic: ANTHROPIC_API_KEY is not set");
    c.base_url = env("ANTHROPIC_BASE_URL").empty() ? "https://api.anthropic.com" : env("ANTHROPIC_BASE_URL");
    c.model = arg.empty() ? kDefaultAnthropicModel : arg;
    c.options = options;
    return make_anthropic(std::move(c));
  }
  if (kind == "openai") {
    HttpProviderConfig c;
    c.api_key = env("OPENAI_API_KEY");
    c.base_url = env("OPENAI_BASE_URL");
    // A local compatible server (Ollama, llama.cpp, vLLM) needs no key; the public API does.
    if (c.base_url.empty()) {
      if (c.api_key.empty())
        return make_error(ErrorCode::kUnavailable, "openai: OPENAI_API_KEY is not set (or set OPENAI_BASE_URL)");
      c.base_url = "https://api.openai.com/v1";
      c.max_completion_tokens_first = true;
    }
    c.model = arg.empty() ? kDefaultOpenAiModel : arg;
    c.options = options;
    return make_openai(std::move(c));
  }
  if (kind == "script") {
    if (arg.empty()) return make_error(ErrorCode::kUsage, "--llm script:FILE needs a file");
    return make_script_provider(arg);
  }
  if (kind == "command") {
    if (arg.empty()) return make_error(ErrorCode::kUsage, "--llm command:PROG needs a program");
    return make_command_provider(arg, options);
  }
  return make_error(
      ErrorCode::kUsage,
      fmt::format("unknown LLM provider \"{}\" (expected anthropic, openai, script:FILE or command:PROG)", kind));
}

}  // namespace

Result<std::unique_ptr<Provider>> make_provider(const std::string& spec, const ProviderOptions& options) {
  TRY(std::unique_ptr<Provider> provider, make_unmasked(spec, options));
  return mask_requests(std::move(provider), options.masker);
}

}  // namespace candor::llm
