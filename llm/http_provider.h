// Anthropic and OpenAI-compatible providers over core's HTTP transport, with retries.
#pragma once

#include <memory>
#include <string>

#include "llm/provider.h"

namespace candor::llm {

struct HttpProviderConfig {
  std::string base_url;  // e.g. https://api.anthropic.com or http://127.0.0.1:11434/v1
  std::string api_key;   // may be empty for local OpenAI-compatible servers
  std::string model;
  ProviderOptions options;
  long connect_timeout_ms = 10000;
  // openai: the output limit's field to try first (llm/wire.h, OpenAiDialect): max_completion_tokens
  // for OpenAI's own API, max_tokens for any other server.
  bool max_completion_tokens_first = false;
};

std::unique_ptr<Provider> make_anthropic(HttpProviderConfig config);
std::unique_ptr<Provider> make_openai(HttpProviderConfig config);

}  // namespace candor::llm
