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
#include "llm/provider.h"
#include "verify/judge_outcome.h"

namespace candor::verify {

struct EvidencePiece {
  std::string kind;  // diff | file | final_answer | planner_reading | note
  std::string path;  // "" for final_answer
  std::string text;
  // A diff that does not show the whole change of its path (cut at diff_per_file, or too large for
  // candor to diff): its path is never counted as seen.
  bool partial = false;
};

struct EvidenceCaps {
  std::size_t diff_per_file = 256 * 1024;  // a diff past this is cut, and its path not seen whole
  std::size_t excerpt_per_file = 2048;
  std::size_t total = 24 * 1024;  // one prompt's evidence: a batch
  std::size_t max_batches = 12;   // beyond this many prompts, the rest of the change is unseen
};

// The evidence as the prompts that carry it. The context (the planner's reading, the final answer,
// the files a question names, excerpts of changed files) opens the first batch, within half of it;
// then every diff, source before documentation, a diff larger than a batch in parts of its own.
struct EvidenceBatches {
  std::vector<std::vector<EvidencePiece>> batches;
  // Per batch, the paths whose diff (or a part of it) it holds.
  std::vector<std::vector<std::string>> diff_paths;
  // Paths no batch shows whole: a partial diff, or past max_batches.
  std::vector<std::string> unseen_paths;
};
EvidenceBatches plan_batches(const std::vector<EvidencePiece>& evidence, const EvidenceCaps& caps);

// A share of the change: prompt k of n (1-based). {1, 1}: the whole change in one prompt.
struct JudgePart {
  std::size_t index = 1, count = 1;
};

// Diff hunks of every mutation, excerpts of the changed files as they are now, excerpts of the
// unchanged files a question (or the goal) names — e.g. the HTML that links the stylesheet — and
// the final answer; capped per file and in total, every cut said in the piece itself. A credential
// file's change (Mutation::credential, or its name) is only "credential file changed (content
// withheld)". `credentials` (may be null) are the run's: an unchanged file holding a credential's
// content is left out, and every piece is masked with their values.
std::vector<EvidencePiece> gather_evidence(const TreeReader& snapshots, const RunFacts& facts,
                                           const std::vector<std::string>& questions = {},
                                           const EvidenceCaps& caps = {},
                                           const CredentialLookup* credentials = nullptr);

// Workspace paths a text names ("index.html", "css/style.css"): words that look like a path, in
// order of first mention, without duplicates. Whether they exist is the caller's question.
std::vector<std::string> paths_named_in(const std::string& text);

struct JudgePrompt {
  std::string system;
  std::string user;
};

// `nonce` makes the evidence fences unforgeable by text inside the evidence. A part of several
// asks for "not_shown" where that share of the change says nothing about a question.
JudgePrompt judge_prompt(const std::string& goal, const std::vector<std::string>& questions,
                         const std::vector<EvidencePiece>& evidence, const std::string& nonce, JudgePart part = {});

// {"answers": [{"question": 1, "answer": "yes"|"no", "reason": "..."}]}: exactly one answer per
// question ("not_shown" too when `batch`). Accepts a code fence around it.
Result<std::vector<JudgeAnswer>> parse_judge_reply(const std::string& reply, std::size_t questions, bool batch = false);

// Asks the judge: one call, one repair on a malformed reply.
JudgeOutcome ask_judge(llm::Provider& provider, const std::string& goal, const std::vector<std::string>& questions,
                       const std::vector<EvidencePiece>& evidence, std::chrono::milliseconds deadline,
                       JudgePart part = {});

// The batches' answers as one: a question is "no" when any batch said no; else "yes" when some
// batch showed it (the unrequested-change question: when no batch showed such a change); else "no"
// (no share of the change showed it). `unseen_paths` is the batches' unseen plus the diffs of the
// batches not answered. Calls, tokens and errors add up.
JudgeOutcome combine_batches(const std::vector<std::string>& questions, const std::vector<JudgeOutcome>& parts,
                             const EvidenceBatches& plan);

// The questions to ask: those fixed in round 1, or, when the plan gave none, the goal itself.
std::vector<std::string> judge_questions(const std::string& goal, const std::vector<std::string>& fixed);

// For a change made elsewhere (`candor verify --git`) with no questions given: the goal turned into
// yes/no questions by one LLM call that sees the goal only, never the change, so the goalposts are
// fixed before the evidence exists for the judge. On any failure, the goal itself is the question.
struct Decomposition {
  std::vector<std::string> questions;
  // Whether the goal asks for files to change (true) or only asks a question (false), when the
  // reply said (`asks_for_change`); the live gate blocks a turn that changed nothing only on this.
  std::optional<bool> asks_for_change;
  bool decomposed = false;  // false: the fallback (the goal as one question), `error` says why
  std::string error;
  JudgeCall call;
  std::string prompt;  // the user message sent, recorded so a reader can check it held no diff
};
Decomposition decompose_goal(llm::Provider& provider, const std::string& goal, std::chrono::milliseconds deadline);
// {"questions": ["...", ...]}: 1 to 8 non-empty strings.
Result<std::vector<std::string>> parse_questions_reply(const std::string& reply);
// The same, with the optional `"asks_for_change": true|false` beside them (another type is an error).
struct DecompositionReply {
  std::vector<std::string> questions;
  std::optional<bool> asks_for_change;
};
Result<DecompositionReply> parse_decomposition_reply(const std::string& reply);

}  // namespace candor::verify
