// The assertions a workspace can check, without a run: `candor evaluators` (the types: the
// built-ins and its config's external evaluators) and `candor assert` (assertions checked
// against the workspace as it is, their commands in the process sandbox).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace candor::app {

struct EvaluatorList {
  nlohmann::json described;  // each type with its arguments (`evaluators --json`)
  std::string listing;       // the same, as text for a terminal
};

// The built-ins plus the external evaluators of `workspace`'s .candor/config.json (none without one).
Result<EvaluatorList> list_evaluators(const std::string& workspace);

struct AssertRequest {
  std::vector<std::string> assertions;  // JSON texts
  std::string workspace = ".";
  bool allow_network = false;  // commands may use the network
};

struct AssertionCheck {
  nlohmann::json assertion;
  bool passed = false;
  std::string message;  // what was observed, in a sentence
  std::string path;     // the workspace path inspected, "" when none
  bool error = false;   // the check could not be made (never a pass)
};

struct AssertResult {
  std::vector<AssertionCheck> checks;  // in the order given
  bool passed = true;                  // every one passed
};

// Every assertion is parsed and validated before any is checked: an invalid one is an error
// naming it ("assertion #2"), and nothing runs. `checked`, when given, hears each as it is
// checked, before the next starts.
Result<AssertResult> check_assertions(const AssertRequest& request,
                                      const std::function<void(const AssertionCheck&)>& checked = {});

// `assert --json`: {passed, results: [{assertion, passed, message, path, error}]}.
nlohmann::json to_json(const AssertResult& result);

}  // namespace candor::app
