// The public API's values to and from app/'s: a request's enumerations are checked here (an
// out-of-range value is a usage Error naming the field, before any work), and a result keeps what
// a caller reads of it. Private to api/.
#pragma once

#include <optional>
#include <string>

#include <candor/requests.h>
#include <candor/results.h>
#include <candor/types.h>

#include "app/session.h"

namespace candor::api {

// The names app/ takes ("auto", "modify", ...), or a usage Error naming `field`.
candor::Result<std::string> judge_name(JudgePolicy policy, const std::string& field);
candor::Result<std::string> judge_name(const std::optional<JudgePolicy>& policy, const std::string& field);
candor::Result<std::string> kind_name(const std::optional<GoalKind>& kind, const std::string& field);

candor::Result<app::WorkspaceOptions> to_app(const WorkspaceOptions& o, const std::string& field);
candor::Result<app::RunRequest> to_app(const RunRequest& r);
candor::Result<app::ExecRequest> to_app(const ExecRequest& r);
candor::Result<app::VerifyRequest> to_app(const VerifyRequest& r);
candor::Result<app::VerifyGitRequest> to_app(const VerifyGitRequest& r);
app::UndoRequest to_app(const UndoRequest& r);

Error from_app(const candor::Error& e);
RunResult from_app(const app::RunResult& r);
VerifyResult from_app(const app::VerifyResult& r);
UndoResult from_app(const app::UndoResult& r);

}  // namespace candor::api
