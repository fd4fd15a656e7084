// Constructors of the built-in evaluators; the table that registers them is builtins.cc.
#pragma once

#include <memory>

#include "assertions/evaluator.h"

namespace candor::assertions {

std::unique_ptr<Evaluator> make_file_exists();
std::unique_ptr<Evaluator> make_file_contains();
std::unique_ptr<Evaluator> make_file_not_contains();
std::unique_ptr<Evaluator> make_file_size_gt();
std::unique_ptr<Evaluator> make_file_unchanged();
std::unique_ptr<Evaluator> make_output_contains();
std::unique_ptr<Evaluator> make_exit_code_eq();
std::unique_ptr<Evaluator> make_socket_open();
std::unique_ptr<Evaluator> make_http_200();

// Quotes text for a message, capped: "abc..." (44 chars).
std::string quote_excerpt(const std::string& text, std::size_t max_chars = 60);

}  // namespace candor::assertions
