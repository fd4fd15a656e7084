#include "planner/planner.h"

#include <fmt/format.h>

#include "core/json_text.h"
#include "llm/json_reply.h"
#include "planner/prompts.h"

namespace candor::planner {
namespace {

// Parses a reply into a plan; the error says what a repair must fix. `refused` is set when the
// reply was over the JSON limits (core/json_text.h): never parsed, whatever else it says.
Result<Plan> read_plan(const std::string& reply, const Catalog& catalog, const ParseOptions& options, bool& refused);

// The same for a provider's reply: one that did not end with a whole answer (cut at the output
// limit, only thinking, a refusal's cousins) is said as such when it holds no plan, since what is
// missing from its text is a consequence.
Result<Plan> read_plan(const llm::Reply& reply, const Catalog& catalog, const ParseOptions& options, bool& refused) {
  auto plan = read_plan(reply.text, catalog, options, refused);
  if (!plan.ok() && !refused && !reply.incomplete.empty())
    return make_error(ErrorCode::kInvalidInput, reply.incomplete);
  return plan;
}

Result<Plan> read_plan(const std::string& reply, const Catalog& catalog, const ParseOptions& options, bool& refused) {
  refused = false;
  if (reply.size() > kMaxReplyBytes) {
    refused = true;
    return make_error(ErrorCode::kInvalidInput, fmt::format("reply: refused: {}, over the limit of {} for a reply",
                                                            format_bytes(reply.size()), format_bytes(kMaxReplyBytes)));
  }
  auto text = llm::extract_json_object(reply);
  if (!text) return make_error(ErrorCode::kInvalidInput, "the reply contains no JSON object");
  if (Status within = check_json_limits(*text, "reply", kReplyLimits); !within.ok()) {
    refused = true;
    return within.error();
  }
  TRY(nlohmann::json j, parse_json_text(*text, "reply", kReplyLimits));
  return parse_plan(j, catalog, options);
}

}  // namespace

Planner::Planner(llm::Provider& provider, const Catalog& catalog, PlannerHooks hooks, PlannerOptions options)
    : provider_(provider),
      catalog_(catalog),
      hooks_(std::move(hooks)),
      options_(options),
      system_(system_prompt(catalog)),
      kind_(options.kind),
      kind_by_(options.kind ? "--kind" : "") {}

Result<llm::Reply> Planner::call(const std::string& role, const std::vector<llm::Message>& messages,
                                 const Deadline& deadline) {
  llm::Request req;
  req.role = role;
  req.system = system_;
  req.messages = messages;
  req.max_output_tokens = options_.max_output_tokens;
  req.deadline = deadline.left();
  auto reply = provider_.complete(req);
  CallRecord rec;
  rec.role = role;
  rec.ok = reply.ok();
  if (reply.ok()) {
    rec.reply = *reply;
  } else {
    rec.error = reply.error().message;
  }
  if (hooks_.on_call) hooks_.on_call(rec);
  return reply;
}

Result<Plan> Planner::ask(bool first_round, const Deadline& deadline) {
  refused_reply_ = false;
  auto first = call("planner", messages_, deadline);
  // A provider answer over the JSON limits (its envelope, before any plan) is refused input too;
  // no repair: the model never got to say anything.
  if (!first.ok()) refused_reply_ = first.error().code == ErrorCode::kInvalidInput;
  TRY(llm::Reply reply, std::move(first));
  ParseOptions parse{.first_round = first_round, .fixed_kind = kind_, .fixed_by = kind_by_};
  bool refused = false, refused_again = false;
  auto plan = read_plan(reply, catalog_, parse, refused);
  if (!plan.ok()) {
    // One repair call carrying the validation error; the invalid reply is not kept afterwards. A
    // reply cut at the output limit would be cut again: the repair asks for a shorter plan.
    std::vector<llm::Message> repair = messages_;
    repair.push_back({"assistant", reply.text});
    repair.push_back(
        {"user", reply.cut ? shorter_plan_message(plan.error().message) : repair_message(plan.error().message)});
    auto repair_reply = call("repair", repair, deadline);
    if (!repair_reply.ok()) refused_reply_ = repair_reply.error().code == ErrorCode::kInvalidInput;
    TRY(llm::Reply second, std::move(repair_reply));
    auto repaired = read_plan(second, catalog_, parse, refused_again);
    if (!repaired.ok()) {
      refused_reply_ = refused || refused_again;
      return make_error(ErrorCode::kInvalidInput,
                        fmt::format("the planner's reply was invalid twice: first: {}; after repair: {}",
                                    plan.error().message, repaired.error().message));
    }
    reply = second;
    plan = std::move(repaired);
  }
  messages_.push_back({"assistant", reply.text});
  return plan;
}

Result<Plan> Planner::first_plan(const std::string& goal, const std::string& workspace_overview,
                                 const Deadline& deadline) {
  messages_.clear();
  rounds_.clear();
  std::string first = first_message(goal, workspace_overview);
  if (options_.reviewed) first += "\nAn independent reviewer will check the work after you finish.";
  if (kind_) first += fmt::format("\nThe goal kind is fixed as \"{}\" by the user.", to_string(*kind_));
  messages_.push_back({"user", first});
  TRY(Plan plan, ask(true, deadline));
  questions_ = plan.questions;
  if (!kind_) {
    kind_ = plan.goal_kind;
    kind_by_ = "round 1";
  }
  return plan;
}

Result<Plan> Planner::replan(int round, const std::string& failure, const nlohmann::json& observations,
                             const std::string& notes, const Deadline& deadline) {
  messages_.push_back({"user", round_message(round, failure, observations, notes)});
  rounds_.push_back({round, messages_.size() - 1, observations, false});
  bound_context();
  return ask(false, deadline);
}

void Planner::bound_context() {
  auto observation_bytes = [](const nlohmann::json& obs) {
    std::size_t n = 0;
    for (const auto& o : obs) n += o.value("output", "").size();
    return n;
  };
  std::size_t total = 0;
  for (const auto& r : rounds_) {
    if (!r.cut) total += observation_bytes(r.observations);
  }
  // Oldest first; the latest round is always kept whole (it carries the recovery instructions).
  for (std::size_t i = 0; i + 1 < rounds_.size() && total > options_.observation_budget; ++i) {
    RoundEntry& r = rounds_[i];
    if (r.cut) continue;
    std::size_t bytes = observation_bytes(r.observations);
    std::string& content = messages_[r.message_index].content;
    std::size_t recovery = content.find("RECOVERY NEEDED.");
    std::string kept =
        recovery == std::string::npos ? "" : "\n" + content.substr(recovery, content.find('\n', recovery) - recovery);
    content = cut_observations_message(r.round, r.observations, bytes) + kept;
    r.cut = true;
    total -= bytes;
    if (hooks_.on_cut) hooks_.on_cut({r.round, bytes});
  }
}

}  // namespace candor::planner
