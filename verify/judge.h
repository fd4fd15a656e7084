// Tier 2: an LLM judge answers the yes/no questions fixed in round 1 from fenced evidence. The
// prompt, the reply parsing and the combination with tier 1 are pure; asking is one call (plus one
// repair) through the provider.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/credentials.h"
#include "core/result.h"
#include "core/run_record.h"
#include "core/tree_reader.h"
#include "verify/judge_outcome.h"
#include "llm/provider.h"

namespace candor::verify {

struct EvidencePiece {
  std::string kind;  // diff | file | final_answer | planner_reading | note
  std::string path;  // "" for final_answer
  std::string text;
};

struct EvidenceCaps {
  std::size_t diff_per_file = 4096;
  std::size_t excerpt_per_file = 2048;
  std::size_t total = 24 * 1024;
};

// Diff hunks of every mutation, excerpts of the changed files as they are now, excerpts of the
// unchanged files a question (or the goal) names — e.g. the HTML that links the stylesheet — and
// the final answer; capped per file and in total, every cut said in the piece itself. A credential
// file's change (Mutation::credential, or its name) is only "credential file changed (content
// withheld)". `credentials` (may be null) are the run's: an unchanged file holding a credential's
// content is left out, and every piece is masked with their values.
std::vector<EvidencePiece> gather_evidence(const TreeReader& snapshots, const RunFacts& facts,
                                           const std::vector<std::string>& questions = {}, const EvidenceCaps& caps = {},
                                           const CredentialLookup* credentials = nullptr);

// Workspace paths a text names ("index.html", "css/style.css"): words that look like a path, in
// order of first mention, without duplicates. Whether they exist is the caller's question.
std::vector<std::string> paths_named_in(const std::string& text);

struct JudgePrompt {
  std::string system;
  std::string user;
};

// `nonce` makes the evidence fences unforgeable by text inside the evidence.
JudgePrompt judge_prompt(const std::string& goal, const std::vector<std::string>& questions,
                         const std::vector<EvidencePiece>& evidence, const std::string& nonce);

// {"answers": [{"question": 1, "answer": "yes"|"no", "reason": "..."}]}: exactly one answer per
// question. Accepts a code fence around it.
Result<std::vector<JudgeAnswer>> parse_judge_reply(const std::string& reply, std::size_t questions);

// Asks the judge: one call, one repair on a malformed reply.
JudgeOutcome ask_judge(llm::Provider& provider, const std::string& goal, const std::vector<std::string>& questions,
                       const std::vector<EvidencePiece>& evidence, std::chrono::milliseconds deadline);

// The questions to ask: those fixed in round 1, or, when the plan gave none, the goal itself.
std::vector<std::string> judge_questions(const std::string& goal, const std::vector<std::string>& fixed);

// For a change made elsewhere (`candor verify --git`) with no questions given: the goal turned into
// yes/no questions by one LLM call that sees the goal only, never the change, so the goalposts are
// fixed before the evidence exists for the judge. On any failure, the goal itself is the question.
struct Decomposition {
  std::vector<std::string> questions;
  bool decomposed = false;  // false: the fallback (the goal as one question), `error` says why
  std::string error;
  JudgeCall call;
  std::string prompt;  // the user message sent, recorded so a reader can check it held no diff
};
Decomposition decompose_goal(llm::Provider& provider, const std::string& goal, std::chrono::milliseconds deadline);
// {"questions": ["...", ...]}: 1 to 8 non-empty strings.
Result<std::vector<std::string>> parse_questions_reply(const std::string& reply);

}  // namespace candor::verify
