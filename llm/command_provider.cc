#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "llm/local_providers.h"
#include "sandbox/process.h"

namespace candor::llm {
namespace {

class CommandProvider final : public Provider {
 public:
  CommandProvider(std::string command, ProviderOptions options) : command_(std::move(command)), options_(options) {}

  Result<Reply> complete(const Request& request) override {
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    sandbox::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", command_};
    spec.cwd = ".";
    spec.timeout = request.deadline;
    spec.output_cap = 16 << 20;
    spec.merge_stderr = false;
    spec.cancel = options_.cancel;
    spec.stdin_data = nlohmann::json{{"system", request.system}, {"messages", messages}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    auto run = sandbox::run_process(spec);
    if (!run.ok())
      return make_error(ErrorCode::kUnavailable, fmt::format("command {}: {}", command_, run.error().message));
    std::string err = run->errors.text().substr(0, 500);
    if (run->cancelled) return make_error(ErrorCode::kUnavailable, fmt::format("command {}: cancelled", command_));
    if (run->timed_out)
      return make_error(ErrorCode::kTimeout, fmt::format("command {}: no answer within the time left", command_));
    if (run->exit_code != 0) {
      return make_error(ErrorCode::kUnavailable, fmt::format("command {}: exited with {}{}{}", command_, run->exit_code,
                                                             err.empty() ? "" : ": ", err));
    }
    if (run->output.truncated())
      return make_error(ErrorCode::kUnavailable, fmt::format("command {}: reply over 16 MiB", command_));
    Reply r;
    r.text = run->output.text();
    r.usage_estimated = true;
    r.input_tokens = estimate_tokens(spec.stdin_data);
    r.output_tokens = estimate_tokens(r.text);
    return r;
  }
  std::string describe() const override { return "command:" + command_; }

 private:
  std::string command_;
  ProviderOptions options_;
};

}  // namespace

std::unique_ptr<Provider> make_command_provider(const std::string& command, const ProviderOptions& options) {
  return std::make_unique<CommandProvider>(command, options);
}

}  // namespace candor::llm
